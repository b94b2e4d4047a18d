// The link index of revisions: every link and image of every page of a revision, resolved and classified
// (content/links.ts), in `content_links`, ordered as written (`rowid`); `content_link_index` marks the revisions whose
// links are indexed, the app address used to classify them, and how many distinct broken links they hold.
import { type Insertable, type Selectable, sql } from 'kysely';
import { columns, type Db } from './db.ts';
import type { Camelized, ContentLinksTable } from './schema.ts';

/** A link of a revision's index, without the revision's id. */
export type LinkRecord = Camelized<Omit<Selectable<ContentLinksTable>, 'revision_id'>>;

/** The app address a revision's links were indexed for (undefined: not indexed). */
export async function indexedFor(db: Db, revisionId: string): Promise<string | undefined> {
  return (await db.first(db.q.selectFrom('content_link_index').select('app_url').where('revision_id', '=', revisionId)))?.appUrl;
}

/** The links of a revision as written in its pages (page, href, relation), by page and position. */
export function written(db: Db, revisionId: string): Promise<{ pageId: string; href: string; relation: string }[]> {
  return db.all(
    db.q.selectFrom('content_links').select(['page_id', 'href', 'relation']).where('revision_id', '=', revisionId).orderBy('page_id').orderBy('position'),
  );
}

/** The indexed revisions among the ancestors of a revision with `parents`, nearest first (at most 3), `depth` generations back. */
export async function indexedAncestors(db: Db, parents: readonly string[], depth: number): Promise<string[]> {
  const rows = await db.all(
    sql<{ id: string }>`WITH RECURSIVE ancestors (id, depth) AS (
       SELECT start.value, 1 FROM ${db.specific.strings(parents, 'start')}
       UNION
       SELECT parent.value, ancestors.depth + 1
       FROM ancestors JOIN revisions ON revisions.id = ancestors.id, ${db.specific.jsonStrings('revisions.parents', 'parent')}
       WHERE ancestors.depth < ${depth} AND NOT EXISTS (SELECT 1 FROM content_link_index WHERE revision_id = ancestors.id)
     )
     SELECT ancestors.id FROM ancestors JOIN content_link_index ON content_link_index.revision_id = ancestors.id
     GROUP BY ancestors.id ORDER BY min(ancestors.depth) LIMIT 3`,
  );
  return rows.map((row) => row.id);
}

/** Replaces the index of a revision with these links, classified for `appUrl`. */
export async function replace(
  db: Db,
  index: { revisionId: string; appUrl: string; indexedAt: string; broken: number },
  links: readonly (LinkRecord & { revisionId: string })[],
): Promise<void> {
  await db.send(db.q.deleteFrom('content_link_index').where('revision_id', '=', index.revisionId));
  await db.send(
    db.q.insertInto('content_link_index').values({ revision_id: index.revisionId, app_url: index.appUrl, indexed_at: index.indexedAt, broken: index.broken }),
  );
  // In batches: a statement binds a bounded number of parameters (9 a link).
  for (let start = 0; start < links.length; start += 500) {
    const batch = links.slice(start, start + 500).map((link) => columns<Insertable<ContentLinksTable>>(link));
    await db.send(db.q.insertInto('content_links').values(batch));
  }
}

/** The indexed links of a revision (of one page, when given), in the order they were written. */
export function ofRevision(db: Db, revisionId: string, pageId?: string): Promise<LinkRecord[]> {
  let query = db.q
    .selectFrom('content_links')
    .select(['page_id', 'position', 'href', 'relation', 'status', 'target_kind', 'target_id', 'target_url'])
    .where('revision_id', '=', revisionId);
  if (pageId !== undefined) query = query.where('page_id', '=', pageId);
  return db.all(query.orderBy(sql`rowid`));
}

/**
 * Ids of the pages with a link to a page or file of the revision, in the order of their first such link. Grouped by
 * `page_id || ''`, not the bare column, which led SQLite to read every link of the revision in its primary key's
 * order (revision, page) rather than the few to this target by content_links_target, sorting them after.
 */
export async function backlinks(db: Db, revisionId: string, kind: string, id: string): Promise<string[]> {
  const rows = await db.all(
    sql<{ page_id: string }>`SELECT page_id || '' AS page_id FROM content_links
      WHERE revision_id = ${revisionId} AND target_kind = ${kind} AND target_id = ${id}
      GROUP BY page_id || '' ORDER BY MIN(rowid)`,
  );
  return rows.map((row) => row.pageId);
}

/** The revisions of a space's open and draft change requests whose links are not indexed for `appUrl`. */
export async function unindexedChangeRequestRevisions(db: Db, spaceId: string, appUrl: string): Promise<string[]> {
  const rows = await db.all(
    sql<{ id: string }>`SELECT DISTINCT change_requests.revision_id AS id FROM change_requests
       LEFT JOIN content_link_index ON content_link_index.revision_id = change_requests.revision_id AND content_link_index.app_url = ${appUrl}
       WHERE change_requests.space_id = ${spaceId} AND change_requests.status IN ('open', 'draft') AND content_link_index.revision_id IS NULL`,
  );
  return rows.map((row) => row.id);
}

/** The distinct broken links of the revisions of a space's open and draft change requests, summed over them. */
export async function brokenInChangeRequests(db: Db, spaceId: string): Promise<number> {
  const row = await db.first(
    sql<{ n: number }>`SELECT COALESCE(SUM(content_link_index.broken), 0) AS n FROM change_requests
       JOIN content_link_index ON content_link_index.revision_id = change_requests.revision_id
       WHERE change_requests.space_id = ${spaceId} AND change_requests.status IN ('open', 'draft')`,
  );
  return Number(row?.n ?? 0);
}

/**
 * The distinct links with one of the `statuses` in one page of the revisions of a space's open and draft change
 * requests, summed over the change requests (distinct as content/links.ts groups them).
 */
export async function brokenInChangeRequestPage(db: Db, spaceId: string, pageId: string, statuses: readonly string[]): Promise<number> {
  const row = await db.first(
    sql<{ n: number }>`SELECT COUNT(*) AS n FROM (
       SELECT DISTINCT change_requests.id, content_links.status, relation, target_kind, COALESCE(target_id, target_url)
       FROM change_requests JOIN content_links ON content_links.revision_id = change_requests.revision_id
       WHERE change_requests.space_id = ${spaceId} AND change_requests.status IN ('open', 'draft')
         AND ${db.specific.among('content_links.status', statuses)} AND content_links.page_id = ${pageId}) AS broken`,
  );
  return row?.n ?? 0;
}
