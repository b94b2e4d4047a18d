-- Change requests: lists by creation date and by contributor, and the PDFs generated from their content.

CREATE INDEX change_requests_created ON change_requests (space_id, status, created_at, id);
CREATE INDEX change_request_contributors_user ON change_request_contributors (user_id, change_request_id);

-- A generated PDF, served at its own address until expires_at, then removed.
CREATE TABLE change_request_pdfs (
  id TEXT PRIMARY KEY,
  change_request_id TEXT NOT NULL REFERENCES change_requests (id) ON DELETE CASCADE,
  file_name TEXT NOT NULL,
  content BLOB NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX change_request_pdfs_expiry ON change_request_pdfs (expires_at);
