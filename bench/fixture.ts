// What the server benches run on: the seed (an admin with the bench token, a space of 30 pages, 60 more spaces to
// list), and the requests of the throughput and memory parts (throughput.ts); the proxy part (proxy.ts)
// seeds the same.

/** The token of the seed's admin, which every bench request sends. */
export const BENCH_TOKEN = 'bench-token';

/** The benches' seed: an admin with the bench token, a space of 30 pages, 60 more spaces to list. */
export const fixture = {
  users: [{ id: 'bench-admin', displayName: 'Bench Admin', email: 'admin@bench.example', tokens: [BENCH_TOKEN] }],
  organizations: [
    {
      id: 'bench',
      title: 'Bench',
      members: [{ user: 'bench-admin', role: 'admin' }],
      spaces: [
        {
          id: 'bench-space',
          title: 'Handbook',
          pages: Array.from({ length: 30 }, (_, i) => ({
            id: `page-${i}`,
            title: `Page ${i}`,
            markdown: `# Page ${i}\n\nSome text with **emphasis** and a [link](https://example.com).\n\n- one\n- two\n`,
          })),
        },
        ...Array.from({ length: 60 }, (_, i) => ({ id: `listed-${i}`, title: `Listed space ${i}` })),
      ],
      teams: [{ id: 'bench-team', title: 'Writers', members: [{ user: 'bench-admin', role: 'owner' }], spaces: ['bench-space'] }],
      collections: [{ id: 'bench-collection', title: 'Guides' }],
    },
  ],
};

export interface BenchRequest {
  name: string;
  method: 'GET' | 'POST' | 'PATCH' | 'PUT';
  /** Its path; `{made}` stands for the id of the record `made` made on the server it is sent to (`MADE`). */
  path: string;
  body?: unknown;
  /** The request that makes the record `{made}` names, once per server (a comment to edit, to reply to). */
  made?: BenchRequest;
}

/** `{made}` in a request's path (`BenchRequest.made`). */
export const MADE = '{made}';

/** The six main requests (reads and writes of spaces, content and comments), which the memory part cycles through. */
export const MAIN_REQUESTS: BenchRequest[] = [
  { name: 'GET a space', method: 'GET', path: '/v1/spaces/bench-space' },
  { name: 'GET its content (30 pages)', method: 'GET', path: '/v1/spaces/bench-space/content' },
  { name: 'GET a list page (50 spaces)', method: 'GET', path: '/v1/orgs/bench/spaces?limit=50' },
  { name: 'POST a space', method: 'POST', path: '/v1/orgs/bench/spaces', body: { title: 'Bench space' } },
  { name: 'PATCH a space', method: 'PATCH', path: '/v1/spaces/listed-0', body: { title: 'Patched space' } },
  {
    name: 'POST a comment',
    method: 'POST',
    path: '/v1/spaces/bench-space/comments',
    body: { page: 'page-0', body: { markdown: 'Is this **right**?' } },
  },
];

/**
 * Reads of several statements (the organization with the caller's membership, a team with its counts), writes of
 * other records than a space's or a comment's, each of the same record again and again but the creates (a collection,
 * a change request, a team: a new record each time), as an outside measurement of a small organization sends them,
 * and the edit of a comment and a reply to it (one comment, made on each server first).
 */
const OTHER_REQUESTS: BenchRequest[] = [
  { name: 'GET the organization', method: 'GET', path: '/v1/orgs/bench' },
  { name: 'GET a team', method: 'GET', path: '/v1/orgs/bench/teams/bench-team' },
  { name: 'PATCH a team', method: 'PATCH', path: '/v1/orgs/bench/teams/bench-team', body: { title: 'Editors' } },
  { name: 'PATCH a collection', method: 'PATCH', path: '/v1/collections/bench-collection', body: { description: 'How we work' } },
  { name: 'POST a collection', method: 'POST', path: '/v1/orgs/bench/collections', body: { title: 'Bench collection' } },
  { name: 'PATCH the organization', method: 'PATCH', path: '/v1/orgs/bench', body: { title: 'Bench Inc.' } },
  { name: 'POST a change request', method: 'POST', path: '/v1/spaces/bench-space/change-requests', body: { subject: 'Bench change' } },
  { name: 'PUT a team', method: 'PUT', path: '/v1/orgs/bench/teams', body: { title: 'Bench team' } },
  { name: 'PUT a comment', method: 'PUT', path: `/v1/spaces/bench-space/comments/${MADE}`, body: { body: { markdown: 'Is this **right** now?' } }, made: MAIN_REQUESTS[5] },
  { name: 'POST a reply', method: 'POST', path: `/v1/spaces/bench-space/comments/${MADE}/replies`, body: { body: { markdown: 'It is.' } }, made: MAIN_REQUESTS[5] },
];

