// What the operations part (operations.ts) sends: each operation's example request (`@opExample`), in the ids of the
// examples' world as a server built it, and for a write that a second request would find done (a delete, a move, a
// merge), how to make the fresh record each of its requests acts on, through other operations' examples (`FRESH`).
// More: bench/README.md, "Every operation".
import { contractOperations, loadContract } from '../server/http/contract.ts';
import { operationExamples, type OperationExample } from '../server/http/example-answers.ts';
import { pendingOperations } from '../server/handlers/pending.ts';
import type { SeedFixture } from '../server/start/seed.ts';
import { ADMIN, ADMIN_TOKEN, EXAMPLE_SEED } from '../scripts/example-world/world.ts';

/** The examples the part sends: one per operation the server implements (its first example), reads first. */
export function benchedExamples(only?: readonly string[]): OperationExample[] {
  const document = loadContract();
  const pending = new Set<string>(Object.keys(pendingOperations));
  const first = new Map<string, OperationExample>();
  for (const example of contractOperations(document).flatMap((operation) => operationExamples(document, operation))) {
    if (pending.has(example.operationId) || first.has(example.operationId)) continue;
    if (only !== undefined && !only.includes(example.operationId)) continue;
    first.set(example.operationId, example);
  }
  const all = [...first.values()];
  return [...all.filter((example) => example.method === 'get'), ...all.filter((example) => example.method !== 'get')];
}

/** What a request changes of its example: path parameters, query parameters, body fields (undefined drops one). */
export interface Change {
  path?: Record<string, string>;
  query?: Record<string, unknown>;
  body?: Record<string, unknown>;
}

/** A request as autocannon sends it. */
export interface SentRequest {
  method: string;
  path: string;
  body?: string;
}

/**
 * The request of `example` with `change` applied, in a world's ids: each id of the examples (`ids`: the example's id
 * to the world's) and each outside address (`origins`) replaced by the server's.
 */
export function requestOf(example: OperationExample, world: { ids: Map<string, string>; origins: Map<string, string> }, change: Change = {}): SentRequest {
  const inWorld = <T>(value: T): T => {
    let text = JSON.stringify(value);
    if (text === undefined) return value;
    text = text.replace(/[A-Za-z0-9_-]{16,}/g, (token) => world.ids.get(token) ?? token);
    for (const [origin, served] of world.origins) text = text.replaceAll(origin, served);
    return JSON.parse(text) as T;
  };
  const pathParameters = { ...inWorld(example.parameters.path as Record<string, string>), ...change.path };
  const query = { ...inWorld(example.parameters.query as Record<string, unknown>), ...change.query };
  let path = example.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(pathParameters[name])));
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) search.append(name, String(item));
  }
  if (search.size > 0) path += `?${search}`;
  const body = example.body === undefined ? undefined : { ...inWorld(example.body as Record<string, unknown>), ...change.body };
  return { method: example.method.toUpperCase(), path, ...(body === undefined ? {} : { body: JSON.stringify(body) }) };
}

