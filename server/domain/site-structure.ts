// The structure of a site: sections, section groups and site spaces, their order and their defaults, loaded whole (at
// most 100 sections, 100 groups and 500 site spaces) so that both are computed in one place. Its changes are in
// site-structure-changes.ts, its settings in site-settings.ts, how the API shows it in site-structure-presenters.ts
// (server/docs/behaviour-organizations-spaces-sites.md, "Defaults" and "Order").
import type { Membership } from '../auth/roles.ts';
import type { Scope } from '../context/context.ts';
import { badRequest, conflict } from '../common/errors.ts';
import type { Model } from '../common/contract.ts';
import type { Db } from '../store/db.ts';
import * as sites from '../store/sites.ts';
import * as structures from '../store/site-structure.ts';
import { unreachable } from '../common/errors.ts';
import { newId } from '../common/ids.ts';
import { getSiteRow, type SiteRow } from './sites.ts';
import { getSpaceRow, parseSpaceRow, spacePermissions, spaceRole, type SpaceRow } from './spaces.ts';
import type { Row } from '../store/schema.ts';

export type SectionRow = Row<'site_sections'>;

export type GroupRow = Row<'site_section_groups'>;

export type SiteSpaceRow = Row<'site_spaces'>;

export type ItemType = Model<'SiteStructureItemType'>;
export interface ItemRef {
  type: ItemType;
  id: string;
}

export interface Structure {
  site: SiteRow;
  /** Top-level items in order: sections outside a group, and groups. */
  top: ItemRef[];
  /** A position after every top-level item. */
  nextTopPosition: number;
  /** Every section in the order of the structure (a group's sections where the group is). */
  sections: SectionRow[];
  groups: GroupRow[];
  section(id: string): SectionRow | undefined;
  group(id: string): GroupRow | undefined;
  siteSpace(id: string): SiteSpaceRow | undefined;
  /** Sections of a group, in order. */
  groupSections(groupId: string): SectionRow[];
  /** Site spaces of a section (or of the root level, for `null`), in order. */
  siteSpaces(sectionId: string | null): SiteSpaceRow[];
  /** Every site space in the order of the structure. */
  allSiteSpaces: SiteSpaceRow[];
  space(id: string): SpaceRow;
  defaultSectionId: string | undefined;
  defaultSiteSpaceId(sectionId: string | null): string | undefined;
}

const byPosition = <Row extends { position: number; createdAt: string; id: string }>(a: Row, b: Row) =>
  a.position - b.position || a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);

/**
 * The structure of a site as it is now, with the spaces its site spaces hold (read together: a list of site spaces or
 * sections shows them all); inside a write, its effective defaults are stored.
 */
export async function loadStructure(ctx: Scope, { id }: { id: string }, read: Promise<Structure | undefined> = readStructure(ctx.db, id)): Promise<Structure> {
  const structure = await read;
  if (structure === undefined) throw new Error(`site ${id} is gone`);
  if (ctx.db.writing) await storeDefaults(ctx.db, structure);
  return structure;
}

/**
 * The structure of the site `id` as it is stored, its rows read together (one round trip on PostgreSQL: a caller may
 * send it with its access check, before it knows the site is there); undefined when there is no such site. The site is
 * read again: its stored defaults as they are now.
 */
export async function readStructure(db: Db, id: string): Promise<Structure | undefined> {
  const [site, sections, groups, siteSpaces, spaces] = await Promise.all([
    getSiteRow(db, id),
    structures.sections(db, id),
    structures.groups(db, id),
    structures.siteSpaces(db, id),
    structures.spacesOfSite(db, id),
  ]);
  return site === undefined ? undefined : structureOf({ site, sections, groups, siteSpaces, spaces: spaces.map(parseSpaceRow) });
}

/** The rows of a site's structure, in any order, and the spaces its site spaces hold. */
export interface StructureRows {
  site: SiteRow;
  sections: SectionRow[];
  groups: GroupRow[];
  siteSpaces: SiteSpaceRow[];
  spaces: SpaceRow[];
}

