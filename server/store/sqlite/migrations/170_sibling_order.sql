-- Siblings (the spaces and collections of one parent) are ordered by position, then id: a move finds the sibling
-- next to its place in that order from these indexes, one step each (ordering.ts `neighbour`), instead of reading
-- every sibling (a move among 50 000 top-level spaces read all of them, twice).
DROP INDEX spaces_sibling_position;
DROP INDEX collections_sibling_position;
CREATE INDEX spaces_sibling_position ON spaces (organization_id, parent_id, position, id) WHERE deleted_at IS NULL;
CREATE INDEX collections_sibling_position ON collections (organization_id, parent_id, position, id);
