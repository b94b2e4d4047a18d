-- Nothing to change: SQLite's triggers on a space's update fire only when its organization or its deletion changed
-- (010, 110). PostgreSQL's do the same work for less from this version on (postgres/migrations).
SELECT 1;
