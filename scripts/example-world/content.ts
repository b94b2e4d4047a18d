// The examples' world, made through the API: content, change requests, comments and Git, with the website and the
// Git server it needs outside the server.
// The story it tells: test/README.md, "The examples' world".
import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import git from 'isomorphic-git';
import { serveWithGitHttpBackend } from '../git-http-backend.ts';
import { IDS, made, type WorldMaker, type WorldPart } from './world.ts';

/** Ids the examples use for the records this part makes. */
const CONTENT_IDS = {
  rateLimitsChangeRequest: '0Vby0wrC00Lae6LYdckyCH',
  deploymentChangeRequest: '0Vby1BWg00i9DtWv5vzAXG',
  rateLimitsPage: '0Vby1R1s00H0QeR6bnhB6N',
  retryAfterFile: '0Vby1R1s01ktxl1Gozo2y1',
  deploymentPage: '0Vby1wKN00vfNS6GOUcBa1',
  dockerPage: '0Vby1wKN01SD5Fshdg5UjH',
  pipelineFile: '0Vby1wKN02qOTrx3T4IRfO',
  nodeVersionsComment: '0Vby2h3W00R46kAff0oGdV',
  nodeVersionsReply: '0Vby2wob00i2uchNTlbePl',
  upgradingComment: '0Vby3CTa00FFWHuZeQzHW7',
  retryAfterComment: '0Vby3Rt1000uazWXE2Lq1n',
  retryAfterReply: '0Vby3hX200Ns4c1B79Ub2Y',
} as const;

/** The website pages are imported from, and the handbook's Git repository. */
const WEBSITE = 'https://www.example.com';
const GIT_SERVER = 'https://git.example.com';
const HANDBOOK_REPOSITORY = `${GIT_SERVER}/demo/developer-handbook.git`;