/** The structure of these rows: its items in order, and the defaults they give (see the top of this module). */
export function structureOf(rows: StructureRows): Structure {
  const { site } = rows;
  const sectionRows = [...rows.sections].sort(byPosition);
  const groups = [...rows.groups].sort(byPosition);
  const siteSpaceRows = [...rows.siteSpaces].sort(byPosition);
  const spaces = new Map(rows.spaces.map((row) => [row.id, row]));

  const top: (ItemRef & { position: number; createdAt: string })[] = [
    ...sectionRows
      .filter((row) => row.groupId === null)
      .map((row) => ({
        type: 'site-section' as const,
        id: row.id,
        position: row.position,
        createdAt: row.createdAt,
      })),
    ...groups.map((row) => ({
      type: 'site-section-group' as const,
      id: row.id,
      position: row.position,
      createdAt: row.createdAt,
    })),
  ].sort(byPosition);
  const groupSections = (groupId: string) => sectionRows.filter((row) => row.groupId === groupId);
  const sectionById = new Map(sectionRows.map((row) => [row.id, row]));
  const sections = top.flatMap((item) =>
    item.type === 'site-section' ? [sectionById.get(item.id)!] : groupSections(item.id),
  );
  const siteSpaces = (sectionId: string | null) => siteSpaceRows.filter((row) => row.sectionId === sectionId);

  const defaultSectionId = pickDefault(site.defaultSectionId, sections);
  const defaultSiteSpaces = new Map<string | null, string | undefined>([
    [null, pickDefault(site.defaultSiteSpaceId, siteSpaces(null))],
    ...sections.map((row) => [row.id, pickDefault(row.defaultSiteSpaceId, siteSpaces(row.id))] as const),
  ]);

  return {
    site,
    top: top.map(({ type, id }) => ({ type, id })),
    nextTopPosition: nextPosition(top),
    sections,
    groups,
    section: (id) => sectionById.get(id),
    group: (id) => groups.find((row) => row.id === id),
    siteSpace: (id) => siteSpaceRows.find((row) => row.id === id),
    groupSections,
    siteSpaces,
    allSiteSpaces: [...siteSpaces(null), ...sections.flatMap((row) => siteSpaces(row.id))],
    space(id) {
      // A structure is loaded again after every change (handlers/site-structure.ts), so it holds every space its
      // site spaces hold.
      const row = spaces.get(id);
      if (!row) throw new Error(`space ${id} of site ${site.id} was attached after its structure was loaded`);
      return row;
    },
    defaultSectionId,
    defaultSiteSpaceId: (sectionId) => defaultSiteSpaces.get(sectionId),
  };
}

function pickDefault(stored: string | null, items: { id: string }[]): string | undefined {
  return items.find((item) => item.id === stored)?.id ?? items[0]?.id;
}

async function storeDefaults(db: Db, structure: Structure): Promise<void> {
  const { site } = structure;
  const section = structure.defaultSectionId ?? null;
  const siteSpace = structure.defaultSiteSpaceId(null) ?? null;
  if (site.defaultSectionId !== section || site.defaultSiteSpaceId !== siteSpace) {
    await sites.update(db, site.id, { defaultSectionId: section, defaultSiteSpaceId: siteSpace });
  }
  for (const row of structure.sections) {
    const value = structure.defaultSiteSpaceId(row.id) ?? null;
    if (row.defaultSiteSpaceId !== value) await structures.updateSection(db, row.id, { defaultSiteSpaceId: value });
  }
}

// ---- Order ----

const KINDS: Record<ItemType, structures.ItemKind> = {
  'site-space': 'siteSpace',
  'site-section': 'section',
  'site-section-group': 'group',
};

const sameItem = (a: ItemRef, b: ItemRef) => a.type === b.type && a.id === b.id;

/** Stores `items` (siblings) in this order. */
export async function writeOrder(db: Db, items: ItemRef[]): Promise<void> {
  const byKind = new Map<structures.ItemKind, Map<string, number>>();
  for (const [index, item] of items.entries()) {
    const kind = KINDS[item.type];
    let positions = byKind.get(kind);
    if (positions === undefined) byKind.set(kind, (positions = new Map()));
    positions.set(item.id, index + 1);
  }
  for (const [kind, positions] of byKind) await structures.setPositions(db, kind, positions);
}

