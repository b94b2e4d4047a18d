-- The full-text index of a space follows its content page by page. Every change of a space's current revision (an
-- import, a template, a merge, a Git sync) removed all of the space's rows and indexed every page again: about 30
-- of the 37 ms of applying a template in a space of 1 000 pages of 2 KB. Each row is now recorded with its page, and
-- spaces.search_revision_id names the revision the space's rows were made from, so that a new revision indexes again
-- only the pages that differ from it (content/search.ts). A space without one (every space before this migration, a
-- deleted one) is indexed whole the next time, and named from then on. A column of the space rather than a table
-- of its own: a create writes the space's row anyway, where a table's row cost every create another page (about
-- 14% of POST a space).
ALTER TABLE content_search_spaces ADD COLUMN page_id TEXT;
UPDATE content_search_spaces
SET page_id = (SELECT page_id FROM content_search WHERE content_search.rowid = content_search_spaces.search_rowid);
-- A space's rows, and one page's: (space_id) alone is its prefix.
DROP INDEX content_search_spaces_space;
CREATE INDEX content_search_spaces_page ON content_search_spaces (space_id, page_id);

ALTER TABLE spaces ADD COLUMN search_revision_id TEXT;
