-- Published sites and their structure: sections, section groups and site spaces (spaces attached to a site).
--
-- Order: sections outside a group and section groups share one order per site (the top level); sections inside a
-- group are ordered within it; site spaces are ordered within their section, or at the root level of a site
-- without sections. Positions are renumbered 1..n whenever siblings are reordered.
-- Defaults are kept on the container (the site's default section and root site space, a section's default site
-- space); when the stored default is gone, the first item in order is the default (and is then stored).

CREATE TABLE sites (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  type TEXT NOT NULL DEFAULT 'basic',
  title TEXT NOT NULL,
  visibility TEXT NOT NULL DEFAULT 'public',
  basename TEXT,
  -- The address visitors use when the site is served through a proxy, as given (host and path, no scheme).
  proxy TEXT,
  agents_context TEXT NOT NULL DEFAULT 'included',
  adaptive_content INTEGER NOT NULL DEFAULT 0,
  -- JSON of the adaptive schema's jsonSchema; adaptive_schema_updated_at is NULL until it is first replaced.
  adaptive_schema TEXT NOT NULL,
  adaptive_schema_updated_at TEXT,
  -- Secret that opens a published share-link site.
  share_key TEXT NOT NULL,
  default_section_id TEXT,
  default_site_space_id TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX sites_organization ON sites (organization_id, created_at, id);

CREATE TABLE site_section_groups (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  icon TEXT,
  position REAL NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX site_section_groups_site ON site_section_groups (site_id, position);

CREATE TABLE site_sections (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
  group_id TEXT REFERENCES site_section_groups (id) ON DELETE SET NULL,
  title TEXT NOT NULL,
  path TEXT NOT NULL,
  description TEXT,
  condition TEXT,
  icon TEXT,
  default_site_space_id TEXT,
  position REAL NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (site_id, path)
);
CREATE INDEX site_sections_site ON site_sections (site_id, position);

-- section_id NULL: the root level of a site without sections.
CREATE TABLE site_spaces (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
  section_id TEXT REFERENCES site_sections (id) ON DELETE CASCADE,
  space_id TEXT NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
  path TEXT NOT NULL,
  condition TEXT,
  position REAL NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX site_spaces_site ON site_spaces (site_id, section_id, position);
CREATE INDEX site_spaces_space ON site_spaces (space_id);
CREATE UNIQUE INDEX site_spaces_unique_space ON site_spaces (site_id, COALESCE(section_id, ''), space_id);
CREATE UNIQUE INDEX site_spaces_unique_path ON site_spaces (site_id, COALESCE(section_id, ''), path);

-- A space transferred to another organization leaves the sites of its old one.
CREATE TRIGGER site_spaces_leave_with_space AFTER UPDATE OF organization_id ON spaces
WHEN NEW.organization_id <> OLD.organization_id
BEGIN
  DELETE FROM site_spaces WHERE space_id = NEW.id;
END;
