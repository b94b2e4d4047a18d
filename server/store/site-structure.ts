// The structure of a site: sections, section groups and site spaces (spaces attached to the site). Order among
// siblings is `position` (1..n, renumbered when siblings are reordered); defaults are kept on the containers (the
// site's default section and root site space, a section's default site space).
import { type Insertable, type Selectable, sql, type Updateable } from 'kysely';
import { columns, type Db } from './db.ts';
import type { Camelized, SiteSectionGroupsTable, SiteSectionsTable, SiteSpacesTable, SpacesTable } from './schema.ts';

export type SectionRecord = Camelized<Selectable<SiteSectionsTable>>;
export type GroupRecord = Camelized<Selectable<SiteSectionGroupsTable>>;
export type SiteSpaceRecord = Camelized<Selectable<SiteSpacesTable>>;

/** The tables of the structure's items. */
export const ITEM_TABLES = {
  section: 'site_sections',
  group: 'site_section_groups',
  siteSpace: 'site_spaces',
} as const;
export type ItemKind = keyof typeof ITEM_TABLES;

export function sections(db: Db, siteId: string): Promise<SectionRecord[]> {
  return db.all(db.q.selectFrom('site_sections').selectAll().where('site_id', '=', siteId));
}

export function groups(db: Db, siteId: string): Promise<GroupRecord[]> {
  return db.all(db.q.selectFrom('site_section_groups').selectAll().where('site_id', '=', siteId));
}

export function siteSpaces(db: Db, siteId: string): Promise<SiteSpaceRecord[]> {
  return db.all(db.q.selectFrom('site_spaces').selectAll().where('site_id', '=', siteId));
}

/** The spaces the site's site spaces hold. */
export function spacesOfSite(db: Db, siteId: string): Promise<Camelized<Selectable<SpacesTable>>[]> {
  return db.all(
    db.q.selectFrom('site_spaces').innerJoin('spaces', 'spaces.id', 'site_spaces.space_id').selectAll('spaces').where('site_spaces.site_id', '=', siteId),
  );
}

/** How many items of a kind the site has. */
export async function count(db: Db, siteId: string, kind: ItemKind): Promise<number> {
  const row = await db.first(db.q.selectFrom(ITEM_TABLES[kind]).select((eb) => eb.fn.countAll<number>().as('n')).where('site_id', '=', siteId));
  return row?.n ?? 0;
}

/** The paths and positions of the site spaces of a section (or of the root level, for null). */
export function siteSpacesOf(db: Db, siteId: string, sectionId: string | null): Promise<{ path: string; position: number }[]> {
  let query = db.q.selectFrom('site_spaces').select(['path', 'position']).where('site_id', '=', siteId);
  query = sectionId === null ? query.where('section_id', 'is', null) : query.where('section_id', '=', sectionId);
  return db.all(query);
}

/**
 * Sets the positions of items of one kind (`positions`: each item's id to its position) in one statement, however many
 * siblings an order names (a site holds up to 500 site spaces). Positions are bound, as the ids are, so that the
 * statement's text depends on how many items it orders alone, not on where they go: each text is a prepared statement
 * the engines keep (server/docs/limits.md, "What grows with requests").
 */
export async function setPositions(db: Db, kind: ItemKind, positions: ReadonlyMap<string, number>): Promise<void> {
  if (positions.size === 0) return;
  const cases = sql.join([...positions].map(([id, position]) => sql`WHEN ${id} THEN CAST(${position} AS INTEGER)`), sql` `);
  await db.send(db.q.updateTable(ITEM_TABLES[kind]).set({ position: sql<number>`CASE id ${cases} END` }).where('id', 'in', [...positions.keys()]));
}

export async function insertSection(db: Db, row: Pick<SectionRecord, 'id' | 'siteId' | 'title' | 'path' | 'icon' | 'position' | 'createdAt'>): Promise<void> {
  await db.send(db.q.insertInto('site_sections').values(columns<Insertable<SiteSectionsTable>>(row)));
}

export async function insertGroup(db: Db, row: GroupRecord): Promise<void> {
  await db.send(db.q.insertInto('site_section_groups').values(columns<Insertable<SiteSectionGroupsTable>>(row)));
}

export async function insertSiteSpace(db: Db, row: Omit<SiteSpaceRecord, 'condition'>): Promise<void> {
  await db.send(db.q.insertInto('site_spaces').values(columns<Insertable<SiteSpacesTable>>(row)));
}

export async function updateSection(db: Db, id: string, changes: Camelized<Updateable<Omit<SiteSectionsTable, 'id'>>>): Promise<void> {
  if (Object.keys(changes).length === 0) return;
  await db.send(db.q.updateTable('site_sections').set(columns<Updateable<Omit<SiteSectionsTable, 'id'>>>(changes)).where('id', '=', id));
}

export async function updateGroup(db: Db, id: string, changes: Camelized<Updateable<Omit<SiteSectionGroupsTable, 'id'>>>): Promise<void> {
  if (Object.keys(changes).length === 0) return;
  await db.send(db.q.updateTable('site_section_groups').set(columns<Updateable<Omit<SiteSectionGroupsTable, 'id'>>>(changes)).where('id', '=', id));
}

export async function updateSiteSpace(db: Db, id: string, changes: Camelized<Updateable<Omit<SiteSpacesTable, 'id'>>>): Promise<void> {
  if (Object.keys(changes).length === 0) return;
  await db.send(db.q.updateTable('site_spaces').set(columns<Updateable<Omit<SiteSpacesTable, 'id'>>>(changes)).where('id', '=', id));
}

/** Moves the site spaces of the site's root level into a section. */
export async function moveRootSiteSpaces(db: Db, siteId: string, sectionId: string): Promise<void> {
  await db.send(db.q.updateTable('site_spaces').set({ section_id: sectionId }).where('site_id', '=', siteId).where('section_id', 'is', null));
}

/** Takes the sections of a group out of it. */
export async function ungroup(db: Db, groupId: string): Promise<void> {
  await db.send(db.q.updateTable('site_sections').set({ group_id: null }).where('group_id', '=', groupId));
}

/** Removes an item of a site (a section takes its site spaces with it). */
export async function remove(db: Db, kind: ItemKind, siteId: string, id: string): Promise<void> {
  await db.send(db.q.deleteFrom(ITEM_TABLES[kind]).where('id', '=', id).where('site_id', '=', siteId));
}