/** Sends `request` to the server at `url` as the examples' admin; its status and body. */
export async function sendAsAdmin(url: string, request: SentRequest): Promise<{ status: number; text: string }> {
  const response = await fetch(`${url}${request.path}`, {
    method: request.method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(request.body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  return { status: response.status, text: await response.text() };
}

/** How a fresh record is made: through other operations' examples. */
export interface FreshMaker {
  /** Sends the example of `operationId` with `change`, as the admin; the answer's body (undefined for none). */
  send(operationId: string, change?: Change): Promise<{ id: string } | undefined>;
  /** A name this run has not given before, starting with `prefix`. */
  unique(prefix: string): string;
  /** The next member of the bench's own organization (`MEMBERS_ORGANIZATION`), to remove. */
  member(): string;
  /** How many fresh records this maker made for the operation so far (the one being made is that number). */
  readonly made: number;
}

/** The bench's own organization, whose members `removeMember` removes, one each request. */
export const MEMBERS_ORGANIZATION = 'bench-members';

/** What a request of an operation acts on, made fresh for it; the operations not named repeat their example. */
export type Fresh = (make: FreshMaker) => Promise<Change>;

/**
 * How many requests of an operation one measurement may send in all (warm-up included), for the writes whose requests
 * each add to an aggregate the server bounds (server/docs/limits.md): 100 sections and 100 section groups per site
 * (the world's site has 3 and 1), 500 site spaces per site (a section adds one too). Every write is measured on a copy
 * of the world of its own.
 */
export const MOST: Partial<Record<string, number>> = {
  createSiteSection: 90,
  createSiteSectionGroup: 90,
  deleteSiteSectionGroup: 90,
  moveSiteSectionGroup: 90,
  addSiteSectionToGroup: 90,
  removeSiteSectionFromGroup: 90,
  deleteSiteSection: 90,
  moveSiteSection: 90,
  sortSiteStructure: 90,
  createSiteSpace: 400,
  deleteSiteSpace: 400,
  moveSiteSpace: 400,
};

/**
 * The bench's own organizations, each administered by the world's admin, that the SAML providers of
 * `createSamlProvider` and `deleteSamlProvider` go to in turn: an organization holds at most 50.
 */
export const PROVIDER_ORGANIZATIONS = Array.from({ length: 16 }, (_, i) => `bench-saml-${i}`);
/** SAML providers made in each of them before the next is used (the bound is 50). */
const PROVIDERS_EACH = 45;

/** The id of a record made by the example of `operationId`. */
async function made(make: FreshMaker, operationId: string, change?: Change): Promise<string> {
  const answer = await make.send(operationId, change);
  if (answer?.id === undefined) throw new Error(`${operationId} answered no id`);
  return answer.id;
}

/** The organization the next SAML provider goes to (see PROVIDER_ORGANIZATIONS). */
function providerOrganization(make: FreshMaker): string {
  const organization = PROVIDER_ORGANIZATIONS[Math.floor(make.made / PROVIDERS_EACH)];
  if (organization === undefined) throw new Error(`more SAML providers than ${PROVIDER_ORGANIZATIONS.length} organizations hold: lower BENCH_FRESH`);
  return organization;
}

const section = (make: FreshMaker) => made(make, 'createSiteSection');
const group = async (make: FreshMaker) => made(make, 'createSiteSectionGroup', { body: { sections: [await section(make)] } });
const siteSpace = async (make: FreshMaker) => made(make, 'createSiteSpace', { body: { spaceId: await made(make, 'createSpace') } });

/** An integration published under a new name (its first publish names its organization), whose name is returned. */
async function integration(make: FreshMaker): Promise<string> {
  const name = make.unique('bench-board-');
  await make.send('publishIntegration', { path: { integrationName: name }, body: { organization: 'demo' } });
  return name;
}

/**
 * The writes whose second request would act on nothing (the record deleted, moved, merged already) or be refused (a
 * slug taken, a space attached already): each of their requests gets a record of its own, made before the
 * measurement by the examples of the operations that make it. The other writes repeat their example: an update, a
 * create, a request that does its work each time.
 */
export const FRESH: Partial<Record<string, Fresh>> = {
  deleteCollection: async (make) => ({ path: { collectionId: await made(make, 'createCollection') } }),
  moveCollection: async (make) => ({ path: { collectionId: await made(make, 'createCollection', { body: { parent: undefined } }) } }),
  transferCollection: async (make) => ({ path: { collectionId: await made(make, 'createCollection') } }),
  unpublishIntegration: async (make) => ({ path: { integrationName: await integration(make) } }),
  disableIntegrationDevMode: async (make) => {
    const name = await integration(make);
    await make.send('enableIntegrationDevMode', { path: { integrationName: name } });
    return { path: { integrationName: name } };
  },
  installIntegration: async (make) => ({ path: { integrationName: await integration(make) } }),
  removeMember: async (make) => ({ path: { organizationId: MEMBERS_ORGANIZATION, userId: make.member() } }),
  createOpenAPISpec: async (make) => ({ body: { slug: make.unique('inventory-') } }),
  deleteOpenAPISpec: async (make) => {
    const slug = make.unique('inventory-');
    await make.send('createOpenAPISpec', { body: { slug } });
    return { path: { specSlug: slug } };
  },
  createSamlProvider: async (make) => ({ path: { organizationId: providerOrganization(make) } }),
  deleteSamlProvider: async (make) => {
    const organizationId = providerOrganization(make);
    return { path: { organizationId, samlProviderId: await made(make, 'createSamlProvider', { path: { organizationId } }) } };
  },
  deleteSite: async (make) => ({ path: { siteId: await made(make, 'createSite') } }),
  createSiteSectionGroup: async (make) => ({ body: { sections: [await section(make)] } }),
  deleteSiteSectionGroup: async (make) => ({ path: { siteSectionGroupId: await group(make) } }),
  moveSiteSectionGroup: async (make) => ({ path: { siteSectionGroupId: await group(make) } }),
  addSiteSectionToGroup: async (make) => ({ body: { sectionId: await section(make) } }),
  removeSiteSectionFromGroup: async (make) => {
    const sectionId = await section(make);
    await make.send('addSiteSectionToGroup', { body: { sectionId } });
    return { path: { siteSectionId: sectionId } };
  },
  deleteSiteSection: async (make) => ({ path: { siteSectionId: await section(make) } }),
  // The section the example moves is in the group of the one it moves it before: a fresh one joins that group.
  moveSiteSection: async (make) => {
    const sectionId = await section(make);
    await make.send('addSiteSectionToGroup', { body: { sectionId } });
    return { path: { siteSectionId: sectionId } };
  },
  createSiteSpace: async (make) => ({ body: { spaceId: await made(make, 'createSpace') } }),
  deleteSiteSpace: async (make) => ({ path: { siteSpaceId: await siteSpace(make) } }),
  moveSiteSpace: async (make) => ({ path: { siteSpaceId: await siteSpace(make) } }),
  sortSiteStructure: async (make) => ({ body: { item: { type: 'site-section-group', id: await group(make) } } }),
  deleteTeam: async (make) => ({ path: { teamId: await made(make, 'createTeam') } }),
  deleteTranslation: async (make) => ({ path: { translationId: await made(make, 'createTranslation') } }),
  deleteSpace: async (make) => ({ path: { spaceId: await made(make, 'createSpace') } }),
  moveSpace: async (make) => ({ path: { spaceId: await made(make, 'createSpace') } }),
  transferSpace: async (make) => ({ path: { spaceId: await made(make, 'createSpace') } }),
  restoreSpace: async (make) => {
    const spaceId = await made(make, 'createSpace');
    await make.send('deleteSpace', { path: { spaceId } });
    return { path: { spaceId } };
  },
  mergeChangeRequest: async (make) => ({ path: { changeRequestId: await made(make, 'createChangeRequest') } }),
  deleteChangeRequestComment: async (make) => ({ path: { commentId: await made(make, 'createChangeRequestComment') } }),
  deleteChangeRequestCommentReply: async (make) => ({ path: { commentReplyId: await made(make, 'createChangeRequestCommentReply') } }),
  deleteSpaceComment: async (make) => ({ path: { commentId: await made(make, 'createSpaceComment') } }),
  deleteSpaceCommentReply: async (make) => ({ path: { commentReplyId: await made(make, 'createSpaceCommentReply') } }),
};

/** The seed: the examples' world's, an organization whose members `removeMember` removes, and those of the SAML providers. */
export function benchSeed(members: number): SeedFixture {
  const ids = Array.from({ length: members }, (_, i) => `bench-member-${i}`);
  return {
    users: [...(EXAMPLE_SEED.users ?? []), ...ids.map((id) => ({ id, displayName: `Member ${id.slice(13)}`, email: `${id}@bench.example` }))],
    organizations: [
      ...(EXAMPLE_SEED.organizations ?? []),
      { id: MEMBERS_ORGANIZATION, title: 'Bench members', members: [{ user: ADMIN, role: 'admin' }, ...ids.map((user) => ({ user, role: 'read' as const }))] },
      ...PROVIDER_ORGANIZATIONS.map((id) => ({ id, title: id, members: [{ user: ADMIN, role: 'admin' as const }] })),
    ],
  };
}

