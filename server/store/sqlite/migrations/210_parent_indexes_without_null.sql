-- Two indexes by parent held an entry for every row without one, which nothing reads: each create of a top-level
-- space or of a comment wrote one more B-tree for it.
--
-- comments_parent serves replies only: a reply's lookups, lists and counts name its comment (`parent_id = ?` or
-- `IN (...)`), and so does the cascade that deletes a comment's replies; comments (parent_id NULL) are listed
-- through comments_space. About 3 of the 26 µs of CPU a posted comment spends in SQLite.
--
-- spaces_parent serves a collection's spaces (`parent_id = ?`, `IN subtree`) and the foreign key's SET NULL when a
-- collection is deleted; spaces at the top level (parent_id NULL) are ordered and listed through
-- spaces_sibling_position and spaces_organization.
--
-- SQLite uses an index `WHERE parent_id IS NOT NULL` for any `parent_id = ?` or `parent_id IN (...)`, which never
-- match NULL; the conformance test's plan check would show a query left without it (a SCAN).
DROP INDEX comments_parent;
CREATE INDEX comments_parent ON comments (parent_id, posted_at, id) WHERE parent_id IS NOT NULL;
DROP INDEX spaces_parent;
CREATE INDEX spaces_parent ON spaces (parent_id, position, id) WHERE parent_id IS NOT NULL;
