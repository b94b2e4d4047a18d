-- Counting the live spaces of an organization reads this index only.
CREATE INDEX spaces_live ON spaces (organization_id) WHERE deleted_at IS NULL;
