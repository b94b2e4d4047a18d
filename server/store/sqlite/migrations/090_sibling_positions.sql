-- The last position among the siblings of a new space or collection (ordering.ts `lastPosition`) is read from
-- these indexes, one step each, instead of from every sibling.
CREATE INDEX spaces_sibling_position ON spaces (organization_id, parent_id, position) WHERE deleted_at IS NULL;
CREATE INDEX collections_sibling_position ON collections (organization_id, parent_id, position);
