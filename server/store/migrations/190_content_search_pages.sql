-- The full-text index of a space follows its content page by page. Every change of a space's current revision (an
-- import, a template, a merge, a Git sync) removed all of the space's rows and indexed every page again: about 30
-- of the 37 ms of applying a template in a space of 1 000 pages of 2 KB. Each row is now recorded with its page, and
-- content_search_revisions names the revision a space's rows were made from, so that a new revision indexes again
-- only the pages that differ from it (content/search.ts). A space without one (every space before this migration, a
-- deleted one) is indexed whole the next time, and named from then on.
ALTER TABLE content_search_spaces ADD COLUMN page_id TEXT;
UPDATE content_search_spaces
SET page_id = (SELECT page_id FROM content_search WHERE content_search.rowid = content_search_spaces.search_rowid);
-- A space's rows, and one page's: (space_id) alone is its prefix.
DROP INDEX content_search_spaces_space;
CREATE INDEX content_search_spaces_page ON content_search_spaces (space_id, page_id);

CREATE TABLE content_search_revisions (
  space_id TEXT PRIMARY KEY REFERENCES spaces (id) ON DELETE CASCADE,
  revision_id TEXT NOT NULL
);