/**
 * The throughput part's requests: the six, and two more reads of the same content, each answered by an operation of
 * its own (its parameters, its answer's schema): one page, as stored (markdown) and as a document (its tree).
 */
export const REQUESTS: BenchRequest[] = [
  ...MAIN_REQUESTS,
  { name: 'GET a page', method: 'GET', path: '/v1/spaces/bench-space/content/page/page-3' },
  { name: 'GET a page as a document', method: 'GET', path: '/v1/spaces/bench-space/content/page/page-3?format=document' },
  ...OTHER_REQUESTS,
];

/** The guard part's requests on SQLite: those whose cost the request path sets (a read of one record, of a tree, a list page, and writes). */
const GUARDED_SQLITE = ['GET a space', 'GET its content (30 pages)', 'GET a list page (50 spaces)', 'POST a space', 'PATCH a space', 'POST a comment'];
/**
 * The guard part's requests on PostgreSQL: two reads (one statement, and several with the caller's membership) and
 * the writes, whose cost there is their round trips and the statements they send.
 */
const GUARDED_POSTGRES = [
  'GET a space',
  'GET the organization',
  ...REQUESTS.filter((request) => request.method !== 'GET').map((request) => request.name),
];

/**
 * The guard part's requests on each engine, among those `names` names: unnamed, SQLite's set and PostgreSQL's; named
 * (BENCH_REQUESTS), a write on both engines, so that a change to one write is judged on each.
 */
export function guardedRequests(names?: readonly string[]): { sqlite: BenchRequest[]; postgres: BenchRequest[] } {
  const among = (list: string[]) => REQUESTS.filter((request) => list.includes(request.name) && (names === undefined || names.includes(request.name)));
  const writes = REQUESTS.filter((request) => request.method !== 'GET').map((request) => request.name);
  return { sqlite: among(names === undefined ? GUARDED_SQLITE : [...GUARDED_SQLITE, ...writes]), postgres: among(GUARDED_POSTGRES) };
}

export const headersOf = (request: BenchRequest): Record<string, string> => ({
  authorization: `Bearer ${BENCH_TOKEN}`,
  ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
});

/** Per server, the id of the record each `BenchRequest.made` made there, made once. */
const madeOn = new WeakMap<object, Map<BenchRequest, Promise<string>>>();

/**
 * `to` answers as `from` did (Express answering `from`'s recorded bytes): its `{made}` are `from`'s records, whose ids
 * the recorded paths hold.
 */
export function madeAs<Target extends object>(from: object, to: Target): Target {
  const made = madeOn.get(from);
  if (made !== undefined) madeOn.set(to, made);
  return to;
}

/** `request`'s path on `target`: `{made}` replaced by the id of the record its `made` request made there. */
export async function pathOn(target: { url: string }, request: BenchRequest): Promise<string> {
  const maker = request.made;
  if (maker === undefined) return request.path;
  let made = madeOn.get(target);
  if (made === undefined) madeOn.set(target, (made = new Map()));
  let id = made.get(maker);
  if (id === undefined) {
    id = fetch(`${target.url}${maker.path}`, { method: maker.method, headers: headersOf(maker), body: JSON.stringify(maker.body) }).then(async (response) => {
      const text = await response.text();
      if (!response.ok) throw new Error(`${maker.method} ${maker.path} (for ${request.name}): ${response.status} ${text}`);
      return (JSON.parse(text) as { id: string }).id;
    });
    made.set(maker, id);
  }
  return request.path.replace(MADE, await id);
}
