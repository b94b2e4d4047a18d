-- Most updates of a space change neither its organization nor its deletion (a title, a revision, a place), and
-- leave what its triggers keep as it was. The two statement-level triggers on a space's update each ran a PL/pgSQL
-- call and its statements over the transition tables on every update: half of PostgreSQL's time for the update of a
-- space's settings. Now the sites' trigger is a row trigger fired only when a space's organization changed (as
-- SQLite's), and the counts' trigger, set-based still (a trash or a transfer of a tree moves many spaces in one
-- statement, and counting them row by row would update one count row as many times), returns after one look when a
-- single space's update moved nothing.
DROP TRIGGER organization_space_counts_changed ON spaces;
DROP TRIGGER site_spaces_leave_with_space ON spaces;

-- Inserts and deletes keep this function; updates have their own below.
CREATE OR REPLACE FUNCTION organization_space_counts_spaces() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    UPDATE organization_space_counts AS c SET live_spaces = c.live_spaces - d.n
    FROM (SELECT organization_id, count(*) AS n FROM old_rows WHERE deleted_at IS NULL GROUP BY organization_id) AS d
    WHERE c.organization_id = d.organization_id;
  ELSE
    INSERT INTO organization_space_counts AS c (organization_id, live_spaces)
    SELECT organization_id, count(*) FROM new_rows WHERE deleted_at IS NULL GROUP BY organization_id
    ON CONFLICT (organization_id) DO UPDATE SET live_spaces = c.live_spaces + EXCLUDED.live_spaces;
  END IF;
  RETURN NULL;
END $$;

-- Deleted, restored, or transferred to another organization: the net change of each organization's count, set-based
-- (a trash or a transfer of a tree is one statement of many rows). Most updates of a space change neither its
-- organization nor its deletion: those return after one look at the rows.
CREATE FUNCTION organization_space_counts_space_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (SELECT (o.organization_id, o.deleted_at IS NULL) = (n.organization_id, n.deleted_at IS NULL)
      FROM old_rows AS o, new_rows AS n WHERE (SELECT count(*) FROM new_rows) = 1) THEN
    RETURN NULL;
  END IF;
  WITH delta AS (
    SELECT organization_id, sum(n) AS n FROM (
      SELECT organization_id, -1 AS n FROM old_rows WHERE deleted_at IS NULL
      UNION ALL SELECT organization_id, 1 FROM new_rows WHERE deleted_at IS NULL) AS moves
    GROUP BY organization_id HAVING sum(n) <> 0),
  changed AS (
    UPDATE organization_space_counts AS c SET live_spaces = c.live_spaces + delta.n FROM delta
    WHERE c.organization_id = delta.organization_id RETURNING c.organization_id)
  INSERT INTO organization_space_counts (organization_id, live_spaces)
  SELECT organization_id, n FROM delta WHERE n > 0 AND organization_id NOT IN (SELECT organization_id FROM changed);
  RETURN NULL;
END $$;
CREATE TRIGGER organization_space_counts_changed AFTER UPDATE ON spaces
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION organization_space_counts_space_changed();

-- A site holds spaces of its own organization only: a space transferred to another leaves the sites of its old one.
DROP FUNCTION site_spaces_leave_with_space();
CREATE FUNCTION site_spaces_leave_with_space() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM site_spaces AS s USING sites AS t
  WHERE s.space_id = NEW.id AND t.id = s.site_id AND t.organization_id <> NEW.organization_id;
  RETURN NULL;
END $$;
CREATE TRIGGER site_spaces_leave_with_space AFTER UPDATE OF organization_id ON spaces
  FOR EACH ROW WHEN (OLD.organization_id IS DISTINCT FROM NEW.organization_id)
  EXECUTE FUNCTION site_spaces_leave_with_space();
