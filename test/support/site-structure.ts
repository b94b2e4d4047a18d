// What the site-structure tests (test/api/site-*.test.ts, sites.test.ts aside) share: a server whose organization
// acme has a few spaces to put in sites, the addresses of the structure's operations, and the helpers that build a
// site's structure and read it back whole (`outline`).
import { expect } from 'vitest';
import type { RoleUser } from './fixture.ts';
import { ACME, extendFixture } from './fixture.ts';
import { ok } from './expect.ts';
import { useTestServer } from './server.ts';

// `bridge` administers both organizations, to move spaces between them.
const fixture = extendFixture({
  bridge: true,
  acme: {
    spaces: [
      { id: 'guide', title: 'Guide' },
      { id: 'api', title: 'API Reference' },
      { id: 'blog', title: 'Blog' },
      { id: 'faq', title: 'FAQ' },
      { id: 'x', title: 'X' },
    ],
  },
  globex: { spaces: [{ id: 'globex-docs', title: 'Globex Docs' }] },
});

export const SITES = '/v1/orgs/{organizationId}/sites' as const;
export const SECTIONS = '/v1/orgs/{organizationId}/sites/{siteId}/sections' as const;
export const SECTION = '/v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}' as const;
export const SECTION_MOVE = '/v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}/move' as const;
export const SORT = '/v1/orgs/{organizationId}/sites/{siteId}/structure/sort' as const;
export const GROUPS = '/v1/orgs/{organizationId}/sites/{siteId}/section-groups' as const;
export const GROUP = '/v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}' as const;
export const GROUP_SECTIONS = '/v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections' as const;
export const GROUP_SECTION =
  '/v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections/{siteSectionId}' as const;
export const GROUP_MOVE = '/v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/move' as const;
export const SITE_SPACES = '/v1/orgs/{organizationId}/sites/{siteId}/site-spaces' as const;
export const SITE_SPACE = '/v1/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}' as const;
export const SITE_SPACE_MOVE = '/v1/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/move' as const;

/** Path parameters of a site, plus the ids of the item addressed. */
export const at = <Extra extends Record<string, string>>(siteId: string, extra?: Extra) => ({
  params: { path: { organizationId: ACME, siteId, ...(extra as Extra) } },
});

type Visibility = 'public' | 'unlisted' | 'share-link' | 'visitor-auth';

/** Starts the file's server on the fixture above and gives the helpers bound to it. */
export function useSiteStructureServer() {
  const ctx = useTestServer({ fixture });
  const as = (user: RoleUser | 'bridge' | 'anonymous') => ctx.server.as(user as RoleUser);
  const admin = () => as('admin');

  async function newSite(spaces: string[] = [], visibility: Visibility = 'public') {
    return ok(
      await admin().POST(SITES, { params: { path: { organizationId: ACME } }, body: { spaces, visibility } }),
      201,
    ).id;
  }
  async function addSection(siteId: string, spaceId: string, title?: string) {
    return ok(await admin().POST(SECTIONS, { ...at(siteId), body: { spaceId, ...(title ? { title } : {}) } }), 201);
  }
  async function addSiteSpace(siteId: string, spaceId: string, sectionId?: string) {
    return ok(
      await admin().POST(SITE_SPACES, { ...at(siteId), body: { spaceId, ...(sectionId ? { sectionId } : {}) } }),
      201,
    );
  }
  /** Sections on `spaceIds`, added one after the other. */
  async function addSections(siteId: string, spaceIds: string[]) {
    const sections = [];
    for (const spaceId of spaceIds) sections.push(await addSection(siteId, spaceId));
    return sections;
  }
  async function addGroup(siteId: string, title: string, sections: string[] = []) {
    return ok(await admin().POST(GROUPS, { ...at(siteId), body: { title, sections } }), 201);
  }
  const sectionsOf = async (siteId: string, user: RoleUser = 'admin') =>
    ok(await as(user).GET(SECTIONS, at(siteId))).items;
  const siteSpacesOf = async (siteId: string, user: RoleUser = 'admin') =>
    ok(await as(user).GET(SITE_SPACES, at(siteId))).items;
  const groupsOf = async (siteId: string, user: RoleUser = 'admin') => ok(await as(user).GET(GROUPS, at(siteId))).items;

  /**
   * The whole structure, one line per section in order (`*` marks defaults, the group in parentheses), or one line for
   * the root level; also checks that the site-space list agrees with the sections and the groups list.
   */
  async function outline(siteId: string): Promise<string[]> {
    const [sections, siteSpaces, groups] = [await sectionsOf(siteId), await siteSpacesOf(siteId), await groupsOf(siteId)];
    const mark = (item: { default?: boolean }) => (item.default ? '*' : '');
    const spaces = (items: { space: { id: string }; default: boolean }[]) =>
      items.map((item) => `${item.space.id}${mark(item)}`).join(' ');
    const groupTitle = new Map(groups.map((group) => [group.id, group.title]));
    expect(siteSpaces.map((item) => item.id)).toEqual(
      sections.length > 0
        ? sections.flatMap((section) => section.siteSpaces.map((item) => item.id))
        : siteSpaces.map((item) => item.id),
    );
    for (const group of groups) {
      expect(group.sections.map((section) => section.id)).toEqual(
        sections.filter((section) => section.sectionGroup === group.id).map((section) => section.id),
      );
    }
    if (sections.length === 0) return siteSpaces.length > 0 ? [`root: ${spaces(siteSpaces)}`] : [];
    expect(sections.filter((section) => section.default)).toHaveLength(1);
    return sections.map(
      (section) =>
        `${section.path}${mark(section)}${section.sectionGroup ? ` (${groupTitle.get(section.sectionGroup)})` : ''}: ${spaces(section.siteSpaces)}`,
    );
  }

  return { ctx, as, admin, newSite, addSection, addSections, addSiteSpace, addGroup, sectionsOf, siteSpacesOf, groupsOf, outline };
}
