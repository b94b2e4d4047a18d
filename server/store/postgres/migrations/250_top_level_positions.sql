-- An organization's top level in sibling order (see SQLite's 250): the planner takes `parent_id IS NULL` for no
-- equality, so spaces_sibling_position could not be read in order there, and every top-level item was sorted on each
-- create and move.
CREATE INDEX spaces_top_level_position ON spaces (organization_id, position, id) WHERE parent_id IS NULL AND deleted_at IS NULL;
CREATE INDEX collections_top_level_position ON collections (organization_id, position, id) WHERE parent_id IS NULL;
