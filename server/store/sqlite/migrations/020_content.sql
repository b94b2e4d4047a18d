-- Content: the bytes of files, and the link index of revisions.

-- File contents, stored once per distinct content (SHA-256 of the bytes).
CREATE TABLE file_blobs (
  sha256 TEXT PRIMARY KEY,
  size INTEGER NOT NULL,
  bytes BLOB NOT NULL,
  created_at TEXT NOT NULL
);

-- The content of each file of a revision, by file id. A file keeps its id (and so its content) in every revision
-- that carries it, including copies of a space.
CREATE TABLE file_contents (
  file_id TEXT PRIMARY KEY,
  sha256 TEXT NOT NULL REFERENCES file_blobs (sha256),
  content_type TEXT NOT NULL
);

-- The links found in the pages of a revision, computed once per revision (revisions are immutable) when first
-- needed. `content_link_index` marks the revisions whose links are indexed, and the app address used to classify
-- in-app links (a change of APP_URL reindexes).
CREATE TABLE content_link_index (
  revision_id TEXT PRIMARY KEY REFERENCES revisions (id) ON DELETE CASCADE,
  app_url TEXT NOT NULL,
  indexed_at TEXT NOT NULL
);

CREATE TABLE content_links (
  revision_id TEXT NOT NULL REFERENCES content_link_index (revision_id) ON DELETE CASCADE,
  -- the page the link appears in, and the link's rank in that page's content
  page_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  -- the address as written
  href TEXT NOT NULL,
  -- reference (a link) or embed (an image)
  relation TEXT NOT NULL,
  -- ok, broken or in-app
  status TEXT NOT NULL,
  -- page, file or url
  target_kind TEXT NOT NULL,
  -- id of the target page or file, when it exists in the revision
  target_id TEXT,
  -- the absolute address of a url target; the address as written for a broken one
  target_url TEXT,
  PRIMARY KEY (revision_id, page_id, position)
);
CREATE INDEX content_links_target ON content_links (revision_id, target_kind, target_id);
