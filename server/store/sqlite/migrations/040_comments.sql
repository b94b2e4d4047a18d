-- Comments: what a comment was posted on, kept so that reading a comment does not parse old revisions.
-- page_digest: SHA-256 of the page's title and content in the revision the comment was posted on (`outdated`).
-- node_preview: text of the node the comment was posted on.
ALTER TABLE comments ADD COLUMN page_digest TEXT;
ALTER TABLE comments ADD COLUMN node_preview TEXT;
CREATE INDEX comments_posted_by ON comments (space_id, change_request_id, posted_by);
