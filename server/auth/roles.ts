// Roles, from most to least privileged, and the caller's role in an organization. `null` is a guest: a member
// without a role. Not being a member at all is `undefined`: such callers see nothing of the organization (404).
import type { Model } from '../common/contract.ts';
import { parseEnum } from '../store/enums.ts';
import type { Db } from '../store/db.ts';
import * as members from '../store/members.ts';

export type Role = Model<'Role'>;

/** The rank of each role of the contract: 6 for admin down to 1 for read (a guest ranks 0). */
export const ROLE_RANKS = { admin: 6, create: 5, review: 4, edit: 3, comment: 2, read: 1 } satisfies Record<Role, number>;

/**
 * The default role an organization or a SAML provider gives members who join (`default_role`), as stored: a role, or
 * `guest` for none; with its rank (see `rank`).
 */
export const DEFAULT_ROLE_RANKS = { ...ROLE_RANKS, guest: 0 } satisfies Record<Role | 'guest', number>;

/** The roles, most privileged first. */
export const ROLES: readonly Role[] = (Object.keys(ROLE_RANKS) as Role[]).sort((a, b) => ROLE_RANKS[b] - ROLE_RANKS[a]);

/** 6 for admin down to 1 for read; 0 for a guest. */
export const rank = (role: Role | null | undefined): number => (role ? ROLE_RANKS[role] : 0);

/** Whether `role` is at least `needed`. */
export const atLeast = (role: Role | null | undefined, needed: Role): boolean => rank(role) >= rank(needed);

/** The higher of two roles. */
export const higher = (a: Role | null | undefined, b: Role | null | undefined): Role | null =>
  (rank(a) >= rank(b) ? a : b) ?? null;

export interface Membership {
  organizationId: string;
  role: Role | null;
  disabled: boolean;
}

/** The caller's membership of an organization, or undefined when not a member (or disabled). */
export async function membershipOf(db: Db, userId: string, organizationId: string): Promise<Membership | undefined> {
  return membershipFrom(await members.roleOf(db, organizationId, userId), organizationId);
}

/**
 * For one operation's requests: starts reading the caller's memberships when a request's unit of work begins
 * (`before`), before anything asks, so that on PostgreSQL they leave with its first statement and every
 * `membershipOf` of the request is answered from them (store/members.ts; SQLite reads them when first asked for): the
 * membership of `organizationId`, the organization the request's path names, when it names one. Not for an operation
 * whose requests do not ask for them, as learnt at the end of each request's unit of work (`after`).
 */
export function membershipsAhead(): { before(db: Db, userId: string | undefined, organizationId?: string): void; after(db: Db): void } {
  // Unknown until a request ends; once one asked, for good.
  let useful: boolean | undefined;
  return {
    before(db, userId, organizationId) {
      if (useful !== false && userId !== undefined) members.readAhead(db, userId, organizationId);
    },
    after(db) {
      if (members.membershipsAsked(db)) useful = true;
      else useful ??= false;
    },
  };
}

/** The membership a member's row gives (its role and state, read with something else), or undefined. */
export function membershipFrom(row: { role: string | null; disabled: number } | undefined, organizationId: string): Membership | undefined {
  if (!row || row.disabled) return undefined;
  const role = row.role === null ? null : parseEnum(ROLE_RANKS, { table: 'members', column: 'role' }, row.role);
  return { organizationId, role, disabled: false };
}
