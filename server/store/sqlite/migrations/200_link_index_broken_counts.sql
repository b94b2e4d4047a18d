-- A revision's number of distinct broken links, kept with its link index. A space's links show how many broken
-- links its open and draft change requests hold, summed over them; that count read every link of every such
-- change request's revision on each request: 35 ms with 50 open change requests in a space of 4 900 pages, and
-- growing with both. A revision's links never change once indexed (for an app address), so its count is made when
-- it is indexed (content/links.ts) and the sum reads one row a change request.
-- Distinct as the API groups links (groupLinks): by status, relation, target kind and target.
ALTER TABLE content_link_index ADD COLUMN broken INTEGER NOT NULL DEFAULT 0;
UPDATE content_link_index
SET broken = (
  SELECT COUNT(DISTINCT content_links.relation || char(0) || content_links.target_kind || char(0) ||
    COALESCE(content_links.target_id, content_links.target_url, ''))
  FROM content_links
  WHERE content_links.revision_id = content_link_index.revision_id AND content_links.status = 'broken'
);
