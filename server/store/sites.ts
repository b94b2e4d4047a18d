// Published sites. A site is published when at least one of its site spaces holds a space that is not deleted.
import type { ExpressionBuilder, Insertable, Selectable, Updateable } from 'kysely';
import { columns, type Db } from './db.ts';
import { after, type Key } from './keyset.ts';
import type { Camelized, Schema, SitesTable } from './schema.ts';

export type SiteRecord = Camelized<Selectable<SitesTable>>;

/** Whether the site is published: a condition on `sites`. */
const published = (eb: ExpressionBuilder<Schema, 'sites'>) =>
  eb.exists(
    eb.selectFrom('site_spaces').innerJoin('spaces', 'spaces.id', 'site_spaces.space_id').select('site_spaces.id')
      .whereRef('site_spaces.site_id', '=', 'sites.id').where('spaces.deleted_at', 'is', null),
  );

export function get(db: Db, id: string): Promise<SiteRecord | undefined> {
  return db.first(db.q.selectFrom('sites').selectAll().where('id', '=', id));
}

/** Whether the site exists in the organization. */
export async function inOrganization(db: Db, siteId: string, organizationId: string): Promise<boolean> {
  const row = await db.first(db.q.selectFrom('sites').select('id').where('id', '=', siteId).where('organization_id', '=', organizationId));
  return row !== undefined;
}

export async function isPublished(db: Db, siteId: string): Promise<boolean> {
  return (await db.first(db.q.selectFrom('sites').select('id').where('id', '=', siteId).where(published))) !== undefined;
}

/** For each of these sites: whether it is published, and how many site spaces it has. */
export function facts(db: Db, siteIds: readonly string[]): Promise<{ id: string; published: number; siteSpaces: number }[]> {
  return db.all(
    db.q.selectFrom('sites')
      .select((eb) => [
        'sites.id',
        eb.case().when(published(eb)).then(1).else(0).end().as('published'),
        eb.selectFrom('site_spaces').select((inner) => inner.fn.countAll<number>().as('n')).whereRef('site_spaces.site_id', '=', 'sites.id').as('site_spaces'),
      ])
      .where(db.specific.among('sites.id', siteIds)),
  ) as Promise<{ id: string; published: number; siteSpaces: number }[]>;
}

/** Filters of a list of an organization's sites: those that hold a space, those published or not. */
export interface SiteFilters {
  organizationId: string;
  space?: string;
  published?: boolean;
}

function filtered(db: Db, filters: SiteFilters) {
  let query = db.q.selectFrom('sites').where('organization_id', '=', filters.organizationId);
  if (filters.space !== undefined) {
    const space = filters.space;
    query = query.where((eb) =>
      eb.exists(eb.selectFrom('site_spaces').select('site_spaces.id').whereRef('site_spaces.site_id', '=', 'sites.id').where('site_spaces.space_id', '=', space)),
    );
  }
  if (filters.published !== undefined) query = query.where((eb) => (filters.published ? published(eb) : eb.not(published(eb))));
  return query;
}

export async function count(db: Db, filters: SiteFilters): Promise<number> {
  return (await db.first(filtered(db, filters).select((eb) => eb.fn.countAll<number>().as('n'))))?.n ?? 0;
}

/** The titles of the sites, for a filter on titles made in JavaScript. */
export async function titles(db: Db, filters: SiteFilters): Promise<string[]> {
  return (await db.all(filtered(db, filters).select('title'))).map((row) => row.title);
}

/** A page of the sites by creation (created_at, id), after `key`. */
export function page(db: Db, filters: SiteFilters, key: Key | undefined, limit: number): Promise<SiteRecord[]> {
  let query = filtered(db, filters).selectAll();
  if (key) query = query.where(after(['created_at', 'id'], key));
  return db.all(query.orderBy('created_at').orderBy('id').limit(limit));
}

export async function insert(db: Db, site: { id: string; organizationId: string; type: string; title: string; visibility: string; adaptiveSchema: string; shareKey: string; createdAt: string }): Promise<void> {
  await db.send(db.q.insertInto('sites').values(columns<Insertable<SitesTable>>(site)));
}

/** Changes columns of a site. */
export async function update(db: Db, id: string, changes: Camelized<Updateable<Omit<SitesTable, 'id'>>>): Promise<void> {
  if (Object.keys(changes).length === 0) return;
  await db.send(db.q.updateTable('sites').set(columns<Updateable<Omit<SitesTable, 'id'>>>(changes)).where('id', '=', id));
}

/**
 * Removes a site of an organization, with its structure (cascade); an organization whose default content it was
 * has none any more. False when there was no such site.
 */
export async function remove(db: Db, organizationId: string, siteId: string): Promise<boolean> {
  const deleted = await db.run(db.q.deleteFrom('sites').where('id', '=', siteId).where('organization_id', '=', organizationId));
  if (deleted === 0) return false;
  await db.send(
    db.q.updateTable('organizations').set({ default_content_site: null }).where('id', '=', organizationId).where('default_content_site', '=', siteId),
  );
  return true;
}

/** Whether another site than `exceptId` is served through this proxy address. */
export async function proxyTaken(db: Db, proxy: string, exceptId: string): Promise<boolean> {
  return (await db.first(db.q.selectFrom('sites').select('id').where('proxy', '=', proxy).where('id', '<>', exceptId))) !== undefined;
}

