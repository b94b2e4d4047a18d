// Seeding: the fixture of SEED_FILE (users, tokens, organizations, memberships, teams, spaces with pages), and
// the demo organization an empty database gets. The fixture format is documented in server/docs/seed-file.md.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { StartupError } from '../common/config.ts';
import { parse } from 'yaml';
import { loadContract } from '../http/contract.ts';
import { seedChecker } from './seed-schema.ts';
import { issueToken } from '../auth/caller.ts';
import { ROLES } from '../auth/roles.ts';
import { insertSpace, SPACE_VISIBILITIES } from '../domain/spaces.ts';
import { TEAM_ROLES } from '../domain/teams.ts';
import type { Scope } from '../context/context.ts';
import type { StoredPage } from '../content/model.ts';
import { emptyContent } from '../content/model.ts';
import { anchorOf } from '../content/search.ts';
import { newId, newSecret } from '../common/ids.ts';
import * as collections from '../store/collections.ts';
import { toJson } from '../store/db.ts';
import * as members from '../store/members.ts';
import * as organizations from '../store/organizations.ts';
import * as spaces from '../store/spaces.ts';
import * as teams from '../store/teams.ts';
import * as users from '../store/users.ts';
import type { SeedFixture, SeedPage } from './seed-format.ts';

export type { SeedFixture, SeedPage } from './seed-format.ts';

/** A SEED_FILE that cannot be applied (or cannot receive DOCS_API_TOKEN); the message names the file or the record. */
export class SeedError extends StartupError {}

/**
 * A seed file read and checked against the contract. Its errors start with `given`, how the user named it (`SEED_FILE
 * seed.yaml` by default; main.ts names the flag or the harness's option), then the path it resolves to when that is
 * not what was given: `SEED_FILE seed.yaml (/srv/docs/seed.yaml): no such file`.
 */
export function readSeedFile(file: string, given = `SEED_FILE ${file}`): SeedFixture {
  const resolved = path.resolve(file);
  const where = resolved === file ? given : `${given} (${resolved})`;
  let text: string;
  try {
    text = readFileSync(resolved, 'utf8');
  } catch (error) {
    throw new SeedError(`${where}: ${unreadable(error as NodeJS.ErrnoException)}`);
  }
  let fixture: unknown;
  try {
    fixture = parseSeed(text);
  } catch (error) {
    throw new SeedError(`${where}: ${(error as Error).message}`);
  }
  return checkSeed(fixture, where);
}

/** Why a seed file cannot be read, in words. */
function unreadable(error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT') return 'no such file';
  if (error.code === 'EACCES' || error.code === 'EPERM') return 'not readable by this process (permission denied)';
  if (error.code === 'EISDIR') return 'a folder, not a file';
  return error.message;
}

/**
 * A seed (a SEED_FILE's content, or the seed object the test harness gives in its place) checked against the
 * contract, every record and field, before anything is stored (seed-schema.ts); `where` starts the error's line.
 */
export function checkSeed(fixture: unknown, where: string): SeedFixture {
  if (typeof fixture !== 'object' || fixture === null || Array.isArray(fixture)) throw new SeedError(`${where}: not an object`);
  const problem = seedChecker(loadContract())(fixture);
  if (problem !== undefined) throw new SeedError(`${where}: ${problem}`);
  return fixture as SeedFixture;
}

/**
 * A seed file's text as YAML, or as JSON when it is JSON (YAML 1.2 holds JSON, and gives the same values): `yaml`
 * reads a large seed far slower than JSON.parse, and with far more heap, at every start (docs/performance.md, "Seeds
 * read as JSON"). Text that opens like JSON but is not (YAML's flow style, or a mistake) is read as YAML, which names what is
 * wrong. A key repeated in a JSON object keeps its last value, as JSON readers do; YAML refuses it.
 */
function parseSeed(text: string): unknown {
  if (/^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      // Not JSON: YAML's flow style, or an error YAML describes.
    }
  }
  return parse(text);
}

/** Builds stored pages from fixture pages, with slugs and ids. */
export function seedPages(pages: SeedPage[] | undefined, now: string): StoredPage[] {
  return (pages ?? []).map((page) => ({
    id: page.id ?? newId(),
    title: page.title,
    slug: page.slug ?? (anchorOf(page.title) || 'page'),
    type: page.pages?.length && page.markdown === undefined ? 'group' : 'document',
    ...(page.description ? { description: page.description } : {}),
    markdown: page.markdown ?? '',
    createdAt: now,
    updatedAt: now,
    pages: seedPages(page.pages, now),
  }));
}

/**
 * Applies a fixture. Records whose id already exists are left as they are, so a fixture can be applied at every
 * start. Runs inside the caller's transaction.
 */
