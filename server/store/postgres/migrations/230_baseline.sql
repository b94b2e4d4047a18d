-- The schema as SQLite's migrations 001 to 230 leave it (sqlite/migrations), written for PostgreSQL in one go: a
-- PostgreSQL database starts here. Later migrations take the same number in both folders, and
-- test/server/store-schema.test.ts checks that both engines end with the same tables, columns, keys and indexes.
--
-- How the types map: TEXT is text COLLATE "C" (SQLite compares and sorts text by its bytes, and so does the "C"
-- collation, whatever the database's locale: lists come in the same order on both engines); INTEGER is bigint, REAL
-- double precision, BLOB bytea. Flags stay integers (0 or 1), as in SQLite. Counters kept by triggers in SQLite are
-- kept by triggers here (PL/pgSQL). Three tables have a `rowid` column, an identity, because the store orders their
-- rows by SQLite's implicit rowid (the order they were written in). The full-text index is PostgreSQL's own (below).

CREATE TABLE meta (
  key text COLLATE "C" PRIMARY KEY,
  value text COLLATE "C" NOT NULL
);

CREATE TABLE users (
  id text COLLATE "C" PRIMARY KEY,
  display_name text COLLATE "C" NOT NULL,
  email text COLLATE "C",
  photo_url text COLLATE "C",
  created_at text COLLATE "C" NOT NULL
);
CREATE UNIQUE INDEX users_email ON users (email) WHERE email IS NOT NULL;

CREATE TABLE tokens (
  hash text COLLATE "C" PRIMARY KEY,
  user_id text COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  label text COLLATE "C",
  created_at text COLLATE "C" NOT NULL
);

CREATE TABLE organizations (
  id text COLLATE "C" PRIMARY KEY,
  title text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  type text COLLATE "C" NOT NULL,
  use_case text COLLATE "C",
  community_type text COLLATE "C",
  hostname text COLLATE "C" UNIQUE,
  default_role text COLLATE "C",
  default_content_site text COLLATE "C",
  sso bigint NOT NULL DEFAULT 0,
  ai bigint NOT NULL DEFAULT 0,
  invite_links bigint NOT NULL DEFAULT 1,
  plan text COLLATE "C" NOT NULL DEFAULT 'free_2024',
  custom_hostname text COLLATE "C",
  logo text COLLATE "C",
  email_domains text COLLATE "C" NOT NULL DEFAULT '[]'
);

CREATE TABLE members (
  organization_id text COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id text COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role text COLLATE "C",
  disabled bigint NOT NULL DEFAULT 0,
  sso bigint NOT NULL DEFAULT 0,
  joined_at text COLLATE "C" NOT NULL,
  last_seen_at text COLLATE "C",
  user_display_name text COLLATE "C" NOT NULL DEFAULT '',
  PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX members_user ON members (user_id);
CREATE INDEX members_joined ON members (organization_id, joined_at, user_id);
CREATE INDEX members_last_seen ON members (organization_id, last_seen_at, user_id) WHERE last_seen_at IS NOT NULL;
CREATE INDEX members_name ON members (organization_id, user_display_name, user_id);

CREATE TABLE invite_links (
  id text COLLATE "C" PRIMARY KEY,
  organization_id text COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  role text COLLATE "C",
  created_at text COLLATE "C" NOT NULL
);

CREATE TABLE teams (
  id text COLLATE "C" PRIMARY KEY,
  organization_id text COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  title text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL
);
CREATE INDEX teams_organization ON teams (organization_id, created_at, id);

CREATE TABLE team_members (
  team_id text COLLATE "C" NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  user_id text COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role text COLLATE "C" NOT NULL DEFAULT 'member',
  PRIMARY KEY (team_id, user_id)
);
CREATE INDEX team_members_user ON team_members (user_id);

CREATE TABLE saml_providers (
  id text COLLATE "C" PRIMARY KEY,
  organization_id text COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  label text COLLATE "C" NOT NULL,
  sso_url text COLLATE "C",
  entity_id text COLLATE "C",
  certificate text COLLATE "C",
  default_team_id text COLLATE "C" REFERENCES teams (id) ON DELETE SET NULL,
  default_role text COLLATE "C",
  created_at text COLLATE "C" NOT NULL
);
CREATE INDEX saml_providers_organization ON saml_providers (organization_id, created_at, id);
CREATE INDEX saml_providers_default_team ON saml_providers (default_team_id) WHERE default_team_id IS NOT NULL;

CREATE TABLE collections (
  id text COLLATE "C" PRIMARY KEY,
  organization_id text COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  parent_id text COLLATE "C" REFERENCES collections (id) ON DELETE CASCADE,
  title text COLLATE "C" NOT NULL,
  description text COLLATE "C",
  default_level text COLLATE "C",
  position double precision NOT NULL,
  created_at text COLLATE "C" NOT NULL
);
CREATE INDEX collections_organization ON collections (organization_id, created_at, id);
CREATE INDEX collections_parent ON collections (parent_id);
CREATE INDEX collections_sibling_position ON collections (organization_id, parent_id, position, id);

CREATE TABLE spaces (
  id text COLLATE "C" PRIMARY KEY,
  organization_id text COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  parent_id text COLLATE "C" REFERENCES collections (id) ON DELETE SET NULL,
  title text COLLATE "C" NOT NULL,
  emoji text COLLATE "C",
  visibility text COLLATE "C" NOT NULL DEFAULT 'private',
  edit_mode text COLLATE "C" NOT NULL DEFAULT 'live',
  language text COLLATE "C",
  default_level text COLLATE "C",
  revision_id text COLLATE "C" NOT NULL,
  share_key text COLLATE "C" NOT NULL,
  git_sync text COLLATE "C",
  visitor_auth text COLLATE "C",
  position double precision NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  deleted_at text COLLATE "C",
  search_revision_id text COLLATE "C",
  unwritten_revision_id text COLLATE "C"
);
CREATE INDEX spaces_organization ON spaces (organization_id, created_at, id);
CREATE INDEX spaces_parent ON spaces (parent_id, position, id) WHERE parent_id IS NOT NULL;
CREATE INDEX spaces_deleted ON spaces (deleted_at) WHERE deleted_at IS NOT NULL;
CREATE INDEX spaces_sibling_position ON spaces (organization_id, parent_id, position, id) WHERE deleted_at IS NULL;

CREATE TABLE team_spaces (
  team_id text COLLATE "C" NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  space_id text COLLATE "C" NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
  PRIMARY KEY (team_id, space_id)
);
CREATE INDEX team_spaces_space ON team_spaces (space_id);

CREATE TABLE revisions (
  id text COLLATE "C" PRIMARY KEY,
  space_id text COLLATE "C" NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
  change_request_id text COLLATE "C",
  parents text COLLATE "C" NOT NULL DEFAULT '[]',
  type text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  content text COLLATE "C" NOT NULL
);
CREATE INDEX revisions_space ON revisions (space_id, created_at);

CREATE TABLE change_requests (
  id text COLLATE "C" PRIMARY KEY,
  space_id text COLLATE "C" NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
  number bigint NOT NULL,
  status text COLLATE "C" NOT NULL DEFAULT 'open',
  subject text COLLATE "C",
  agent_task_id text COLLATE "C",
  created_by text COLLATE "C" NOT NULL REFERENCES users (id),
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  revision_id text COLLATE "C" NOT NULL,
  revision_initial text COLLATE "C" NOT NULL,
  revision_merged_ancestor text COLLATE "C",
  revision_merged text COLLATE "C",
  UNIQUE (space_id, number)
);
CREATE INDEX change_requests_updated ON change_requests (space_id, status, updated_at, number);
CREATE INDEX change_requests_created ON change_requests (space_id, status, created_at, number);

CREATE TABLE change_request_contributors (
  change_request_id text COLLATE "C" NOT NULL REFERENCES change_requests (id) ON DELETE CASCADE,
  user_id text COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  PRIMARY KEY (change_request_id, user_id)
);
CREATE INDEX change_request_contributors_user ON change_request_contributors (user_id, change_request_id);

CREATE TABLE change_request_pdfs (
  id text COLLATE "C" PRIMARY KEY,
  change_request_id text COLLATE "C" NOT NULL REFERENCES change_requests (id) ON DELETE CASCADE,
  file_name text COLLATE "C" NOT NULL,
  content bytea NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  expires_at text COLLATE "C" NOT NULL
);
CREATE INDEX change_request_pdfs_expiry ON change_request_pdfs (expires_at);
CREATE INDEX change_request_pdfs_change_request ON change_request_pdfs (change_request_id);

CREATE TABLE comments (
  id text COLLATE "C" PRIMARY KEY,
  space_id text COLLATE "C" NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
  change_request_id text COLLATE "C" REFERENCES change_requests (id) ON DELETE CASCADE,
  parent_id text COLLATE "C" REFERENCES comments (id) ON DELETE CASCADE,
  revision_id text COLLATE "C",
  page_id text COLLATE "C",
  node_id text COLLATE "C",
  table_cell text COLLATE "C",
  posted_by text COLLATE "C" NOT NULL REFERENCES users (id),
  posted_at text COLLATE "C" NOT NULL,
  edited_at text COLLATE "C",
  body text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL DEFAULT 'open',
  resolved_at text COLLATE "C",
  resolved_by text COLLATE "C" REFERENCES users (id),
  page_digest text COLLATE "C",
  node_preview text COLLATE "C"
);
CREATE INDEX comments_space ON comments (space_id, change_request_id, parent_id, posted_at, id);
CREATE INDEX comments_parent ON comments (parent_id, posted_at, id) WHERE parent_id IS NOT NULL;
CREATE INDEX comments_posted_by ON comments (space_id, change_request_id, posted_by);
CREATE INDEX comments_change_request ON comments (change_request_id, parent_id, status) WHERE change_request_id IS NOT NULL;

CREATE TABLE comment_reactions (
  comment_id text COLLATE "C" NOT NULL REFERENCES comments (id) ON DELETE CASCADE,
  user_id text COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  emoji text COLLATE "C" NOT NULL,
  reacted_at text COLLATE "C" NOT NULL,
  rowid bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (comment_id, user_id, emoji)
);

CREATE TABLE jobs (
  id text COLLATE "C" PRIMARY KEY,
  kind text COLLATE "C" NOT NULL,
  resource text COLLATE "C" NOT NULL,
  order_key text COLLATE "C" NOT NULL,
  payload text COLLATE "C" NOT NULL DEFAULT '{}',
  status text COLLATE "C" NOT NULL DEFAULT 'queued',
  attempts bigint NOT NULL DEFAULT 0,
  error text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  started_at text COLLATE "C",
  finished_at text COLLATE "C",
  owner text COLLATE "C",
  lease_until bigint
);
CREATE INDEX jobs_queue ON jobs (status, resource, order_key, created_at);

CREATE TABLE sites (
  id text COLLATE "C" PRIMARY KEY,
  organization_id text COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  type text COLLATE "C" NOT NULL DEFAULT 'basic',
  title text COLLATE "C" NOT NULL,
  visibility text COLLATE "C" NOT NULL DEFAULT 'public',
  basename text COLLATE "C",
  proxy text COLLATE "C",
  agents_context text COLLATE "C" NOT NULL DEFAULT 'included',
  adaptive_content bigint NOT NULL DEFAULT 0,
  adaptive_schema text COLLATE "C" NOT NULL,
  adaptive_schema_updated_at text COLLATE "C",
  share_key text COLLATE "C" NOT NULL,
  default_section_id text COLLATE "C",
  default_site_space_id text COLLATE "C",
  created_at text COLLATE "C" NOT NULL
);
CREATE INDEX sites_organization ON sites (organization_id, created_at, id);
CREATE INDEX sites_proxy ON sites (proxy) WHERE proxy IS NOT NULL;

CREATE TABLE site_section_groups (
  id text COLLATE "C" PRIMARY KEY,
  site_id text COLLATE "C" NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
  title text COLLATE "C" NOT NULL,
  icon text COLLATE "C",
  position double precision NOT NULL,
  created_at text COLLATE "C" NOT NULL
);
CREATE INDEX site_section_groups_site ON site_section_groups (site_id, position);

CREATE TABLE site_sections (
  id text COLLATE "C" PRIMARY KEY,
  site_id text COLLATE "C" NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
  group_id text COLLATE "C" REFERENCES site_section_groups (id) ON DELETE SET NULL,
  title text COLLATE "C" NOT NULL,
  path text COLLATE "C" NOT NULL,
  description text COLLATE "C",
  condition text COLLATE "C",
  icon text COLLATE "C",
  default_site_space_id text COLLATE "C",
  position double precision NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  UNIQUE (site_id, path)
);
CREATE INDEX site_sections_site ON site_sections (site_id, position);
CREATE INDEX site_sections_group ON site_sections (group_id) WHERE group_id IS NOT NULL;

CREATE TABLE site_spaces (
  id text COLLATE "C" PRIMARY KEY,
  site_id text COLLATE "C" NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
  section_id text COLLATE "C" REFERENCES site_sections (id) ON DELETE CASCADE,
  space_id text COLLATE "C" NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
  path text COLLATE "C" NOT NULL,
  condition text COLLATE "C",
  position double precision NOT NULL,
  created_at text COLLATE "C" NOT NULL
);
CREATE INDEX site_spaces_site ON site_spaces (site_id, section_id, position);
CREATE INDEX site_spaces_space ON site_spaces (space_id);
CREATE INDEX site_spaces_section ON site_spaces (section_id) WHERE section_id IS NOT NULL;
CREATE UNIQUE INDEX site_spaces_unique_space ON site_spaces (site_id, COALESCE(section_id, ''), space_id);
CREATE UNIQUE INDEX site_spaces_unique_path ON site_spaces (site_id, COALESCE(section_id, ''), path);

CREATE TABLE file_blobs (
  sha256 text COLLATE "C" PRIMARY KEY,
  size bigint NOT NULL,
  bytes bytea NOT NULL,
  created_at text COLLATE "C" NOT NULL
);

CREATE TABLE file_contents (
  file_id text COLLATE "C" PRIMARY KEY,
  sha256 text COLLATE "C" NOT NULL REFERENCES file_blobs (sha256),
  content_type text COLLATE "C" NOT NULL
);

CREATE TABLE content_link_index (
  revision_id text COLLATE "C" PRIMARY KEY REFERENCES revisions (id) ON DELETE CASCADE,
  app_url text COLLATE "C" NOT NULL,
  indexed_at text COLLATE "C" NOT NULL,
  broken bigint NOT NULL DEFAULT 0
);

CREATE TABLE content_links (
  revision_id text COLLATE "C" NOT NULL REFERENCES content_link_index (revision_id) ON DELETE CASCADE,
  page_id text COLLATE "C" NOT NULL,
  position bigint NOT NULL,
  href text COLLATE "C" NOT NULL,
  relation text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL,
  target_kind text COLLATE "C" NOT NULL,
  target_id text COLLATE "C",
  target_url text COLLATE "C",
  rowid bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (revision_id, page_id, position)
);
CREATE INDEX content_links_target ON content_links (revision_id, target_kind, target_id);

CREATE TABLE openapi_specs (
  id text COLLATE "C" PRIMARY KEY,
  organization_id text COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  slug text COLLATE "C" NOT NULL,
  source_url text COLLATE "C",
  visibility text COLLATE "C" NOT NULL DEFAULT 'private',
  processing_state text COLLATE "C" NOT NULL DEFAULT 'pending',
  last_version_id text COLLATE "C",
  last_processed_at text COLLATE "C",
  last_process_error_code text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  UNIQUE (organization_id, slug)
);
CREATE INDEX openapi_specs_organization ON openapi_specs (organization_id, created_at, id);

CREATE TABLE openapi_spec_versions (
  id text COLLATE "C" PRIMARY KEY,
  spec_id text COLLATE "C" NOT NULL REFERENCES openapi_specs (id) ON DELETE CASCADE,
  number bigint NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  file_name text COLLATE "C" NOT NULL,
  content_type text COLLATE "C" NOT NULL,
  text text COLLATE "C" NOT NULL,
  document text COLLATE "C" NOT NULL,
  UNIQUE (spec_id, number)
);

CREATE TABLE translations (
  id text COLLATE "C" PRIMARY KEY,
  organization_id text COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  language text COLLATE "C" NOT NULL,
  source_space_id text COLLATE "C",
  source_language text COLLATE "C",
  instructions text COLLATE "C",
  status text COLLATE "C" NOT NULL DEFAULT 'pending',
  result_space_id text COLLATE "C" REFERENCES spaces (id) ON DELETE SET NULL,
  result_revision_id text COLLATE "C",
  runs bigint NOT NULL DEFAULT 0,
  total_words bigint NOT NULL DEFAULT 0,
  total_pages bigint NOT NULL DEFAULT 0,
  total_duration bigint NOT NULL DEFAULT 0,
  latest_run_duration bigint,
  latest_pages bigint,
  latest_words bigint,
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL
);
CREATE INDEX translations_organization ON translations (organization_id, created_at, id);
CREATE INDEX translations_result_space ON translations (result_space_id);

CREATE TABLE integrations (
  name text COLLATE "C" PRIMARY KEY,
  organization_id text COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  version bigint NOT NULL,
  runtime text COLLATE "C" NOT NULL DEFAULT 'v1',
  title text COLLATE "C" NOT NULL,
  description text COLLATE "C",
  summary text COLLATE "C",
  icon text COLLATE "C",
  preview_images text COLLATE "C" NOT NULL DEFAULT '[]',
  visibility text COLLATE "C" NOT NULL DEFAULT 'public',
  target text COLLATE "C" NOT NULL DEFAULT 'all',
  scopes text COLLATE "C" NOT NULL DEFAULT '[]',
  categories text COLLATE "C" NOT NULL DEFAULT '[]',
  blocks text COLLATE "C" NOT NULL DEFAULT '[]',
  content_sources text COLLATE "C" NOT NULL DEFAULT '[]',
  external_links text COLLATE "C" NOT NULL DEFAULT '[]',
  configurations text COLLATE "C" NOT NULL DEFAULT '{}',
  script text COLLATE "C",
  secrets text COLLATE "C" NOT NULL DEFAULT '{}',
  content_security_policy text COLLATE "C",
  verified bigint NOT NULL DEFAULT 0,
  dev_tunnel_url text COLLATE "C",
  dev_all bigint NOT NULL DEFAULT 0,
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL
);
CREATE INDEX integrations_organization ON integrations (organization_id);

CREATE TABLE integration_installations (
  id text COLLATE "C" PRIMARY KEY,
  integration_name text COLLATE "C" NOT NULL REFERENCES integrations (name) ON DELETE CASCADE,
  organization_id text COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  status text COLLATE "C" NOT NULL DEFAULT 'active',
  space_selection text COLLATE "C" NOT NULL DEFAULT 'all',
  site_selection text COLLATE "C" NOT NULL DEFAULT 'all',
  configuration text COLLATE "C" NOT NULL DEFAULT '{}',
  external_ids text COLLATE "C" NOT NULL DEFAULT '[]',
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  UNIQUE (integration_name, organization_id)
);
CREATE INDEX integration_installations_list ON integration_installations (integration_name, created_at, id);

CREATE TABLE integration_events (
  seq bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  id text COLLATE "C" NOT NULL UNIQUE,
  integration_name text COLLATE "C" NOT NULL REFERENCES integrations (name) ON DELETE CASCADE,
  installation_id text COLLATE "C" NOT NULL REFERENCES integration_installations (id) ON DELETE CASCADE,
  organization_id text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  payload text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL
);
CREATE INDEX integration_events_list ON integration_events (integration_name, seq);
CREATE INDEX integration_events_installation ON integration_events (installation_id);

CREATE TABLE integration_event_logs (
  seq bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  event_id text COLLATE "C" NOT NULL REFERENCES integration_events (id) ON DELETE CASCADE,
  message text COLLATE "C" NOT NULL,
  level text COLLATE "C" NOT NULL,
  timestamp text COLLATE "C" NOT NULL
);
CREATE INDEX integration_event_logs_event ON integration_event_logs (event_id, seq);

CREATE TABLE git_operations (
  id text COLLATE "C" PRIMARY KEY,
  space_id text COLLATE "C" NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
  kind text COLLATE "C" NOT NULL,
  status text COLLATE "C" NOT NULL DEFAULT 'queued',
  request text COLLATE "C" NOT NULL,
  credentials text COLLATE "C",
  user_id text COLLATE "C",
  commit_oid text COLLATE "C",
  revision_id text COLLATE "C",
  error text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  finished_at text COLLATE "C",
  rowid bigint GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX git_operations_space ON git_operations (space_id, created_at);

-- Counters of each space: open comments of the space itself (not replies, not on change requests) and its change
-- requests by status, kept by the triggers below whatever code (or cascade) writes the rows.
CREATE TABLE space_counters (
  space_id text COLLATE "C" PRIMARY KEY,
  comments bigint NOT NULL DEFAULT 0,
  change_requests bigint NOT NULL DEFAULT 0,
  change_requests_open bigint NOT NULL DEFAULT 0,
  change_requests_draft bigint NOT NULL DEFAULT 0
);

-- Live (not deleted) spaces of each organization, kept by triggers.
CREATE TABLE organization_space_counts (
  organization_id text COLLATE "C" PRIMARY KEY,
  live_spaces bigint NOT NULL DEFAULT 0
);

-- The organizations of an email domain, kept by triggers from organizations.email_domains (a JSON array of strings).
CREATE TABLE organization_email_domains (
  domain text COLLATE "C" NOT NULL,
  organization_id text COLLATE "C" NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  PRIMARY KEY (domain, organization_id)
);
CREATE INDEX organization_email_domains_organization ON organization_email_domains (organization_id);

-- The full-text index of the current content of every space: one row per section (the text under a heading) of every
-- page. `words` holds the section's title and text folded as postgres/specific.ts folds them (lower case, without
-- diacritics), as the 'simple' configuration reads them: every word as written, no stemming, as SQLite's FTS5
-- index matches them.
CREATE TABLE content_search (
  rowid bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  space_id text COLLATE "C" NOT NULL,
  page_id text COLLATE "C" NOT NULL,
  page_path text COLLATE "C" NOT NULL,
  page_title text COLLATE "C" NOT NULL,
  section_id text COLLATE "C" NOT NULL,
  title text COLLATE "C" NOT NULL,
  body text COLLATE "C" NOT NULL,
  words tsvector NOT NULL
);
CREATE INDEX content_search_words ON content_search USING gin (words);
CREATE INDEX content_search_page ON content_search (space_id, page_id);

-- Triggers: the same counters and copies as SQLite's (migrations 010, 100, 110, 140, 160 there).
--
-- The counters are kept by statement-level triggers over the statement's transition tables (old_rows, new_rows): one
-- UPDATE per counter row and statement. A row-level trigger updated the same counter row once per changed row, and
-- PostgreSQL follows the chain of a row's versions written by its own transaction at each update: transferring or
-- deleting 33 000 spaces took minutes. A statement-level UPDATE trigger cannot name columns, so the UPDATE triggers
-- compare old and new rows themselves.

-- Adds each group's `n` to its counter row, creating rows for positive counts only (a count leaving a row that does
-- not exist, such as an organization's being deleted, has nothing to leave).

CREATE FUNCTION space_counters_comments() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE space_counters AS c SET comments = c.comments - d.n
    FROM (SELECT space_id, count(*) AS n FROM old_rows
          WHERE change_request_id IS NULL AND parent_id IS NULL AND status = 'open' GROUP BY space_id) AS d
    WHERE c.space_id = d.space_id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO space_counters AS c (space_id, comments)
    SELECT space_id, count(*) FROM new_rows
    WHERE change_request_id IS NULL AND parent_id IS NULL AND status = 'open' GROUP BY space_id
    ON CONFLICT (space_id) DO UPDATE SET comments = c.comments + EXCLUDED.comments;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER space_counters_comment_added AFTER INSERT ON comments
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION space_counters_comments();
CREATE TRIGGER space_counters_comment_removed AFTER DELETE ON comments
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION space_counters_comments();
CREATE TRIGGER space_counters_comment_changed AFTER UPDATE ON comments
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION space_counters_comments();

CREATE FUNCTION space_counters_change_requests() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE space_counters AS c SET
      change_requests = c.change_requests - d.n,
      change_requests_open = c.change_requests_open - d.open,
      change_requests_draft = c.change_requests_draft - d.draft
    FROM (SELECT space_id, count(*) AS n, count(*) FILTER (WHERE status = 'open') AS open,
                 count(*) FILTER (WHERE status = 'draft') AS draft
          FROM old_rows GROUP BY space_id) AS d
    WHERE c.space_id = d.space_id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO space_counters AS c (space_id, change_requests, change_requests_open, change_requests_draft)
    SELECT space_id, count(*), count(*) FILTER (WHERE status = 'open'), count(*) FILTER (WHERE status = 'draft')
    FROM new_rows GROUP BY space_id
    ON CONFLICT (space_id) DO UPDATE SET
      change_requests = c.change_requests + EXCLUDED.change_requests,
      change_requests_open = c.change_requests_open + EXCLUDED.change_requests_open,
      change_requests_draft = c.change_requests_draft + EXCLUDED.change_requests_draft;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER space_counters_change_request_added AFTER INSERT ON change_requests
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION space_counters_change_requests();
CREATE TRIGGER space_counters_change_request_removed AFTER DELETE ON change_requests
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION space_counters_change_requests();
CREATE TRIGGER space_counters_change_request_changed AFTER UPDATE ON change_requests
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION space_counters_change_requests();

CREATE FUNCTION space_counters_space_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM space_counters WHERE space_id IN (SELECT id FROM old_rows);
  RETURN NULL;
END $$;
CREATE TRIGGER space_counters_space_removed AFTER DELETE ON spaces
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION space_counters_space_removed();

CREATE FUNCTION organization_space_counts_spaces() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    -- The net change of each organization's count: most updates of a space change neither its organization nor its
    -- deletion, and leave every count as it was (no row is written). No join of the transition tables, which have no
    -- index.
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
  ELSIF TG_OP = 'DELETE' THEN
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
CREATE TRIGGER organization_space_counts_added AFTER INSERT ON spaces
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION organization_space_counts_spaces();
CREATE TRIGGER organization_space_counts_removed AFTER DELETE ON spaces
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION organization_space_counts_spaces();
CREATE TRIGGER organization_space_counts_changed AFTER UPDATE ON spaces
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION organization_space_counts_spaces();

CREATE FUNCTION organization_space_counts_organization_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM organization_space_counts WHERE organization_id = OLD.id;
  RETURN NULL;
END $$;
CREATE TRIGGER organization_space_counts_organization_removed AFTER DELETE ON organizations
  FOR EACH ROW EXECUTE FUNCTION organization_space_counts_organization_removed();

-- A space transferred to another organization leaves the sites of its old one.
CREATE FUNCTION site_spaces_leave_with_space() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A site holds spaces of its own organization only: those now in another leave it.
  DELETE FROM site_spaces AS s USING new_rows AS r, sites AS t
  WHERE s.space_id = r.id AND t.id = s.site_id AND t.organization_id <> r.organization_id;
  RETURN NULL;
END $$;
CREATE TRIGGER site_spaces_leave_with_space AFTER UPDATE ON spaces
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION site_spaces_leave_with_space();

CREATE FUNCTION organization_email_domains_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    DELETE FROM organization_email_domains WHERE organization_id = OLD.id;
  END IF;
  INSERT INTO organization_email_domains (domain, organization_id)
  SELECT element #>> '{}', NEW.id FROM jsonb_array_elements(NEW.email_domains::jsonb) AS element
  WHERE jsonb_typeof(element) = 'string'
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
CREATE TRIGGER organization_email_domains_added AFTER INSERT ON organizations
  FOR EACH ROW EXECUTE FUNCTION organization_email_domains_kept();
CREATE TRIGGER organization_email_domains_changed AFTER UPDATE OF email_domains ON organizations
  FOR EACH ROW EXECUTE FUNCTION organization_email_domains_kept();

-- Each member carries its user's display name (members sorted by name read an index of the members alone).
CREATE FUNCTION members_user_display_name_set() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.user_display_name := (SELECT display_name FROM users WHERE users.id = NEW.user_id);
  RETURN NEW;
END $$;
CREATE TRIGGER members_user_display_name_added BEFORE INSERT ON members
  FOR EACH ROW EXECUTE FUNCTION members_user_display_name_set();
CREATE TRIGGER members_user_display_name_moved BEFORE UPDATE OF user_id ON members
  FOR EACH ROW EXECUTE FUNCTION members_user_display_name_set();

CREATE FUNCTION members_user_display_name_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE members SET user_display_name = NEW.display_name WHERE user_id = NEW.id;
  RETURN NULL;
END $$;
CREATE TRIGGER members_user_display_name_changed AFTER UPDATE OF display_name ON users
  FOR EACH ROW EXECUTE FUNCTION members_user_display_name_changed();
