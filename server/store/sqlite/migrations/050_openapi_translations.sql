-- OpenAPI specifications and their processed versions; translations of spaces and the statistics of their runs.

CREATE TABLE openapi_specs (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  slug TEXT NOT NULL,
  -- The address the source is fetched from; NULL when the source is text (the text travels in the job's payload).
  source_url TEXT,
  visibility TEXT NOT NULL DEFAULT 'private',
  processing_state TEXT NOT NULL DEFAULT 'pending',
  last_version_id TEXT,
  last_processed_at TEXT,
  last_process_error_code TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (organization_id, slug)
);
CREATE INDEX openapi_specs_organization ON openapi_specs (organization_id, created_at, id);

-- One row per successful processing. `number` orders the versions of a spec (1, 2, ...); `text` is the source
-- exactly as fetched or given (served at the version's url), `document` the JSON of the parsed document.
CREATE TABLE openapi_spec_versions (
  id TEXT PRIMARY KEY,
  spec_id TEXT NOT NULL REFERENCES openapi_specs (id) ON DELETE CASCADE,
  number INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  file_name TEXT NOT NULL,
  content_type TEXT NOT NULL,
  text TEXT NOT NULL,
  document TEXT NOT NULL,
  UNIQUE (spec_id, number)
);

-- source_space_id keeps the id as written even if that space is later purged (runs then fail); the result space
-- is forgotten when it is purged, and the next run creates a new one.
CREATE TABLE translations (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  language TEXT NOT NULL,
  source_space_id TEXT,
  source_language TEXT,
  instructions TEXT,
  status TEXT NOT NULL DEFAULT 'pending',
  result_space_id TEXT REFERENCES spaces (id) ON DELETE SET NULL,
  result_revision_id TEXT,
  runs INTEGER NOT NULL DEFAULT 0,
  total_words INTEGER NOT NULL DEFAULT 0,
  total_pages INTEGER NOT NULL DEFAULT 0,
  total_duration INTEGER NOT NULL DEFAULT 0,
  latest_run_duration INTEGER,
  latest_pages INTEGER,
  latest_words INTEGER,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX translations_organization ON translations (organization_id, created_at, id);
CREATE INDEX translations_result_space ON translations (result_space_id);
