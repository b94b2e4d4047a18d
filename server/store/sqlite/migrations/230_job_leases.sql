-- Jobs are claimed by an instance for a while (a lease), renewed while they run: a job whose lease ran out is taken
-- over by another instance (PostgreSQL) or by the next start (SQLite). `owner` names the instance, `lease_until` is
-- the end of its lease in milliseconds since the epoch.
ALTER TABLE jobs ADD COLUMN owner TEXT;
ALTER TABLE jobs ADD COLUMN lease_until INTEGER;
