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
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  body?: unknown;
}

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
 * Reads of several statements (the organization with the caller's membership, a team with its counts), and writes of
 * other records than a space's or a comment's, each of the same record again and again but the creates (a collection,
 * a change request: a new record each time), as an outside measurement of a small organization sends them.
 */
const OTHER_REQUESTS: BenchRequest[] = [
  { name: 'GET the organization', method: 'GET', path: '/v1/orgs/bench' },
  { name: 'GET a team', method: 'GET', path: '/v1/orgs/bench/teams/bench-team' },
  { name: 'PATCH a team', method: 'PATCH', path: '/v1/orgs/bench/teams/bench-team', body: { title: 'Editors' } },
  { name: 'PATCH a collection', method: 'PATCH', path: '/v1/collections/bench-collection', body: { description: 'How we work' } },
  { name: 'POST a collection', method: 'POST', path: '/v1/orgs/bench/collections', body: { title: 'Bench collection' } },
  { name: 'PATCH the organization', method: 'PATCH', path: '/v1/orgs/bench', body: { title: 'Bench Inc.' } },
  { name: 'POST a change request', method: 'POST', path: '/v1/spaces/bench-space/change-requests', body: { subject: 'Bench change' } },
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

export const headersOf = (request: BenchRequest): Record<string, string> => ({
  authorization: `Bearer ${BENCH_TOKEN}`,
  ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
});
