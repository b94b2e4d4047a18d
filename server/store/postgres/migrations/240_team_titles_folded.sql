-- A team's title in lower case as JavaScript makes it, kept by store/teams.ts with the title (see SQLite's 240).
-- lower() under the "C" collation folds ASCII letters only, so the backfill is exact for titles in ASCII; a database
-- gets 230 and this migration at its first start, before any team is written.
ALTER TABLE teams ADD COLUMN title_folded text COLLATE "C" NOT NULL DEFAULT '';
UPDATE teams SET title_folded = lower(title);
