-- Change requests and comments (space level and change-request level), and reactions to comments and replies.

CREATE TABLE change_requests (
  id TEXT PRIMARY KEY,
  space_id TEXT NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
  number INTEGER NOT NULL,
  status TEXT NOT NULL DEFAULT 'open',
  subject TEXT,
  agent_task_id TEXT,
  created_by TEXT NOT NULL REFERENCES users (id),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  revision_id TEXT NOT NULL,
  revision_initial TEXT NOT NULL,
  revision_merged_ancestor TEXT,
  revision_merged TEXT,
  UNIQUE (space_id, number)
);
CREATE INDEX change_requests_space ON change_requests (space_id, status, updated_at, id);

-- Users who changed the content of a change request (its creator, and whoever imported into or updated it).
CREATE TABLE change_request_contributors (
  change_request_id TEXT NOT NULL REFERENCES change_requests (id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  PRIMARY KEY (change_request_id, user_id)
);

-- A comment (parent_id NULL) or a reply (parent_id = the comment). change_request_id NULL is a space-level comment.
CREATE TABLE comments (
  id TEXT PRIMARY KEY,
  space_id TEXT NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
  change_request_id TEXT REFERENCES change_requests (id) ON DELETE CASCADE,
  parent_id TEXT REFERENCES comments (id) ON DELETE CASCADE,
  revision_id TEXT,
  page_id TEXT,
  node_id TEXT,
  table_cell TEXT,
  posted_by TEXT NOT NULL REFERENCES users (id),
  posted_at TEXT NOT NULL,
  edited_at TEXT,
  body TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'open',
  resolved_at TEXT,
  resolved_by TEXT REFERENCES users (id)
);
CREATE INDEX comments_space ON comments (space_id, change_request_id, parent_id, posted_at, id);
CREATE INDEX comments_parent ON comments (parent_id, posted_at, id);

CREATE TABLE comment_reactions (
  comment_id TEXT NOT NULL REFERENCES comments (id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  emoji TEXT NOT NULL,
  reacted_at TEXT NOT NULL,
  PRIMARY KEY (comment_id, user_id, emoji)
);
