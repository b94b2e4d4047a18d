-- Git synchronisation: one row per import or export a client started, with its outcome. `spaces.git_sync` (001)
-- holds what the API shows (GitInfo); this table is where a failure is kept.
CREATE TABLE git_operations (
  id TEXT PRIMARY KEY,
  space_id TEXT NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
  -- import | export
  kind TEXT NOT NULL,
  -- queued | running | done | failed
  status TEXT NOT NULL DEFAULT 'queued',
  -- the request body, its url without credentials
  request TEXT NOT NULL,
  -- credentials of the url, encrypted (AES-256-GCM); erased when the operation ends
  credentials TEXT,
  -- who started it (the author of exported commits)
  user_id TEXT,
  -- the commit read (import) or written (export); the revision an import produced
  commit_oid TEXT,
  revision_id TEXT,
  -- what went wrong, in words (never with credentials)
  error TEXT,
  created_at TEXT NOT NULL,
  finished_at TEXT
);
CREATE INDEX git_operations_space ON git_operations (space_id, created_at);
