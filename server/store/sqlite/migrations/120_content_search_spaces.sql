-- Which rows of the full-text index (content_search) hold the sections of each space. FTS5 keeps `space_id`
-- UNINDEXED, so removing a space's rows, which every change of a space's content does before indexing it again (and
-- creating a space, moving, deleting or purging one), read every row of the index: 3 ms at 12 000 sections, 28 ms at
-- 100 000, on every such write, however small the space. The rows of a space are now found here, by an index, and
-- removed by rowid. content/search.ts is the only writer of both tables and keeps them together.
CREATE TABLE content_search_spaces (
  search_rowid INTEGER PRIMARY KEY,
  space_id TEXT NOT NULL
);
CREATE INDEX content_search_spaces_space ON content_search_spaces (space_id);

INSERT INTO content_search_spaces (search_rowid, space_id) SELECT rowid, space_id FROM content_search;