/** A PNG of `width` × `height` pixels of one colour. */
function png(width: number, height: number, [red, green, blue]: [number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const checksum = Buffer.alloc(4);
    checksum.writeUInt32BE(crc32(Buffer.concat([Buffer.from(type), data])));
    return Buffer.concat([length, Buffer.from(type), data, checksum]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits per channel, RGB
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set([red, green, blue], 1 + x * 3);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const page = (title: string, description: string, main: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title} · Demo</title>` +
  `<meta name="description" content="${description}"></head>` +
  `<body><header><a href="/">Demo</a></header><nav><a href="/deployment/">Deployment</a> <a href="/rate-limits/">Rate limits</a></nav>` +
  `<main>${main}</main><footer>© Demo</footer></body></html>`;

/** The company's website: the pages and images the handbook imports. */
const WEBSITE_FILES: Record<string, { type: string; body: string | Buffer }> = {
  '/deployment/': {
    type: 'text/html; charset=utf-8',
    body: page(
      'Deployment',
      'How a release reaches production.',
      '<h1>Deployment</h1><p>Every release goes through the same pipeline: build, test, then roll out region by region.</p>' +
        '<img src="/deployment/pipeline.png" alt="The deployment pipeline">' +
        '<p>To run the platform on your own machines, see <a href="/deployment/docker">Docker</a>.</p>',
    ),
  },
  '/deployment/docker': {
    type: 'text/html; charset=utf-8',
    body: page(
      'Docker',
      'Run the platform in a container.',
      '<h1>Docker</h1><p>Run the platform in a container:</p><pre><code>docker run -p 3000:3000 demo/platform</code></pre>',
    ),
  },
  '/deployment/pipeline.png': { type: 'image/png', body: png(640, 360, [33, 94, 171]) },
  '/rate-limits/': {
    type: 'text/html; charset=utf-8',
    body: page(
      'Rate limits',
      'How many requests a token may send, and what happens beyond.',
      '<h1>Rate limits</h1><p>Each token may send 100 requests a minute. A request over the limit is answered with ' +
        '<code>429 Too Many Requests</code>.</p><h2>Retry-After</h2><p>A 429 answer carries a <code>Retry-After</code> header: ' +
        'the number of seconds to wait before sending the request again.</p>' +
        '<img src="/rate-limits/retry-after.png" alt="A 429 answer and its Retry-After header">' +
        '<p>Self-hosted deployments set their own limits: see <a href="/deployment/">Deployment</a>.</p>',
    ),
  },
  '/rate-limits/retry-after.png': { type: 'image/png', body: png(480, 270, [214, 69, 65]) },
};

function serveWebsite(req: IncomingMessage, res: ServerResponse): void {
  const file = WEBSITE_FILES[new URL(req.url!, WEBSITE).pathname];
  if (!file) res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
  else res.writeHead(200, { 'content-type': file.type }).end(file.body);
}

/** The folder the Git server serves: made when the world is built, removed when the part closes. */
let gitRoot: string | undefined;

/** An empty bare repository for the handbook, which the world's export fills. */
async function makeRepository(): Promise<void> {
  await removeRepository();
  gitRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'example-world-git-'));
  await git.init({ fs, dir: path.join(gitRoot, new URL(HANDBOOK_REPOSITORY).pathname), bare: true, defaultBranch: 'main' });
}

async function removeRepository(): Promise<void> {
  if (gitRoot) await fs.promises.rm(gitRoot, { recursive: true, force: true });
  gitRoot = undefined;
}

function serveGit(req: IncomingMessage, res: ServerResponse): void {
  if (!gitRoot) res.writeHead(503).end();
  // git http-backend takes pushes from an authenticated user only: the platform's account at the Git server.
  else serveWithGitHttpBackend(req, res, gitRoot, 'docs-platform');
}

const handbook = IDS.handbook;

/** A change request of the handbook made by Ada, with the website's pages under `websitePath` imported into it. */
async function changeRequestWithImport(maker: WorldMaker, exampleId: string, subject: string, websitePath: string): Promise<string> {
  const ada = maker.as('ada');
  const changeRequest = made(await ada.POST('/v1/spaces/{spaceId}/change-requests', { params: { path: { spaceId: handbook } }, body: { subject } }), subject);
  maker.made(exampleId, changeRequest.id);
  made(
    await ada.POST('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/import', {
      params: { path: { spaceId: handbook, changeRequestId: changeRequest.id } },
      body: { url: maker.outside(`${WEBSITE}${websitePath}`), source: 'website' },
    }),
    `the import of ${websitePath} into "${subject}"`,
  );
  return changeRequest.id;
}

/** The ids of the pages and files of a change request's content, by page path and file name. */
async function contentOf(maker: WorldMaker, changeRequestId: string) {
  const revision = made(
    await maker.as().GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content', { params: { path: { spaceId: handbook, changeRequestId } } }),
    'the content of a change request',
  );
  const pages = new Map<string, string>();
  const walk = (list: typeof revision.pages) => list.forEach((item) => (pages.set(item.path, item.id), walk(item.pages)));
  walk(revision.pages);
  const id = (what: string, found: string | undefined) => {
    if (found === undefined) throw new Error(`the examples' world: the change request has no ${what}`);
    return found;
  };
  return {
    page: (pagePath: string) => id(`page ${pagePath}`, pages.get(pagePath)),
    file: (name: string) => id(`file ${name}`, revision.files.find((file) => file.name === name)?.id),
  };
}

/** Where comments are posted: the handbook, or one of its change requests. */
type CommentBase = { spaceId: string; changeRequestId?: string };

/** Posts a comment (on a page, or on the whole) as `by`; records it as `exampleId`. */
async function comment(maker: WorldMaker, base: CommentBase, exampleId: string, by: string, markdown: string, page?: string): Promise<string> {
  const body = { ...(page ? { page } : {}), body: { markdown } };
  const { spaceId, changeRequestId } = base;
  const posted = made(
    changeRequestId === undefined
      ? await maker.as(by).POST('/v1/spaces/{spaceId}/comments', { params: { path: { spaceId } }, body })
      : await maker.as(by).POST('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments', { params: { path: { spaceId, changeRequestId } }, body }),
    `the comment "${markdown}"`,
  );
  return maker.made(exampleId, posted.id);
}

/** Replies to a comment as `by`; records the reply as `exampleId`. */
async function reply(maker: WorldMaker, base: CommentBase, commentId: string, exampleId: string, by: string, markdown: string): Promise<string> {
  const body = { body: { markdown } };
  const { spaceId, changeRequestId } = base;
  const posted = made(
    changeRequestId === undefined
      ? await maker.as(by).POST('/v1/spaces/{spaceId}/comments/{commentId}/replies', { params: { path: { spaceId, commentId } }, body })
      : await maker
          .as(by)
          .POST('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies', { params: { path: { spaceId, changeRequestId, commentId } }, body }),
    `the reply "${markdown}"`,
  );
  return maker.made(exampleId, posted.id);
}

export const contentPart: WorldPart = {
  outside: { [WEBSITE]: serveWebsite, [GIT_SERVER]: serveGit },
  close: removeRepository,

  async build(maker) {
    await makeRepository();
    const ids = CONTENT_IDS;

    // "Document the rate limits": open, made before the deployment guide was merged, so behind the main content.
    const rateLimits = await changeRequestWithImport(maker, ids.rateLimitsChangeRequest, 'Document the rate limits', '/rate-limits/');
    const rateLimitsContent = await contentOf(maker, rateLimits);
    maker.made(ids.rateLimitsPage, rateLimitsContent.page('rate-limits'));
    maker.made(ids.retryAfterFile, rateLimitsContent.file('retry-after.png'));

    // "Add the deployment guide": reviewed and merged by Grace.
    const deployment = await changeRequestWithImport(maker, ids.deploymentChangeRequest, 'Add the deployment guide', '/deployment/');
    const deploymentContent = await contentOf(maker, deployment);
    maker.made(ids.deploymentPage, deploymentContent.page('deployment'));
    maker.made(ids.dockerPage, deploymentContent.page('deployment/docker'));
    maker.made(ids.pipelineFile, deploymentContent.file('pipeline.png'));
    made(
      await maker.as('grace').POST('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/merge', {
        params: { path: { spaceId: handbook, changeRequestId: deployment } },
      }),
      'the merge of "Add the deployment guide"',
    );

    // Comments on the handbook: a question on the installation page, answered, and a suggestion for the whole handbook.
    const onHandbook = { spaceId: handbook };
    const nodeVersions = await comment(maker, onHandbook, ids.nodeVersionsComment, 'grace', 'Which versions of Node does the command-line tool support?', IDS.installPage);
    await reply(maker, onHandbook, nodeVersions, ids.nodeVersionsReply, 'ada', 'Node 22 and later: I will say so on the page.');
    await comment(maker, onHandbook, ids.upgradingComment, 'ada', 'The handbook needs a page on upgrading between major versions.');

    // Grace's review of "Document the rate limits", and Ada's answer.
    const onRateLimits = { spaceId: handbook, changeRequestId: rateLimits };
    const retryAfter = await comment(
      maker,
      onRateLimits,
      ids.retryAfterComment,
      'grace',
      'Should this page say how long a client waits when the answer has no `Retry-After` header?',
      rateLimitsContent.page('rate-limits'),
    );
    await reply(maker, onRateLimits, retryAfter, ids.retryAfterReply, 'ada', 'Yes: one second, doubling on each retry. I will add it under **Retry-After**.');

    // The handbook, exported to its Git repository: from now on synchronised with it.
    const exported = await maker.as().POST('/v1/spaces/{spaceId}/git/export', {
      params: { path: { spaceId: handbook } },
      body: { url: maker.outside(HANDBOOK_REPOSITORY), ref: 'refs/heads/main', commitMessage: 'Publish the developer handbook' },
    });
    if (exported.response.status !== 204) throw new Error(`the examples' world: the export of the handbook was refused (${exported.response.status})`);
    await maker.settled();
    // The export runs in the background: it succeeded when the space's Git info names the repository.
    const info = made(await maker.as().GET('/v1/spaces/{spaceId}/git/info', { params: { path: { spaceId: handbook } } }), 'the Git info of the handbook');
    if (info.url !== maker.outside(HANDBOOK_REPOSITORY)) throw new Error(`the examples' world: the export of the handbook failed (Git info ${JSON.stringify(info)})`);
  },
};
