-- An organization's top level (parent_id IS NULL) in sibling order. PostgreSQL's planner takes `parent_id IS NULL`
-- for no equality, so it could not read spaces_sibling_position in order there and sorted every top-level item on
-- each create and move (4.6 ms with 2 500 spaces); these indexes are read in order, one step, however many there are.
-- SQLite reads spaces_sibling_position in order already; it has them too, so that the two engines' schemas stay one.
CREATE INDEX spaces_top_level_position ON spaces (organization_id, position, id) WHERE parent_id IS NULL AND deleted_at IS NULL;
CREATE INDEX collections_top_level_position ON collections (organization_id, position, id) WHERE parent_id IS NULL;
