// The fixture most server tests start from: organization `acme` with one user per role (their token is their
// id), a guest, and organization `globex` whose admin must see nothing of acme.
import type { StoredPage } from '../../server/content/model.ts';
import type { SeedFixture } from '../../server/start/seed.ts';

export const ROLE_USERS = ['admin', 'creator', 'reviewer', 'editor', 'commenter', 'reader', 'guest'] as const;
export type RoleUser = (typeof ROLE_USERS)[number] | 'outsider';

export const ACME = 'acme';
export const GLOBEX = 'globex';

const roleOf = {
  admin: 'admin',
  creator: 'create',
  reviewer: 'review',
  editor: 'edit',
  commenter: 'comment',
  reader: 'read',
  guest: null,
} as const;

export const standardFixture: SeedFixture = {
  users: [
    ...ROLE_USERS.map((name) => ({
      id: name,
      displayName: `${name[0]!.toUpperCase()}${name.slice(1)} User`,
      email: `${name}@acme.test`,
      tokens: [name],
    })),
    { id: 'outsider', displayName: 'Globex Admin', email: 'admin@globex.test', tokens: ['outsider'] },
  ],
  organizations: [
    {
      id: ACME,
      title: 'Acme',
      emailDomains: ['acme.test'],
      members: ROLE_USERS.map((name) => ({ user: name, role: roleOf[name] })),
    },
    { id: GLOBEX, title: 'Globex', emailDomains: ['globex.test'], members: [{ user: 'outsider', role: 'admin' }] },
  ],
};

type OrganizationFixture = NonNullable<SeedFixture['organizations']>[number];
type Additions = Pick<OrganizationFixture, 'members' | 'collections' | 'spaces' | 'teams'>;

/**
 * The standard fixture with more: users, records added to acme and globex, other organizations, and, with
 * `bridge`, a user `bridge` who administers both acme and globex (to move things between them).
 */
export function extendFixture(extra: {
  users?: SeedFixture['users'];
  acme?: Additions;
  globex?: Additions;
  organizations?: OrganizationFixture[];
  bridge?: boolean;
}): SeedFixture {
  const bridge = extra.bridge ? [{ user: 'bridge', role: 'admin' as const }] : [];
  const add = (organization: OrganizationFixture, additions: Additions = {}): OrganizationFixture => ({
    ...organization,
    members: [...(organization.members ?? []), ...bridge, ...(additions.members ?? [])],
    collections: [...(organization.collections ?? []), ...(additions.collections ?? [])],
    spaces: [...(organization.spaces ?? []), ...(additions.spaces ?? [])],
    teams: [...(organization.teams ?? []), ...(additions.teams ?? [])],
  });
  const [acme, globex] = standardFixture.organizations!;
  return {
    users: [
      ...standardFixture.users!,
      ...(extra.bridge ? [{ id: 'bridge', displayName: 'Bridge Admin', email: 'bridge@acme.test', tokens: ['bridge'] }] : []),
      ...(extra.users ?? []),
    ],
    organizations: [add(acme!, extra.acme), add(globex!, extra.globex), ...(extra.organizations ?? [])],
  };
}

/** A document page as a revision stores it, for tests that write contents directly (its slug is its id). */
export const storedPage = (id: string, title: string, markdown: string, pages: StoredPage[] = []): StoredPage => ({
  id,
  title,
  slug: id,
  type: 'document',
  markdown,
  createdAt: '2026-03-01T09:00:00.000Z',
  updatedAt: '2026-03-01T09:00:00.000Z',
  pages,
});
