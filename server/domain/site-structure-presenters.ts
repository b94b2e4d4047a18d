// How the API shows the structure of a site (site-structure.ts) to a caller: its sections, section groups and site
// spaces, with the spaces they hold, and the structure visitors reach.
import type { Membership } from '../auth/roles.ts';
import type { Scope } from '../context/context.ts';
import type { Model } from '../common/contract.ts';
import { type GroupRow, isDefaultSiteSpace, type SectionRow, type SiteSpaceRow, type Structure } from './site-structure.ts';
import { isPublished, publishedAddress, type SiteAccess, type SitePermissions, SITE_TYPES } from './sites.ts';
import { presentSpacesFor } from './spaces.ts';

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

/**
 * The view of a caller; visitors and the published view leave out site spaces of deleted spaces. The structure may be
 * still loading (`loadStructure` not awaited): whether the site is published is read with it.
 */
export async function structureView(
  ctx: Scope,
  structure: Structure | Promise<Structure>,
  access: SiteAccess,
  liveOnly = access.visitor,
): Promise<StructureView> {
  const [loaded, published] = await Promise.all([structure, isPublished(ctx.db, access.site.id)]);
  return {
    ctx,
    structure: loaded,
    membership: access.membership,
    permissions: access.permissions,
    published,
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

