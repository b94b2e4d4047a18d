-- spaces_live (organization_id) WHERE deleted_at IS NULL is a prefix of spaces_sibling_position (organization_id,
-- parent_id, position, id) under the same condition: any query it served, that index serves, and live-space counts
-- come from organization_space_counts (migration 110). Keeping it cost every write of a space one more page.
DROP INDEX spaces_live;
