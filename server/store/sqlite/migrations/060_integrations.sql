-- Integrations (global, owned by an organization), their installations in organizations, and the events an
-- installation receives with the trace of their handling.

-- JSON columns hold the published definition as given. `script` and `secrets` are write-only: no answer shows them.
CREATE TABLE integrations (
  name TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  version INTEGER NOT NULL,
  runtime TEXT NOT NULL DEFAULT 'v1',
  title TEXT NOT NULL,
  description TEXT,
  summary TEXT,
  icon TEXT,
  preview_images TEXT NOT NULL DEFAULT '[]',
  visibility TEXT NOT NULL DEFAULT 'public',
  target TEXT NOT NULL DEFAULT 'all',
  scopes TEXT NOT NULL DEFAULT '[]',
  categories TEXT NOT NULL DEFAULT '[]',
  blocks TEXT NOT NULL DEFAULT '[]',
  content_sources TEXT NOT NULL DEFAULT '[]',
  external_links TEXT NOT NULL DEFAULT '[]',
  configurations TEXT NOT NULL DEFAULT '{}',
  script TEXT,
  secrets TEXT NOT NULL DEFAULT '{}',
  content_security_policy TEXT,
  verified INTEGER NOT NULL DEFAULT 0,
  -- Development mode: events are delivered to dev_tunnel_url while it is set.
  dev_tunnel_url TEXT,
  dev_all INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX integrations_organization ON integrations (organization_id);

CREATE TABLE integration_installations (
  id TEXT PRIMARY KEY,
  integration_name TEXT NOT NULL REFERENCES integrations (name) ON DELETE CASCADE,
  organization_id TEXT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  status TEXT NOT NULL DEFAULT 'active',
  space_selection TEXT NOT NULL DEFAULT 'all',
  site_selection TEXT NOT NULL DEFAULT 'all',
  configuration TEXT NOT NULL DEFAULT '{}',
  external_ids TEXT NOT NULL DEFAULT '[]',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (integration_name, organization_id)
);
CREATE INDEX integration_installations_list ON integration_installations (integration_name, created_at, id);

-- `seq` orders events newest first even when several share a timestamp.
CREATE TABLE integration_events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  integration_name TEXT NOT NULL REFERENCES integrations (name) ON DELETE CASCADE,
  installation_id TEXT NOT NULL REFERENCES integration_installations (id) ON DELETE CASCADE,
  organization_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  payload TEXT NOT NULL,
  status TEXT NOT NULL
);
CREATE INDEX integration_events_list ON integration_events (integration_name, seq);

CREATE TABLE integration_event_logs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id TEXT NOT NULL REFERENCES integration_events (id) ON DELETE CASCADE,
  message TEXT NOT NULL,
  level TEXT NOT NULL,
  timestamp TEXT NOT NULL
);
CREATE INDEX integration_event_logs_event ON integration_event_logs (event_id, seq);
