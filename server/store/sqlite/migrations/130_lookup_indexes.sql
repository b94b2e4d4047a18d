-- Lookups that read a whole table, found by the plans of every query the server makes over a conformance run
-- (test/conformance/conformance.test.ts, "the reference server's queries scan no table whole"): they cost more as the data
-- grows, on every call. Migration 140 takes the last one, the organizations of an email domain.
--
-- Deleting a row checks the rows that refer to it (foreign keys: cascade, set null); without an index on the
-- referring column, each such delete read the whole referring table.
CREATE INDEX team_spaces_space ON team_spaces (space_id);
CREATE INDEX saml_providers_default_team ON saml_providers (default_team_id) WHERE default_team_id IS NOT NULL;
CREATE INDEX site_sections_group ON site_sections (group_id) WHERE group_id IS NOT NULL;
CREATE INDEX site_spaces_section ON site_spaces (section_id) WHERE section_id IS NOT NULL;

-- A site's proxy address is checked to be no other site's on every change of it.
CREATE INDEX sites_proxy ON sites (proxy) WHERE proxy IS NOT NULL;
