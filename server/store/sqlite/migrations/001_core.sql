-- Core: users and their tokens, organizations and memberships, teams, SAML, collections, spaces, revisions and
-- the full-text index of page content.

CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE users (
  id TEXT PRIMARY KEY,
  display_name TEXT NOT NULL,
  email TEXT,
  photo_url TEXT,
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX users_email ON users (email) WHERE email IS NOT NULL;

-- Access tokens, stored as SHA-256 hashes only.
CREATE TABLE tokens (
  hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  label TEXT,
  created_at TEXT NOT NULL
);

CREATE TABLE organizations (
  id TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  created_at TEXT NOT NULL,
  type TEXT NOT NULL,
  use_case TEXT,
  community_type TEXT,
  hostname TEXT UNIQUE,
  default_role TEXT,
  default_content_site TEXT,
  sso INTEGER NOT NULL DEFAULT 0,
  ai INTEGER NOT NULL DEFAULT 0,
  invite_links INTEGER NOT NULL DEFAULT 1,
  plan TEXT NOT NULL DEFAULT 'free_2024',
  custom_hostname TEXT,
  logo TEXT,
  email_domains TEXT NOT NULL DEFAULT '[]'
);

-- role NULL is a guest.
CREATE TABLE members (
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role TEXT,
  disabled INTEGER NOT NULL DEFAULT 0,
  sso INTEGER NOT NULL DEFAULT 0,
  joined_at TEXT NOT NULL,
  last_seen_at TEXT,
  PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX members_user ON members (user_id);
CREATE INDEX members_joined ON members (organization_id, joined_at, user_id);

CREATE TABLE invite_links (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  role TEXT,
  created_at TEXT NOT NULL
);

CREATE TABLE teams (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX teams_organization ON teams (organization_id, created_at, id);

CREATE TABLE team_members (
  team_id TEXT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role TEXT NOT NULL DEFAULT 'member',
  PRIMARY KEY (team_id, user_id)
);
CREATE INDEX team_members_user ON team_members (user_id);

CREATE TABLE saml_providers (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  label TEXT NOT NULL,
  sso_url TEXT,
  entity_id TEXT,
  certificate TEXT,
  default_team_id TEXT REFERENCES teams (id) ON DELETE SET NULL,
  default_role TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX saml_providers_organization ON saml_providers (organization_id, created_at, id);

-- Collections and spaces share one ordering among siblings (same parent, or the organization's top level).
CREATE TABLE collections (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  parent_id TEXT REFERENCES collections (id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  description TEXT,
  default_level TEXT,
  position REAL NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX collections_organization ON collections (organization_id, created_at, id);
CREATE INDEX collections_parent ON collections (parent_id);

CREATE TABLE spaces (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  parent_id TEXT REFERENCES collections (id) ON DELETE SET NULL,
  title TEXT NOT NULL,
  emoji TEXT,
  visibility TEXT NOT NULL DEFAULT 'private',
  edit_mode TEXT NOT NULL DEFAULT 'live',
  language TEXT,
  default_level TEXT,
  revision_id TEXT NOT NULL,
  share_key TEXT NOT NULL,
  git_sync TEXT,
  visitor_auth TEXT,
  position REAL NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE INDEX spaces_organization ON spaces (organization_id, created_at, id);
CREATE INDEX spaces_parent ON spaces (parent_id);
CREATE INDEX spaces_deleted ON spaces (deleted_at) WHERE deleted_at IS NOT NULL;

-- Spaces a team can access (seeded; no operation grants them).
CREATE TABLE team_spaces (
  team_id TEXT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  space_id TEXT NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
  PRIMARY KEY (team_id, space_id)
);

-- Immutable snapshots of content. `content` is the JSON of server/content/model.ts's RevisionContent.
CREATE TABLE revisions (
  id TEXT PRIMARY KEY,
  space_id TEXT NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
  change_request_id TEXT,
  parents TEXT NOT NULL DEFAULT '[]',
  type TEXT NOT NULL,
  created_at TEXT NOT NULL,
  content TEXT NOT NULL
);
CREATE INDEX revisions_space ON revisions (space_id, created_at);

-- Full-text index of the current content of every space: one row per section (the text under a heading) of
-- every page. Rebuilt for a space whenever its current revision changes.
CREATE VIRTUAL TABLE content_search USING fts5 (
  title,
  body,
  page_title UNINDEXED,
  space_id UNINDEXED,
  page_id UNINDEXED,
  page_path UNINDEXED,
  section_id UNINDEXED,
  tokenize = 'unicode61 remove_diacritics 2'
);