export async function applyFixture(ctx: Scope, fixture: SeedFixture): Promise<void> {
  const { db } = ctx;
  const now = ctx.now();

  for (const user of fixture.users ?? []) {
    const id = user.id ?? newId();
    if (!(await users.exists(db, id))) {
      await users.insert(db, { id, displayName: user.displayName, email: user.email ?? null, photoUrl: user.photoURL ?? null, createdAt: now });
    }
    for (const token of user.tokens ?? []) await issueToken(ctx, id, now, token, 'seed');
  }
  const userId = async (ref: string, where: string) => {
    if (!(await users.exists(db, ref))) throw new SeedError(`${where}: no user ${ref}`);
    return ref;
  };

  for (const org of fixture.organizations ?? []) {
    const orgId = org.id ?? newId();
    if (!(await organizations.exists(db, orgId))) {
      await organizations.insert(db, { id: orgId, title: org.title, createdAt: now, type: org.type ?? 'business', emailDomains: toJson(org.emailDomains ?? []) });
    }
    for (const member of org.members ?? []) {
      const role = member.role === undefined ? 'read' : member.role;
      if (role !== null && !ROLES.includes(role)) throw new SeedError(`organization ${orgId}: unknown role ${role}`);
      await members.insertIfMissing(db, { organizationId: orgId, userId: await userId(member.user, `organization ${orgId}`), role, joinedAt: now });
    }
    for (const collection of org.collections ?? []) {
      const id = collection.id ?? newId();
      if (await collections.exists(db, id)) continue;
      await collections.insert(db, {
        id,
        organizationId: orgId,
        parentId: collection.parent ?? null,
        title: collection.title,
        description: null,
        defaultLevel: null,
        position: await collections.nextPositionInOrganization(db, orgId),
        createdAt: now,
      });
    }
    for (const space of org.spaces ?? []) {
      if (space.id && (await spaces.exists(db, space.id))) continue;
      const content = { ...emptyContent(), pages: seedPages(space.pages, now) };
      await insertSpace(
        ctx,
        {
          id: space.id,
          organizationId: orgId,
          title: space.title,
          ...(space.parent ? { parent: space.parent } : {}),
          visibility: seedEnum(SPACE_VISIBILITIES, space.visibility, `space ${space.id ?? space.title}: visibility`),
        },
        content,
      );
    }
    for (const team of org.teams ?? []) {
      const id = team.id ?? newId();
      if (!(await teams.exists(db, id))) await teams.insert(db, { id, organizationId: orgId, title: team.title, createdAt: now });
      for (const member of team.members ?? []) {
        await teams.addMember(db, id, await userId(member.user, `team ${id}`), seedEnum(TEAM_ROLES, member.role, `team ${id}: role`) ?? 'member');
      }
      for (const spaceId of team.spaces ?? []) await teams.addSpace(db, id, spaceId);
    }
  }
}

export const DEMO_ADMIN_ID = 'demo-admin';
export const DEMO_ORGANIZATION_ID = 'demo';

export interface SeedResult {
  /** A token created for the demo admin of a new demo organization when DOCS_API_TOKEN is unset. */
  createdToken?: string;
  /** Who DOCS_API_TOKEN was registered for, as a user id and the organization that made them the choice. */
  tokenFor?: { user: string; organization: string };
  /** Why DOCS_API_TOKEN was not registered, in one line (for a warning). */
  tokenNotRegistered?: string;
}

/**
 * An empty database (no organization once SEED_FILE and the fixtures are applied) gets a demo organization and its
 * admin. Then DOCS_API_TOKEN (`apiToken`), when set, is registered (again at every start, so that it keeps working)
 * for:
 * - the first member with role `admin` of the first organization of SEED_FILE (`seedFile`), when SEED_FILE lists
 *   organizations; an organization without one stops the start, saying so;
 * - otherwise the demo admin.
 * Without DOCS_API_TOKEN, a new demo admin gets a random token, returned once for the caller to print.
 */
export async function seedDemo(ctx: Scope, apiToken: string | undefined, seedFile?: SeedFixture): Promise<SeedResult> {
  const empty = !(await organizations.any(ctx.db));
  if (empty) {
    await applyFixture(ctx, {
      users: [{ id: DEMO_ADMIN_ID, displayName: 'Demo Admin', email: 'admin@demo.example' }],
      organizations: [
        {
          id: DEMO_ORGANIZATION_ID,
          title: 'Demo organization',
          emailDomains: ['demo.example'],
          members: [{ user: DEMO_ADMIN_ID, role: 'admin' }],
          spaces: [
            {
              title: 'Getting started',
              pages: [
                {
                  title: 'Welcome',
                  markdown: '# Welcome\n\nThis space was created with the demo organization.\n\n## Next steps\n\nCreate spaces, sites and change requests through the API.\n',
                },
              ],
            },
          ],
        },
      ],
    });
  }
  if (!apiToken) {
    return empty ? { createdToken: await issueToken(ctx, DEMO_ADMIN_ID, ctx.now(), newSecret(), 'generated') } : {};
  }
  const first = seedFile?.organizations?.[0];
  if (first) {
    const name = first.id ?? first.title;
    const admin = first.members?.find((member) => member.role === 'admin');
    if (!admin) {
      throw new SeedError(
        `DOCS_API_TOKEN cannot be registered: the first organization of SEED_FILE (${name}) has no member with role admin. ` +
          'Add one (members: [{ user: <id>, role: admin }]), or unset DOCS_API_TOKEN and use the tokens of the seed file.',
      );
    }
    await issueToken(ctx, admin.user, ctx.now(), apiToken, 'DOCS_API_TOKEN');
    return { tokenFor: { user: admin.user, organization: name } };
  }
  if (await users.exists(ctx.db, DEMO_ADMIN_ID)) {
    await issueToken(ctx, DEMO_ADMIN_ID, ctx.now(), apiToken, 'DOCS_API_TOKEN');
    return { tokenFor: { user: DEMO_ADMIN_ID, organization: DEMO_ORGANIZATION_ID } };
  }
  return {
    tokenNotRegistered:
      `DOCS_API_TOKEN is not registered: the database has organizations but no demo admin (${DEMO_ADMIN_ID}), ` +
      'and SEED_FILE lists no organization whose admin could receive it',
  };
}

/** A value of the seed file checked against its enumeration's table (`undefined` stays: the default applies). */
function seedEnum<E extends string>(values: Record<E, unknown>, value: E | undefined, where: string): E | undefined {
  if (value === undefined || (typeof value === 'string' && Object.hasOwn(values, value))) return value;
  throw new SeedError(`${where}: ${JSON.stringify(value)} is not one of ${Object.keys(values).join(', ')}`);
}
