// The structure of a site: sections, section groups and site spaces, their order and their defaults, the changes made
// to them (creating a site and changing its settings among them), and how the API shows them. The whole structure
// of a site is loaded at once (sites hold tens of items, not thousands), so ordering and defaults are computed in one
// place.
//
// Order: sections outside a group and section groups share the top level; sections in a group are ordered within
// it; site spaces are ordered within their section, or at the root level of a site without sections.
// Defaults: the stored default of a container when it is still there, else its first item in order. Loading the
// structure inside a write stores these, so a later reorder never changes which item is the default.
import type { Caller } from '../auth/caller.ts';
import type { Membership } from '../auth/roles.ts';
import type { Scope } from '../context.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import type { Input, Model } from './contract.ts';
import { type Db, toJson } from '../store/db.ts';
import * as sites from '../store/sites.ts';
import * as structures from '../store/site-structure.ts';
import { unreachable } from './enums.ts';
import { newId, newSecret } from './ids.ts';
import {
  EMPTY_ADAPTIVE_SCHEMA,
  getSiteRow,
  isPublished,
  manageableSite,
  organizationSites,
  SITE_TYPES,
  publishedAddress,
  type SiteAccess,
  type SitePermissions,
  type SiteRow,
} from './sites.ts';
import {
  getSpaceRow,
  insertSpace,
  parseSpaceRow,
  presentSpacesFor,
  spacePermissions,
  spaceRole,
  type SpaceRow,
} from './spaces.ts';
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
export async function loadStructure(ctx: Scope, { id }: { id: string }): Promise<Structure> {
  const { db } = ctx;
  const site = (await getSiteRow(db, id))!; // re-read: the stored defaults as they are now
  const sectionRows = (await structures.sections(db, site.id)).sort(byPosition);
  const groups = (await structures.groups(db, site.id)).sort(byPosition);
  const siteSpaceRows = (await structures.siteSpaces(db, site.id)).sort(byPosition);
  const spaces = new Map<string, SpaceRow>();
  for (const row of await structures.spacesOfSite(db, site.id)) spaces.set(row.id, parseSpaceRow(row));

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

  const structure: Structure = {
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
  if (db.writing) await storeDefaults(db, structure);
  return structure;
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
  for (const [index, item] of items.entries()) await structures.setPosition(db, KINDS[item.type], item.id, index + 1);
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
  const siblings = siblingsOf(structure, item);
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
  await writeOrder(ctx.db, order);
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

// ---- Changes ----
// Each change takes the structure as it was loaded for a caller who may manage the site (see loadStructure: inside
// the write, with its defaults stored), checks the change against it, and stores it. Changes that attach a space
// take the caller's access, whose membership must let them view that space.

/** The section, or a 404. */
export function requireSection(structure: Structure, id: string): SectionRow {
  const row = structure.section(id);
  if (!row) throw notFound(`site section ${id}`);
  return row;
}

/** The section group, or a 404. */
export function requireGroup(structure: Structure, id: string): GroupRow {
  const row = structure.group(id);
  if (!row) throw notFound(`site section group ${id}`);
  return row;
}

/** The site space, or a 404. */
export function requireSiteSpace(structure: Structure, id: string): SiteSpaceRow {
  const row = structure.siteSpace(id);
  if (!row) throw notFound(`site space ${id}`);
  return row;
}

const where = (sectionId: string | null) => (sectionId ? `section ${sectionId}` : 'the root level of the site');

/**
 * Adds a section holding a space (titled after it unless a title is given), last at the top level; the first section
 * of a site also takes in the site spaces of its root level. Returns the new section's id.
 */
export async function createSection(
  ctx: Scope,
  access: SiteAccess,
  structure: Structure,
  request: Input<'CreateSiteSectionRequest'>,
): Promise<string> {
  const { site } = access;
  const space = await attachableSpace(ctx, access.membership, site.organizationId, request.spaceId, 'spaceId');
  await requireStructureRoom(ctx, site.id, 'sections', 'spaceId');
  const title = request.title ?? space.title.slice(0, 128).trim();
  if (title.length < 2) {
    throw badRequest(
      `title: the title of space ${space.id} is too short for a section (2 characters or more); give a title`,
    );
  }
  const id = newId();
  await structures.insertSection(ctx.db, {
    id,
    siteId: site.id,
    title,
    path: uniquePath(slugOf(title, 'section'), (path) => sectionPathTaken(structure, path)),
    icon: request.icon ?? null,
    position: structure.nextTopPosition,
    createdAt: ctx.now(),
  });

  let first: string;
  if (structure.sections.length === 0) {
    // The first section takes in the site spaces of the root level, after its own space (which, when it was
    // already at the root level, is that site space moved to the front).
    const root = structure.siteSpaces(null);
    const existing = root.find((row) => row.spaceId === space.id);
    await structures.moveRootSiteSpaces(ctx.db, site.id, id);
    first = existing?.id ?? (await insertSiteSpace(ctx, site.id, id, space));
    const order = [first, ...root.filter((row) => row.id !== first).map((row) => row.id)];
    await writeOrder(
      ctx.db,
      order.map((siteSpace) => ({ type: 'site-space', id: siteSpace })),
    );
  } else {
    first = await insertSiteSpace(ctx, site.id, id, space);
  }
  await structures.updateSection(ctx.db, id, { defaultSiteSpaceId: first });
  return id;
}

/** Removes a section of the site (nothing when there is none) with its site spaces. */
export async function deleteSection(ctx: Scope, structure: Structure, sectionId: string): Promise<void> {
  await structures.remove(ctx.db, 'section', structure.site.id, sectionId);
  await loadStructure(ctx, structure.site); // a new default section when the default one went
}

/**
 * Changes a section (a 404 when the site has none with this id): its path stays unique among the sections of the
 * site, its default site space is one of its own.
 */
export async function updateSection(
  ctx: Scope,
  structure: Structure,
  sectionId: string,
  request: Input<'UpdateSiteSectionRequest'>,
): Promise<void> {
  const section = requireSection(structure, sectionId);
  const changes: Parameters<typeof structures.updateSection>[2] = {};
  if (request.title !== undefined) changes.title = request.title;
  if (request.path !== undefined) {
    checkPath(request.path, 'path');
    if (sectionPathTaken(structure, request.path, section.id)) {
      throw conflict(`path: another section of this site has the path "${request.path}"`);
    }
    changes.path = request.path;
  }
  if (request.defaultSiteSpace !== undefined) {
    if (structure.siteSpace(request.defaultSiteSpace)?.sectionId !== section.id) {
      throw badRequest(`defaultSiteSpace: no site space ${request.defaultSiteSpace} in this section`);
    }
    changes.defaultSiteSpaceId = request.defaultSiteSpace;
  }
  if (request.condition !== undefined) changes.condition = request.condition;
  if (request.icon !== undefined) changes.icon = request.icon;
  if (request.description !== undefined) changes.description = request.description;
  await structures.updateSection(ctx.db, section.id, changes);
}

/**
 * Adds a section group holding the listed sections of the site (none of them in a group yet), in that order.
 * Returns the new group's id.
 */
export async function createGroup(
  ctx: Scope,
  structure: Structure,
  request: Input<'CreateSiteSectionGroupRequest'>,
): Promise<string> {
  const siteId = structure.site.id;
  await requireStructureRoom(ctx, siteId, 'sectionGroups', 'title');
  const sectionIds = request.sections ?? [];
  sectionIds.forEach((sectionId, index) => {
    const section = structure.section(sectionId);
    if (!section) throw badRequest(`sections: no section ${sectionId} in this site`);
    if (sectionIds.indexOf(sectionId) !== index)
      throw badRequest(`sections: section ${sectionId} is listed more than once`);
    if (section.groupId) throw conflict(`sections: section ${sectionId} is already in group ${section.groupId}`);
  });
  const id = newId();
  await structures.insertGroup(ctx.db, {
    id,
    siteId: siteId,
    title: request.title,
    icon: request.icon ?? null,
    position: structure.nextTopPosition,
    createdAt: ctx.now(),
  });

  // The group takes the place of the first of its sections at the top level (or goes last).
  const group: ItemRef = { type: 'site-section-group', id };
  const listed = new Set(sectionIds);
  const top = structure.top.filter((entry) => !(entry.type === 'site-section' && listed.has(entry.id)));
  const firstIndex = structure.top.findIndex((entry) => entry.type === 'site-section' && listed.has(entry.id));
  top.splice(firstIndex < 0 ? top.length : firstIndex, 0, group);
  for (const sectionId of sectionIds) await structures.updateSection(ctx.db, sectionId, { groupId: id });
  await writeOrder(ctx.db, top);
  await writeOrder(
    ctx.db,
    sectionIds.map((sectionId) => ({ type: 'site-section', id: sectionId })),
  );
  return id;
}

/** Removes a section group (nothing when the site has none with this id); its sections stay in the site. */
export async function deleteGroup(ctx: Scope, structure: Structure, groupId: string): Promise<void> {
  const group = structure.group(groupId);
  if (!group) return;
  // Its sections stay in the site, where the group was.
  const sections = structure.groupSections(group.id).map((row): ItemRef => ({ type: 'site-section', id: row.id }));
  const top = structure.top.flatMap((entry) =>
    entry.type === 'site-section-group' && entry.id === group.id ? sections : [entry],
  );
  await structures.ungroup(ctx.db, group.id);
  await structures.remove(ctx.db, 'group', structure.site.id, group.id);
  await writeOrder(ctx.db, top);
}

/** Changes the title or icon of a section group (a 404 when the site has none with this id). */
export async function updateGroup(
  ctx: Scope,
  structure: Structure,
  groupId: string,
  request: Input<'UpdateSiteSectionGroupRequest'>,
): Promise<void> {
  const group = requireGroup(structure, groupId);
  await structures.updateGroup(ctx.db, group.id, {
    ...(request.title !== undefined ? { title: request.title } : {}),
    ...(request.icon !== undefined ? { icon: request.icon } : {}),
  });
}

/** Puts a section of the site that is in no group last in a section group (a 404 when there is no such group). */
export async function addSectionToGroup(ctx: Scope, structure: Structure, groupId: string, sectionId: string): Promise<void> {
  const group = requireGroup(structure, groupId);
  const section = structure.section(sectionId);
  if (!section) throw badRequest(`sectionId: no section ${sectionId} in this site`);
  if (section.groupId) throw conflict(`sectionId: section ${section.id} is already in group ${section.groupId}`);
  await structures.updateSection(ctx.db, section.id, { groupId: group.id, position: nextPosition(structure.groupSections(group.id)) });
}

/** Takes a section out of its group (nothing when it is not in this group). */
export async function removeSectionFromGroup(ctx: Scope, structure: Structure, groupId: string, sectionId: string): Promise<void> {
  const section = structure.section(sectionId);
  if (!section || section.groupId !== groupId) return;
  // The section stays in the site, just after the group.
  const top = structure.top.flatMap((entry): ItemRef[] =>
    entry.type === 'site-section-group' && entry.id === section.groupId
      ? [entry, { type: 'site-section', id: section.id }]
      : [entry],
  );
  await structures.updateSection(ctx.db, section.id, { groupId: null });
  await writeOrder(ctx.db, top);
}

/**
 * Attaches a space last in a section of the site, or in the default container (`defaultContainer`) when no section
 * is given; a space is attached once per container. Returns the new site space's id.
 */
export async function createSiteSpace(
  ctx: Scope,
  access: SiteAccess,
  structure: Structure,
  request: Input<'CreateSiteSpaceRequest'>,
): Promise<string> {
  let sectionId = defaultContainer(structure);
  if (request.sectionId !== undefined) {
    if (!structure.section(request.sectionId))
      throw badRequest(`sectionId: no section ${request.sectionId} in this site`);
    sectionId = request.sectionId;
  }
  const space = await attachableSpace(ctx, access.membership, access.site.organizationId, request.spaceId, 'spaceId');
  if (spaceAttached(structure, sectionId, space.id)) {
    throw conflict(`spaceId: space ${space.id} is already attached to ${where(sectionId)}`);
  }
  return insertSiteSpace(ctx, access.site.id, sectionId, space);
}

/** Detaches a site space (nothing when the site has none with this id). */
export async function deleteSiteSpace(ctx: Scope, structure: Structure, siteSpaceId: string): Promise<void> {
  await structures.remove(ctx.db, 'siteSpace', structure.site.id, siteSpaceId);
  await loadStructure(ctx, structure.site); // a new default site space when the default one went
}

/**
 * Changes a site space (a 404 when the site has none with this id): its path stays unique in its container, and the
 * space it holds, when replaced, is one the caller can view and not attached there already.
 */
export async function updateSiteSpace(
  ctx: Scope,
  access: SiteAccess,
  structure: Structure,
  siteSpaceId: string,
  request: Input<'UpdateSiteSpaceRequest'>,
): Promise<void> {
  const siteSpace = requireSiteSpace(structure, siteSpaceId);
  const changes: Parameters<typeof structures.updateSiteSpace>[2] = {};
  if (request.path !== undefined) {
    checkPath(request.path, 'path');
    if (siteSpacePathTaken(structure, siteSpace.sectionId, request.path, siteSpace.id)) {
      throw conflict(`path: another site space of ${where(siteSpace.sectionId)} has the path "${request.path}"`);
    }
    changes.path = request.path;
  }
  if (request.condition !== undefined) changes.condition = request.condition;
  if (request.spaceId !== undefined) {
    const space = await attachableSpace(ctx, access.membership, access.site.organizationId, request.spaceId, 'spaceId');
    if (spaceAttached(structure, siteSpace.sectionId, space.id, siteSpace.id)) {
      throw conflict(`spaceId: space ${space.id} is already attached to ${where(siteSpace.sectionId)}`);
    }
    changes.spaceId = space.id;
  }
  await structures.updateSiteSpace(ctx.db, siteSpace.id, changes);
}

// ---- Sites ----
// Creating a site attaches its spaces, and its settings name its default section and site space: these two site
// operations build on the structure, so they live here rather than in sites.ts (which this module builds on).

const DEFAULT_TITLE = 'Untitled site';

/**
 * Creates a site in an organization, for a caller who may manage its sites, with its spaces at the root level: the
 * listed ones (each once), or a new space titled like the site for `'new'`. The new site as the caller reaches it.
 */
export async function createSite(
  ctx: Scope,
  caller: Caller,
  organizationId: string,
  request: Input<'CreateSiteRequest'>,
): Promise<SiteAccess> {
  const { membership, permissions } = await organizationSites(ctx, caller, organizationId, 'manage');
  const title = request.title ?? DEFAULT_TITLE;
  const spaces: SpaceRow[] = [];
  if (request.spaces === 'new') spaces.push(await insertSpace(ctx, { organizationId, title }));
  else for (const spaceId of request.spaces ?? []) spaces.push(await attachableSpace(ctx, membership, organizationId, spaceId, 'spaces'));
  const duplicate = spaces.find((space, index) => spaces.findIndex((other) => other.id === space.id) !== index);
  if (duplicate) throw badRequest(`spaces: space ${duplicate.id} is listed more than once`);

  const id = newId();
  await sites.insert(ctx.db, {
    id,
    organizationId: organizationId,
    type: request.type ?? 'basic',
    title,
    visibility: request.visibility ?? 'public',
    adaptiveSchema: toJson(EMPTY_ADAPTIVE_SCHEMA),
    shareKey: newSecret(16),
    createdAt: ctx.now(),
  });
  for (const space of spaces) await insertSiteSpace(ctx, id, null, space, 'spaces');
  const site = (await getSiteRow(ctx.db, id))!;
  await loadStructure(ctx, site); // stores the first space as the default
  return { site: (await getSiteRow(ctx.db, site.id))!, membership, permissions, visitor: false };
}

/**
 * Changes the settings of a site the caller may manage. A proxy address serves one site; the default section is one
 * of the site's, and the default site space one of the (new) default section, or of the root level of a site
 * without sections. The site as it is now, as the caller reaches it.
 */
export async function updateSite(
  ctx: Scope,
  caller: Caller,
  organizationId: string,
  siteId: string,
  request: Input<'UpdateSiteRequest'>,
): Promise<SiteAccess> {
  const access = await manageableSite(ctx, caller, organizationId, siteId);
  const { site } = access;
  const structure = await loadStructure(ctx, site);
  const changes: Parameters<typeof sites.update>[2] = {};
  if (request.title !== undefined) changes.title = request.title;
  if (request.visibility !== undefined) changes.visibility = request.visibility;
  if (request.agentsContext !== undefined) changes.agentsContext = request.agentsContext;
  if (request.adaptiveContent !== undefined) changes.adaptiveContent = request.adaptiveContent.enabled ? 1 : 0;
  if (request.basename !== undefined) {
    request.basename.split('/').forEach((segment) => checkPath(segment, 'basename'));
    changes.basename = request.basename;
  }
  if (request.proxy !== undefined) {
    if (request.proxy !== null && (await sites.proxyTaken(ctx.db, request.proxy, site.id))) throw conflict(`proxy: ${request.proxy} already serves another site`);
    changes.proxy = request.proxy;
  }
  let defaultSection = structure.defaultSectionId;
  if (request.defaultSiteSection !== undefined) {
    if (!structure.section(request.defaultSiteSection)) {
      throw badRequest(`defaultSiteSection: no section ${request.defaultSiteSection} in this site`);
    }
    defaultSection = changes.defaultSectionId = request.defaultSiteSection;
  }
  if (request.defaultSiteSpace !== undefined) {
    // The default site space of the site: at the root level, or in the (new) default section.
    const siteSpace = structure.siteSpace(request.defaultSiteSpace);
    if (!siteSpace || siteSpace.sectionId !== (defaultSection ?? null)) {
      throw badRequest(
        `defaultSiteSpace: no site space ${request.defaultSiteSpace} ${defaultSection ? 'in the default section' : 'at the root level'} of this site`,
      );
    }
    if (defaultSection) {
      await structures.updateSection(ctx.db, defaultSection, { defaultSiteSpaceId: siteSpace.id });
    } else {
      changes.defaultSiteSpaceId = siteSpace.id;
    }
  }
  await sites.update(ctx.db, site.id, changes);
  return { ...access, site: (await getSiteRow(ctx.db, site.id))! };
}

// ---- Presentation ----

/** How a caller sees a structure: their membership (for the embedded spaces) and their permissions on the site. */
export interface StructureView {
  ctx: Scope;
  structure: Structure;
  membership: Membership | undefined;
  permissions: SitePermissions;
  published: boolean;
  /** Leave out site spaces whose space is deleted. */
  liveOnly: boolean;
  /** The spaces presented for this view so far, by id (see `presentSpacesOf`). */
  spaces: Map<string, Model<'Space'>>;
}

/** The view of a caller; visitors and the published view leave out site spaces of deleted spaces. */
export async function structureView(
  ctx: Scope,
  structure: Structure,
  access: SiteAccess,
  liveOnly = access.visitor,
): Promise<StructureView> {
  return {
    ctx,
    structure,
    membership: access.membership,
    permissions: access.permissions,
    published: await isPublished(ctx.db, structure.site.id),
    liveOnly,
    spaces: new Map(),
  };
}

/**
 * Presents the spaces of these site spaces for the view, all at once (their counters and the caller's roles read in
 * one query each: `presentSpacesFor`), for `presentSiteSpace`: a list of site spaces or sections calls it with its
 * page, not one space at a time.
 */
export async function presentSpacesOf(view: StructureView, siteSpaces: readonly SiteSpaceRow[]): Promise<void> {
  const ids = [...new Set(siteSpaces.map((row) => row.spaceId))].filter((id) => !view.spaces.has(id));
  if (ids.length === 0) return;
  const presented = await presentSpacesFor(view.ctx, ids.map((id) => view.structure.space(id)), view.membership);
  ids.forEach((id, index) => view.spaces.set(id, presented[index]!));
}

function publishedUrls(view: StructureView, path: string[]): Model<'PublishedUrls'> {
  return view.published ? { published: publishedAddress(view.ctx, view.structure.site, view.permissions, path) } : {};
}

/** A site space; its space presented by `presentSpacesOf` first (`presentSiteSpaces`, `presentSiteSpaceNow`). */
function presentSiteSpace(view: StructureView, row: SiteSpaceRow): Model<'SiteSpace'> {
  const { structure } = view;
  const space = structure.space(row.spaceId);
  const section = row.sectionId ? structure.section(row.sectionId) : undefined;
  return {
    object: 'site-space',
    id: row.id,
    path: row.path,
    ...(row.sectionId ? { section: row.sectionId } : {}),
    space: view.spaces.get(row.spaceId)!,
    title: space.title,
    default: isDefaultSiteSpace(structure, row),
    ...(row.condition !== null ? { condition: row.condition } : {}),
    hasAdvancedCustomizationFeature: SITE_TYPES[structure.site.type].advancedCustomization,
    urls: publishedUrls(view, section ? [section.path, row.path] : [row.path]),
  };
}

/** Whether the site space is its section's default (or the root level's, outside a section). */
export const isDefaultSiteSpace = (structure: Structure, row: SiteSpaceRow): boolean =>
  structure.defaultSiteSpaceId(row.sectionId) === row.id;

/** The site spaces of a section (or of the root level, for `null`; of the whole site, for `undefined`) the view shows. */
export function shownSiteSpaces(view: StructureView, sectionId?: string | null): SiteSpaceRow[] {
  const rows = sectionId === undefined ? view.structure.allSiteSpaces : view.structure.siteSpaces(sectionId);
  return view.liveOnly ? rows.filter((row) => view.structure.space(row.spaceId).deletedAt === null) : rows;
}

/** Sections (a page of a list) with their site spaces, the spaces presented at once. */
export async function presentSections(view: StructureView, rows: readonly SectionRow[]): Promise<Model<'SiteSection'>[]> {
  await presentSpacesOf(view, rows.flatMap((row) => shownSiteSpaces(view, row.id)));
  return rows.map((row) => presentSection(view, row));
}

/** Site spaces (a page of a list), their spaces presented at once. */
export async function presentSiteSpaces(view: StructureView, rows: readonly SiteSpaceRow[]): Promise<Model<'SiteSpace'>[]> {
  await presentSpacesOf(view, rows);
  return rows.map((row) => presentSiteSpace(view, row));
}

/** One site space. */
export async function presentSiteSpaceNow(view: StructureView, row: SiteSpaceRow): Promise<Model<'SiteSpace'>> {
  return (await presentSiteSpaces(view, [row]))[0]!;
}

/** One section, with its site spaces. */
export async function presentSectionNow(view: StructureView, row: SectionRow): Promise<Model<'SiteSection'>> {
  return (await presentSections(view, [row]))[0]!;
}

/** A section; the spaces of its site spaces presented first (`presentSections`). */
function presentSection(view: StructureView, row: SectionRow): Model<'SiteSection'> {
  return {
    object: 'site-section',
    id: row.id,
    title: row.title,
    ...(row.description !== null ? { description: row.description } : {}),
    default: view.structure.defaultSectionId === row.id,
    path: row.path,
    ...(row.condition !== null ? { condition: row.condition } : {}),
    ...(row.groupId !== null ? { sectionGroup: row.groupId } : {}),
    ...(row.icon !== null ? { icon: row.icon } : {}),
    siteSpaces: shownSiteSpaces(view, row.id).map((siteSpace) => presentSiteSpace(view, siteSpace)),
    urls: publishedUrls(view, [row.path]),
  };
}

/** Section groups (a page of a list), with their sections. */
export async function presentGroups(view: StructureView, rows: readonly GroupRow[]): Promise<Model<'SiteSectionGroup'>[]> {
  const sections = rows.flatMap((row) => view.structure.groupSections(row.id));
  await presentSpacesOf(view, sections.flatMap((section) => shownSiteSpaces(view, section.id)));
  return rows.map((row) => ({
    object: 'site-section-group',
    id: row.id,
    title: row.title,
    sections: view.structure.groupSections(row.id).map((section) => presentSection(view, section)),
    ...(row.icon !== null ? { icon: row.icon } : {}),
  }));
}

/** One section group. */
export async function presentGroup(view: StructureView, row: GroupRow): Promise<Model<'SiteSectionGroup'>> {
  return (await presentGroups(view, [row]))[0]!;
}

/** What visitors reach: the sections in order, or the root site spaces of a site without sections. */
export async function presentPublishedStructure(view: StructureView): Promise<Model<'PublishedSiteStructure'>> {
  const { structure } = view;
  if (structure.sections.length > 0) return { type: 'sections', structure: await presentSections(view, structure.sections) };
  return { type: 'siteSpaces', structure: await presentSiteSpaces(view, shownSiteSpaces(view, null)) };
}
