// Creating a site and changing its settings. Creating a site attaches its spaces, and its settings name its default
// section and site space: these two site operations build on the structure (site-structure.ts), so they live here
// rather than in sites.ts (which the structure builds on).
import type { Caller } from '../auth/caller.ts';
import type { Scope } from '../context/context.ts';
import { badRequest, conflict } from '../common/errors.ts';
import type { Input } from '../common/contract.ts';
import { toJson } from '../store/db.ts';
import * as sites from '../store/sites.ts';
import * as structures from '../store/site-structure.ts';
import { newId, newSecret } from '../common/ids.ts';
import { attachableSpace, checkPath, insertSiteSpace, loadStructure } from './site-structure.ts';
import { EMPTY_ADAPTIVE_SCHEMA, getSiteRow, manageableSite, organizationSites, type SiteAccess } from './sites.ts';
import { insertSpace, type SpaceRow } from './spaces.ts';

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
