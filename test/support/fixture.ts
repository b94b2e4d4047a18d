// The fixture most server tests start from: organization `acme` with one user per role (their token is their
// id), a guest, and organization `globex` whose admin must see nothing of acme.
import type { SeedFixture } from '../../server/seed.ts';

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
