-- A team's title in lower case as JavaScript makes it (`toLowerCase()`, every script), kept by store/teams.ts with the
-- title, for the title filter of GET /v1/orgs/{organizationId}/teams: SQLite's LIKE and lower() fold ASCII letters
-- only, and PostgreSQL's under the "C" collation too, so a case-insensitive match for every script is made on text
-- folded beforehand, the same way on both engines. (`casefold` is registered for migrations: sqlite/store.ts.)
ALTER TABLE teams ADD COLUMN title_folded TEXT NOT NULL DEFAULT '';
UPDATE teams SET title_folded = casefold(title);
