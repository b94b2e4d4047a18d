// The changes made to the structure of a site (site-structure.ts): its sections, section groups and site spaces
// created, changed and deleted. Each change takes the structure as it was loaded for a caller who may manage the site (see loadStructure: inside
// the write, with its defaults stored), checks the change against it, and stores it. Changes that attach a space
// take the caller's access, whose membership must let them view that space.
import type { Scope } from '../context/context.ts';
import { badRequest, conflict, notFound } from '../common/errors.ts';
import type { Input } from '../common/contract.ts';
import * as structures from '../store/site-structure.ts';
import { newId } from '../common/ids.ts';
import {
  attachableSpace,
  checkPath,
  defaultContainer,
  type GroupRow,
  insertSiteSpace,
  type ItemRef,
  loadStructure,
  nextPosition,
  requireStructureRoom,
  sectionPathTaken,
  type SectionRow,
  siteSpacePathTaken,
  type SiteSpaceRow,
  slugOf,
  spaceAttached,
  type Structure,
  uniquePath,
  writeOrder,
} from './site-structure.ts';
import type { SiteAccess } from './sites.ts';

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