/** A position after every one of `siblings`. */
export function nextPosition(siblings: { position: number }[]): number {
  return Math.max(0, ...siblings.map((sibling) => sibling.position)) + 1;
}

/** Whether the item exists in the structure. */
export function hasItem(structure: Structure, item: ItemRef): boolean {
  switch (item.type) {
    case 'site-space':
      return structure.siteSpace(item.id) !== undefined;
    case 'site-section':
      return structure.section(item.id) !== undefined;
    case 'site-section-group':
      return structure.group(item.id) !== undefined;
    default:
      return unreachable(item.type, 'site structure item type');
  }
}

/** The item and its siblings, in order: site spaces of one container, sections of one group, or the top level. */
function siblingsOf(structure: Structure, item: ItemRef): ItemRef[] {
  switch (item.type) {
    case 'site-space': {
      const row = structure.siteSpace(item.id)!;
      return structure.siteSpaces(row.sectionId).map((sibling) => ({ type: 'site-space', id: sibling.id }));
    }
    case 'site-section': {
      const groupId = structure.section(item.id)!.groupId;
      if (groupId !== null) return structure.groupSections(groupId).map((row) => ({ type: 'site-section', id: row.id }));
      return structure.top;
    }
    case 'site-section-group':
      return structure.top;
    default:
      return unreachable(item.type, 'site structure item type');
  }
}

export interface MoveRequest {
  before?: ItemRef;
  after?: ItemRef;
}

/**
 * Moves an existing item just before `before` or just after `after` (both: between them; neither: to the end)
 * among its siblings. References must be siblings (400, naming the field); a move that changes nothing is a 409.
 */
export async function moveItem(
  ctx: Scope,
  structure: Structure,
  item: ItemRef,
  position: MoveRequest,
  fields: { before: string; after: string },
): Promise<void> {
  await writeOrder(ctx.db, movedOrder(siblingsOf(structure, item), item, position, fields));
}

/** `siblings` (the item among them, in order) with the item moved as `moveItem` says, or the 400 or 409 it is. */
export function movedOrder(siblings: ItemRef[], item: ItemRef, position: MoveRequest, fields: { before: string; after: string }): ItemRef[] {
  const others = siblings.filter((sibling) => !sameItem(sibling, item));
  const indexOf = (reference: ItemRef, field: string) => {
    if (sameItem(reference, item)) throw badRequest(`${field}: an item cannot be placed next to itself`);
    const index = others.findIndex((sibling) => sameItem(sibling, reference));
    if (index < 0)
      throw badRequest(`${field}: ${reference.type} ${reference.id} is not a sibling of ${item.type} ${item.id}`);
    return index;
  };
  let index = others.length;
  if (position.before && position.after) {
    index = indexOf(position.before, fields.before);
    if (indexOf(position.after, fields.after) !== index - 1) {
      throw badRequest(`position: ${position.after.id} is not just before ${position.before.id}`);
    }
  } else if (position.before) {
    index = indexOf(position.before, fields.before);
  } else if (position.after) {
    index = indexOf(position.after, fields.after) + 1;
  }
  const order = [...others.slice(0, index), item, ...others.slice(index)];
  if (order.every((entry, at) => sameItem(entry, siblings[at]!))) {
    throw conflict(`the move changes nothing: ${item.type} ${item.id} is already there`);
  }
  return order;
}

// ---- Spaces and paths ----

/** A live space of the organization the member can view, to attach to a site; 400 naming `field` otherwise. */
export async function attachableSpace(
  ctx: Scope,
  membership: Membership | undefined,
  organizationId: string,
  spaceId: string,
  field: string,
): Promise<SpaceRow> {
  const space = await getSpaceRow(ctx.db, spaceId);
  const visible =
    space?.organizationId === organizationId && spacePermissions(await spaceRole(ctx.db, membership, space), space).view;
  if (!space || !visible) throw badRequest(`${field}: no space ${spaceId} in this organization`);
  if (space.deletedAt !== null) throw badRequest(`${field}: space ${spaceId} is deleted`);
  return space;
}

