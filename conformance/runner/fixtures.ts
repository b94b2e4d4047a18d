// What the runner provides itself, so that an implementation needs nothing but a token: a small website (pages
// linking to each other and an image) for the content imports, an HTTP endpoint used as the integration's
// development tunnel, and a bare Git repository for the Git export and import.
import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import git from 'isomorphic-git';
import { gitHttpHandler } from './git-http.ts';

/** A 2×3 PNG (its header is what implementations read dimensions from). */
export const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
  Buffer.from('IHDR'),
  Buffer.from([0, 0, 0, 2, 0, 0, 0, 3, 8, 6, 0, 0, 0]),
  Buffer.alloc(16, 7),
]);

/** A word the website's pages contain, for the search operations. */
export const SEARCH_WORD = 'kettle';

const page = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head>` +
  `<body><nav><a href="/docs/">Docs</a></nav><main>${body}</main><footer>Conformance fixture</footer></body></html>`;

const PAGES: Record<string, string> = {
  '/docs/': page(
    'Conformance docs',
    '<h1>Conformance docs</h1><p>Start with the <a href="guide">guide</a>, then read the <a href="reference">reference</a>.</p>' +
      '<img src="/assets/logo.png" alt="Logo">',
  ),
  '/docs/guide': page(
    'Guide',
    `<h1>Guide</h1><h2>Requirements</h2><p>You need a <strong>${SEARCH_WORD}</strong> and some water.</p>` +
      '<p>Back to <a href="/docs/">the docs</a>; see the <a href="/docs/reference">reference</a>.</p><img src="/assets/logo.png" alt="Logo">',
  ),
  '/docs/reference': page(
    'Reference',
    '<h1>Reference</h1><table><tr><th>Name</th><th>Value</th></tr><tr><td>water</td><td>1 l</td></tr></table>' +
      '<p>Read the <a href="/docs/guide">guide</a> first.</p>',
  ),
  '/proposal/': page(
    'Proposal',
    '<h1>Proposal</h1><p>A change proposed in a change request, linking to its <a href="details">details</a>.</p><img src="/assets/logo.png" alt="Logo">',
  ),
  '/proposal/details': page('Details', `<h1>Details</h1><p>Boil the ${SEARCH_WORD}.</p>`),
};

export interface TunnelDelivery {
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface LocalFixtures {
  /** Base address of the runner's HTTP server as the implementation reaches it, such as `http://127.0.0.1:41234`. */
  url: string;
  /** Start address of the website imported into spaces. */
  websiteUrl: string;
  /** Start address of the website imported into change requests. */
  proposalUrl: string;
  /** The integration development tunnel. */
  tunnelUrl: string;
  /** Events POSTed to the tunnel. */
  deliveries: TunnelDelivery[];
  /** The bare repository over Git's smart HTTP, when one was given (`gitdir`). */
  gitUrl?: string;
  close(): Promise<void>;
}

/** Where the runner's HTTP server serves its bare repository. */
export const GIT_HTTP_PATH = '/git/repository.git';

/** Starts the runner's HTTP server on `bind` (port 0 unless given); `host` is how the implementation reaches it. */
export async function serveFixtures(options: { host: string; bind?: string; port?: number; gitdir?: string }): Promise<LocalFixtures> {
  const deliveries: TunnelDelivery[] = [];
  const gitHttp = options.gitdir ? gitHttpHandler(options.gitdir, GIT_HTTP_PATH) : undefined;
  const server: Server = createServer(async (req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://fixture').pathname;
    if (gitHttp && (await gitHttp(req, res))) return;
    if (pathname === '/tunnel') {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        deliveries.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405).end();
    if (pathname === '/assets/logo.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    const html = PAGES[pathname] ?? PAGES[`${pathname}/`];
    if (!html) return void res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const bind = options.bind ?? options.host;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, bind, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') && !options.host.startsWith('[') ? `[${options.host}]` : options.host;
  const url = `http://${host}:${port}`;
  return {
    url,
    websiteUrl: `${url}/docs/`,
    proposalUrl: `${url}/proposal/`,
    tunnelUrl: `${url}/tunnel`,
    deliveries,
    ...(options.gitdir ? { gitUrl: `${url}${GIT_HTTP_PATH}` } : {}),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface LocalRepository {
  /** The repository's absolute path (what the Git operations are given as `url`). */
  url: string;
  remove(): void;
}

/** The branch of the runner's repository holding content (the website's pages and image, as Markdown). */
export const CONTENT_REF = 'refs/heads/docs-conformance-content';

/** The content branch's files: a table of contents, three pages linking to each other, the image. */
const CONTENT_FILES: Record<string, string | Buffer> = {
  'SUMMARY.md': '# Summary\n\n* [Conformance docs](README.md)\n* [Guide](guide.md)\n* [Reference](reference.md)\n',
  'README.md': '# Conformance docs\n\nStart with the [guide](guide.md), then read the [reference](reference.md).\n',
  'guide.md':
    `# Guide\n\n## Requirements\n\nYou need a **${SEARCH_WORD}** and some water.\n\n` +
    'Back to [the docs](README.md); see the [reference](reference.md).\n\n![Logo](.gitbook/assets/logo.png)\n',
  'reference.md': '# Reference\n\n| Name | Value |\n| --- | --- |\n| water | 1 l |\n\nRead the [guide](guide.md) first.\n',
  '.gitbook/assets/logo.png': PNG,
};

/** Writes `files` as one commit on `ref` of the bare repository at `gitdir` (no work tree). */
async function commitFiles(gitdir: string, ref: string, files: Record<string, string | Buffer>): Promise<void> {
  const writeTree = async (prefix: string): Promise<string> => {
    const names = Object.keys(files).filter((name) => name.startsWith(prefix)).map((name) => name.slice(prefix.length));
    const entries = [];
    for (const child of [...new Set(names.map((name) => name.split('/')[0]!))].sort()) {
      if (names.includes(child)) {
        const content = files[prefix + child]!;
        const oid = await git.writeBlob({ fs, gitdir, blob: typeof content === 'string' ? Buffer.from(content) : content });
        entries.push({ mode: '100644', path: child, oid, type: 'blob' as const });
      } else {
        entries.push({ mode: '040000', path: child, oid: await writeTree(`${prefix}${child}/`), type: 'tree' as const });
      }
    }
    return git.writeTree({ fs, gitdir, tree: entries });
  };
  const tree = await writeTree('');
  const author = { name: 'docs-conformance', email: 'docs-conformance@docs-conformance.example', timestamp: Math.floor(Date.now() / 1000), timezoneOffset: 0 };
  const commit = await git.writeCommit({ fs, gitdir, commit: { message: 'Conformance content\n', tree, parent: [], author, committer: author } });
  await git.writeRef({ fs, gitdir, ref, value: commit });
}

/**
 * A bare Git repository in a temporary folder, created with isomorphic-git: `main` is unborn; `CONTENT_REF` holds
 * the content a Git import brings when the website import is refused.
 */
export async function createBareRepository(): Promise<LocalRepository> {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-conformance-'));
  const dir = path.join(parent, 'repository.git');
  await git.init({ fs, dir, bare: true, defaultBranch: 'main' });
  await commitFiles(dir, CONTENT_REF, CONTENT_FILES);
  return { url: dir, remove: () => fs.rmSync(parent, { recursive: true, force: true }) };
}