/** A URL path segment made from a title: lower-case ASCII letters, digits and inner hyphens. */
export function slugOf(title: string, fallback: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '') // accents
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 90)
    .replace(/-+$/, '');
  return slug || fallback;
}

/** `base`, or `base-2`, `base-3`… : the first that `taken` refuses. */
export function uniquePath(base: string, taken: (path: string) => boolean): string {
  let path = base;
  for (let n = 2; taken(path); n++) path = `${base}-${n}`;
  return path;
}

/** Paths must be one URL path segment. */
export function checkPath(path: string, field: string): void {
  if (!/^[A-Za-z0-9._~-]+$/.test(path)) {
    throw badRequest(`${field}: use letters, digits, ".", "_", "~" and "-" only (one segment of a URL path)`);
  }
}

export const sectionPathTaken = (structure: Structure, path: string, except?: string) =>
  structure.sections.some((row) => row.path === path && row.id !== except);

export const siteSpacePathTaken = (structure: Structure, sectionId: string | null, path: string, except?: string) =>
  structure.siteSpaces(sectionId).some((row) => row.path === path && row.id !== except);

export const spaceAttached = (structure: Structure, sectionId: string | null, spaceId: string, except?: string) =>
  structure.siteSpaces(sectionId).some((row) => row.spaceId === spaceId && row.id !== except);

/**
 * Most items of the structure of a site (the `maxItems` of the contract's structure arrays). The published structure
 * holds them all in one answer, so a write that would pass a bound is a 400 naming the field that adds the item.
 */
export const SITE_STRUCTURE_LIMITS = { sections: 100, sectionGroups: 100, siteSpaces: 500 } as const;

const STRUCTURE_KINDS = { sections: 'section', sectionGroups: 'group', siteSpaces: 'siteSpace' } as const;
const STRUCTURE_WORDS = { sections: 'sections', sectionGroups: 'section groups', siteSpaces: 'site spaces' };

/** Throws a 400 naming `field` when the site has no room for one more item of `kind`. */
export async function requireStructureRoom(ctx: Scope, siteId: string, kind: keyof typeof SITE_STRUCTURE_LIMITS, field: string): Promise<void> {
  const n = await structures.count(ctx.db, siteId, STRUCTURE_KINDS[kind]);
  if (n >= SITE_STRUCTURE_LIMITS[kind]) {
    throw badRequest(`${field}: a site holds at most ${SITE_STRUCTURE_LIMITS[kind]} ${STRUCTURE_WORDS[kind]}`);
  }
}

/**
 * Attaches a space at the end of a section (or of the root level, for `null`), with a path made from the space's
 * title (made unique in its container). Returns the new site space's id. A site full of site spaces is a 400 naming
 * `field`.
 */
export async function insertSiteSpace(
  ctx: Scope,
  siteId: string,
  sectionId: string | null,
  space: SpaceRow,
  field = 'spaceId',
): Promise<string> {
  await requireStructureRoom(ctx, siteId, 'siteSpaces', field);
  const container = await structures.siteSpacesOf(ctx.db, siteId, sectionId);
  const paths = new Set(container.map((row) => row.path));
  const id = newId();
  await structures.insertSiteSpace(ctx.db, {
    id,
    siteId: siteId,
    sectionId: sectionId,
    spaceId: space.id,
    path: uniquePath(slugOf(space.title, 'space'), (path) => paths.has(path)),
    position: nextPosition(container),
    createdAt: ctx.now(),
  });
  return id;
}

/** Where a site space goes when its section is not given: the default section, else the root level. */
export const defaultContainer = (structure: Structure): string | null => structure.defaultSectionId ?? null;

/** Whether the site space is its section's default (or the root level's, outside a section). */
export const isDefaultSiteSpace = (structure: Structure, row: SiteSpaceRow): boolean =>
  structure.defaultSiteSpaceId(row.sectionId) === row.id;
