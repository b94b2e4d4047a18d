import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ACME, standardFixture } from '../support/fixture.ts';
import { expectError, ok } from '../support/expect.ts';
import { useTestServer } from '../support/server.ts';

// A PNG header declaring a 2×3 image.
const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
  Buffer.from('IHDR'),
  Buffer.from([0, 0, 0, 2, 0, 0, 0, 3, 8, 6, 0, 0, 0]),
  Buffer.alloc(16, 7),
]);

/** The website imported from: several linked pages under /docs/, and what must not be imported. */
const site = { version: 1, url: '' };
const html = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title} · Acme</title><meta name="description" content="About ${title}"></head>` +
  `<body><nav><a href="/docs/">Docs</a> <a href="/docs/guide/install">Install</a>` +
  `${site.version === 1 ? ' <a href="/docs/faq.html">FAQ</a>' : ''}</nav><main>${body}</main><footer>© Acme</footer></body></html>`;

const pages: Record<string, () => string> = {
  '/docs/': () =>
    html(
      'Acme Docs',
      '<h1>Acme Docs</h1><p>Start with the <a href="guide/install">install guide</a>.</p>' +
        '<p>Also: <a href="/blog/post">our blog</a>, <a href="/docs/slow">a slow page</a>, <a href="/docs/api">the API</a>, ' +
        '<a href="/docs/broken">a broken page</a>.</p><img src="/assets/logo.png" alt="Logo"><img src="/assets/missing.png" alt="Gone">',
    ),
  '/docs/guide/install': () =>
    html(
      'Install',
      '<h1>Install</h1><h2>Requirements</h2><p>You need a <strong>kettle</strong>.</p>' +
        '<p>Back to <a href="../">the docs</a>; see the <a href="../faq.html#q1">FAQ</a>.</p><img src="/assets/logo.png" alt="Logo">',
    ),
  '/docs/faq.html': () =>
    html('FAQ', '<h1>FAQ</h1><h2 id="q1">Why?</h2><table><tr><th>Q</th><th>A</th></tr><tr><td>Why</td><td>Because</td></tr></table>'),
  '/blog/post': () => html('Blog post', '<h1>Blog post</h1><p>Not documentation.</p>'),
};

/** The next request for /held/ waits until the test releases it (see `holdNextPage`). */
let held: { arrive: () => void; released: Promise<void> } | undefined;

/** Holds the next request for /held/: `reached` resolves once the website has it, `release()` answers it. */
function holdNextPage() {
  let arrive!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((resolve) => (arrive = resolve));
  held = { arrive, released: new Promise<void>((resolve) => (release = resolve)) };
  return { reached, release };
}

const sockets = new Set<Socket>();
let website: Server;

beforeAll(async () => {
  website = createServer((req, res) => {
    const path = new URL(req.url!, 'http://x').pathname;
    if (path === '/docs/slow') return; // never answers
    if (path === '/held/' && held) {
      const { arrive, released } = held;
      held = undefined;
      arrive();
      void released.then(() => res.writeHead(200, { 'content-type': 'text/html' }).end(html('Held', '<h1>Held</h1><p>Worth the wait.</p>')));
      return;
    }
    if (path === '/docs/api') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    if (path === '/docs/broken') return void res.writeHead(500, { 'content-type': 'text/html' }).end('<h1>Oops</h1>');
    if (path === '/assets/logo.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    const page = path === '/docs/faq.html' && site.version === 2 ? undefined : pages[path];
    if (!page) return void res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page());
  });
  website.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => website.listen(0, '127.0.0.1', resolve));
  site.url = `http://127.0.0.1:${(website.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => website.close(resolve));
});

const fixture = {
  ...standardFixture,
  organizations: [
    {
      ...standardFixture.organizations![0]!,
      spaces: [
        { id: 'docs', title: 'Docs', pages: [{ id: 'home', title: 'Home', markdown: 'Read the [FAQ](docs/faq) and the [guide](/docs/guide/install).\n' }] },
        { id: 'drafts', title: 'Drafts', pages: [{ id: 'note', title: 'Note', markdown: 'A note.\n' }] },
        { id: 'frozen', title: 'Frozen' },
      ],
    },
    standardFixture.organizations![1]!,
  ],
};

const ctx = useTestServer({ fixture, env: { OUTBOUND_TIMEOUT_MS: '1000' } });

type User = Parameters<typeof ctx.server.as>[0];
const space = (spaceId: string) => ({ params: { path: { spaceId } } });
const cr = (spaceId: string, changeRequestId: string | number) => ({
  params: { path: { spaceId, changeRequestId: String(changeRequestId) } },
});
const importInto = (spaceId: string, body: unknown, user: User = 'editor') =>
  ctx.server.as(user).POST('/v1/spaces/{spaceId}/content/import', { ...space(spaceId), body: body as never });
const importIntoChangeRequest = (spaceId: string, number: number, body: unknown, user: User = 'editor') =>
  ctx.server.as(user).POST('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/import', {
    ...cr(spaceId, number),
    body: body as never,
  });
const revisionOf = async (spaceId: string) => ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space(spaceId))).revision;
const pagesOf = async (spaceId: string) =>
  ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/pages', space(spaceId))).pages;
const pageOf = async (spaceId: string, pageId: string) =>
  ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}', { params: { path: { spaceId, pageId } } }));

describe('POST /v1/spaces/{spaceId}/content/import', () => {
  test('imports the pages under the address prefix into a new revision, nested by path', async () => {
    const before = await revisionOf('docs');
    const result = ok(await importInto('docs', { url: `${site.url}/docs/`, source: 'website' }), 201);
    // Found: 6 pages under /docs/ (the slow, JSON and failing ones are not imported) and 2 images (one missing).
    expect(result).toEqual({ revision: expect.any(String), importedResources: 4, totalResources: 8 });
    expect(await revisionOf('docs')).toBe(result.revision);
    const revision = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content', space('docs')));
    expect(revision.parents).toEqual([before]);

    const pages = await pagesOf('docs');
    expect(pages.map((p) => p.path)).toEqual(['home', 'docs']);
    const docs = pages[1]!;
    expect(docs).toMatchObject({ title: 'Acme Docs', description: 'About Acme Docs', type: 'document' });
    expect(docs.pages.map((p) => [p.path, p.type, p.title])).toEqual([
      ['docs/guide', 'group', 'Guide'],
      ['docs/faq', 'document', 'FAQ'],
    ]);
    expect(docs.pages[0]!.pages.map((p) => [p.path, p.title])).toEqual([['docs/guide/install', 'Install']]);
    expect(JSON.stringify(pages)).not.toContain('Blog post');
  });

  test('converts the content to markdown, with links into the space and images as files', async () => {
    const docs = (await pagesOf('docs'))[1]!;
    const install = await pageOf('docs', docs.pages[0]!.pages[0]!.id);
    expect(install.markdown).toContain('## Requirements');
    expect(install.markdown).toContain('You need a **kettle**.');
    expect(install.markdown).toContain('[the docs](/docs)');
    expect(install.markdown).toContain('[FAQ](/docs/faq#q1)');
    expect(install.markdown).toContain('![Logo](logo.png)');
    expect(install.markdown).not.toContain('© Acme');
    const faq = await pageOf('docs', docs.pages[1]!.id);
    expect(faq.markdown).toContain('| Q | A |');
    const root = await pageOf('docs', docs.id);
    expect(root.markdown).toContain(`[our blog](${site.url}/blog/post)`);
    expect(root.markdown).toContain(`![Gone](${site.url}/assets/missing.png)`);

    const links = ok(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}/links', { params: { path: { spaceId: 'docs', pageId: install.id } } }),
    );
    expect(links.stats.broken.total).toBe(0);
    expect(links.items.map((link) => link.targetReference.kind)).toEqual(['page', 'page', 'file']);
  });

  test('answers 400 naming url when the start page cannot be imported, and changes nothing', async () => {
    const before = await revisionOf('drafts');
    expectError(await importInto('drafts', { url: `${site.url}/docs/slow`, source: 'website' }), 400, 'url', 'within 1000 ms');
    expectError(await importInto('drafts', { url: `${site.url}/docs/api`, source: 'website' }), 400, 'url', 'application/json', 'not an HTML page');
    expectError(await importInto('drafts', { url: `${site.url}/docs/broken`, source: 'website' }), 400, 'url', 'HTTP 500');
    expectError(await importInto('drafts', { url: 'http://127.0.0.1:1/docs/', source: 'website' }), 400, 'url', 'could not be reached');
    expectError(await importInto('drafts', { url: 'not a url', source: 'website' }), 400, 'url');
    expectError(await importInto('drafts', { url: `${site.url}/docs/`, source: 'git' }), 400, 'source');
    expectError(await importInto('drafts', { url: `${site.url}/docs/` }), 400, 'source');
    expect(await revisionOf('drafts')).toBe(before);
    expect((await pagesOf('drafts')).map((p) => p.id)).toEqual(['note']);
  });

  test('a locked space refuses it with 403, and so does a role below edit', async () => {
    ok(await ctx.server.as('admin').PATCH('/v1/spaces/{spaceId}', { ...space('frozen'), body: { editMode: 'locked' } }));
    const before = await revisionOf('frozen');
    expectError(await importInto('frozen', { url: `${site.url}/docs/`, source: 'website' }, 'admin'), 403, 'locked');
    expectError(await importInto('drafts', { url: `${site.url}/docs/`, source: 'website' }, 'commenter'), 403, 'edit');
    expect(await revisionOf('frozen')).toBe(before);
  });

  test('answers 404 for an unknown space, a guest or another organization, and 401 without a token', async () => {
    const body = { url: `${site.url}/docs/`, source: 'website' };
    expectError(await importInto('nope', body), 404);
    expectError(await importInto('drafts', body, 'outsider'), 404);
    expectError(await importInto('drafts', body, 'guest'), 404);
    expectError(await importInto('drafts', body, 'anonymous'), 401);
  });
});

describe('files of a space', () => {
  const file = async () => ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/files', space('docs'))).items[0]!;

  test('GET /content/files lists the imported image once, with its size and dimensions', async () => {
    const list = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/files', space('docs')));
    expect(list.count).toBe(1);
    expect(list.items[0]).toMatchObject({ name: 'logo.png', contentType: 'image/png', size: PNG.length, dimensions: { width: 2, height: 3 } });
  });

  test('the download address serves the bytes with their type; a tampered one is a 404', async () => {
    const { downloadURL } = await file();
    const download = await fetch(downloadURL);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await download.arrayBuffer())).toEqual(PNG);
    expect((await fetch(downloadURL.replace(/sig=.{4}/, 'sig=AAAA'))).status).toBe(404);
  });

  test('GET /content/files/{fileId} returns the file', async () => {
    const listed = await file();
    expect(ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/files/{fileId}', { params: { path: { spaceId: 'docs', fileId: listed.id } } }))).toEqual(listed);
  });

  test('GET /content/files/{fileId}/backlinks lists the pages that show the file', async () => {
    const { id } = await file();
    const docs = (await pagesOf('docs'))[1]!;
    const backlinks = ok(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/files/{fileId}/backlinks', { params: { path: { spaceId: 'docs', fileId: id } } }),
    );
    expect(backlinks.items.map((reference) => [reference.kind, reference.page])).toEqual([
      ['page', docs.id],
      ['page', docs.pages[0]!.pages[0]!.id],
    ]);
    expect(backlinks.items[0]).toMatchObject({ organization: ACME, space: 'docs', versionContext: { type: 'revision', revision: await revisionOf('docs') } });
  });

  test('a template can use a file of the space as a content reference', async () => {
    const { id } = await file();
    const answer = await ctx.server.as('editor').POST('/v1/spaces/{spaceId}/content/template', {
      ...space('docs'),
      body: { id: 'getting-started', params: { contentRefs: { logo: { kind: 'file', file: id } } } },
    });
    expect(answer.response.status).toBe(204);
    const introduction = (await pagesOf('docs')).find((p) => p.slug === 'getting-started')!.pages[0]!;
    expect(introduction.cover).toEqual({ ref: { kind: 'file', file: id } });
    expect((await pageOf('docs', introduction.id)).markdown).toContain('![Logo](logo.png)');
    const backlinks = ok(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/files/{fileId}/backlinks', { params: { path: { spaceId: 'docs', fileId: id } } }),
    );
    expect(backlinks.items.map((reference) => reference.page)).toContain(introduction.id);
  });

  test('answers 400 for an invalid limit, 404 for unknown files, spaces and strangers, 401 without a token', async () => {
    const fileRoute = (fileId: string, spaceId = 'docs') => ({ params: { path: { spaceId, fileId } } });
    expectError(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/files', { params: { path: { spaceId: 'docs' }, query: { limit: 0 } } }), 400, 'limit');
    expectError(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/files/{fileId}', { params: { path: { spaceId: 'docs', fileId: 'x' }, query: { metadata: 'x' as never } } }),
      400,
      'metadata',
    );
    expectError(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/files/{fileId}/backlinks', { params: { path: { spaceId: 'docs', fileId: 'x' }, query: { limit: 0 } } }),
      400,
      'limit',
    );
    expectError(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/files/{fileId}', fileRoute('nope')), 404, 'file nope');
    expectError(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/files/{fileId}/backlinks', fileRoute('nope')), 404, 'file nope');
    expectError(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/files', space('nope')), 404);
    const { id } = await file();
    for (const user of ['outsider', 'guest'] as const) {
      expectError(await ctx.server.as(user).GET('/v1/spaces/{spaceId}/content/files', space('docs')), 404);
      expectError(await ctx.server.as(user).GET('/v1/spaces/{spaceId}/content/files/{fileId}', fileRoute(id)), 404);
      expectError(await ctx.server.as(user).GET('/v1/spaces/{spaceId}/content/files/{fileId}/backlinks', fileRoute(id)), 404);
    }
    expectError(await ctx.server.as('anonymous').GET('/v1/spaces/{spaceId}/content/files', space('docs')), 401);
    expectError(await ctx.server.as('anonymous').GET('/v1/spaces/{spaceId}/content/files/{fileId}', fileRoute(id)), 401);
    expectError(await ctx.server.as('anonymous').GET('/v1/spaces/{spaceId}/content/files/{fileId}/backlinks', fileRoute(id)), 401);
  });
});

describe('importing into a change request', () => {
  let number: number;

  test('creates a revision of the change request only, and records the importer as a contributor', async () => {
    const changeRequest = ok(
      await ctx.server.as('creator').POST('/v1/spaces/{spaceId}/change-requests', { ...space('drafts'), body: { subject: 'Import the docs' } }),
      201,
    );
    number = changeRequest.number;
    const main = await revisionOf('drafts');
    const result = ok(await importIntoChangeRequest('drafts', number, { url: `${site.url}/docs/guide/install`, source: 'website' }), 201);
    expect(result.importedResources).toBeGreaterThan(0);

    const updated = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}', cr('drafts', number)));
    expect(updated.revision).toBe(result.revision);
    const content = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content', cr('drafts', number)));
    expect(content.parents).toEqual([changeRequest.revision]);
    // The prefix of …/docs/guide/install is …/docs/guide/install/: the page imports as `install`.
    expect(content.pages.map((p) => p.path)).toEqual(['note', 'install']);
    expect(await revisionOf('drafts')).toBe(main);
    const contributed = ok(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/change-requests', { params: { path: { spaceId: 'drafts' }, query: { contributor: 'editor' } } }),
    );
    expect(contributed.items.map((item) => item.number)).toEqual([number]);
  });

  test('the files of the change request are read under its content', async () => {
    const files = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/files', cr('drafts', number)));
    expect(files.items.map((f) => f.name)).toEqual(['logo.png']);
    const [logo] = files.items;
    const path = { spaceId: 'drafts', changeRequestId: String(number), fileId: logo!.id };
    expect(ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/files/{fileId}', { params: { path } }))).toEqual(logo);
    const backlinks = ok(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/files/{fileId}/backlinks', { params: { path } }),
    );
    expect(backlinks.count).toBe(1);
    expect(backlinks.items[0]!.versionContext!.revision).toBe(
      ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}', cr('drafts', number))).revision,
    );
    expectError(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/files/{fileId}', { params: { path: { spaceId: 'drafts', fileId: logo!.id } } }), 404);
  });

  test('answers 400 for a bad body or start page, and changes nothing', async () => {
    const before = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}', cr('drafts', number))).revision;
    expectError(await importIntoChangeRequest('drafts', number, { url: `${site.url}/docs/broken`, source: 'website' }), 400, 'url', 'HTTP 500');
    expectError(await importIntoChangeRequest('drafts', number, { url: 'nope', source: 'website' }), 400, 'url');
    expectError(await importIntoChangeRequest('drafts', number, { url: `${site.url}/docs/`, source: 'website', extra: 1 }), 400, 'extra');
    expect(ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}', cr('drafts', number))).revision).toBe(before);
  });

  test('refuses a role below edit with 403 and a closed change request with 409; 404 for unknown ones and strangers; 401 without a token', async () => {
    const body = { url: `${site.url}/docs/`, source: 'website' };
    expectError(await importIntoChangeRequest('drafts', number, body, 'commenter'), 403, 'edit');
    expectError(await importIntoChangeRequest('drafts', 99, body), 404, 'change request 99');
    expectError(await importIntoChangeRequest('nope', number, body), 404);
    expectError(await importIntoChangeRequest('drafts', number, body, 'outsider'), 404);
    expectError(await importIntoChangeRequest('drafts', number, body, 'guest'), 404);
    expectError(await importIntoChangeRequest('drafts', number, body, 'anonymous'), 401);
    ok(await ctx.server.as('creator').PATCH('/v1/spaces/{spaceId}/change-requests/{changeRequestId}', { ...cr('drafts', number), body: { status: 'archived' } }));
    expectError(await importIntoChangeRequest('drafts', number, body), 409, 'archived');
  });

  test('file reads answer 404 for unknown files and strangers, 401 without a token', async () => {
    const path = (fileId: string) => ({ params: { path: { spaceId: 'drafts', changeRequestId: String(number), fileId } } });
    expectError(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/files/{fileId}', path('nope')), 404);
    expectError(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/files/{fileId}/backlinks', path('nope')), 404);
    expectError(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/files', {
        params: { path: { spaceId: 'drafts', changeRequestId: String(number) }, query: { limit: 2000 } },
      }),
      400,
      'limit',
    );
    for (const user of ['outsider', 'guest', 'anonymous'] as const) {
      const status = user === 'anonymous' ? 401 : 404;
      expectError(await ctx.server.as(user).GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/files', cr('drafts', number)), status);
      expectError(await ctx.server.as(user).GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/files/{fileId}', path('nope')), status);
      expectError(
        await ctx.server.as(user).GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/files/{fileId}/backlinks', path('nope')),
        status,
      );
    }
  });
});

describe('importing the site again', () => {
  test('updates the imported pages in place; a page gone from the site is removed and links to it break', async () => {
    const before = (await pagesOf('docs')).find((p) => p.slug === 'docs')!;
    const faqId = before.pages[1]!.id;
    const homeBacklinks = ok(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}/backlinks', { params: { path: { spaceId: 'docs', pageId: faqId } } }),
    );
    expect(homeBacklinks.items.map((reference) => reference.page)).toContain('home');
    const changeRequest = ok(await ctx.server.as('editor').POST('/v1/spaces/{spaceId}/change-requests', { ...space('docs'), body: { subject: 'Keep' } }), 201);

    site.version = 2;
    ok(await importInto('docs', { url: `${site.url}/docs/`, source: 'website' }), 201);
    const after = (await pagesOf('docs')).find((p) => p.slug === 'docs')!;
    expect(after.id).toBe(before.id);
    expect(after.pages.map((p) => p.path)).toEqual(['docs/guide']);
    expect(after.pages[0]!.pages[0]!.id).toBe(before.pages[0]!.pages[0]!.id);

    const home = ok(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}/links', { params: { path: { spaceId: 'docs', pageId: 'home' } } }),
    );
    expect(home.items.map((link) => [link.status, link.targetReference.kind, link.targetReference.url ?? link.targetReference.page])).toEqual([
      ['broken', 'page', 'docs/faq'],
      ['ok', 'page', after.pages[0]!.pages[0]!.id],
    ]);
    // The change request, made before, still has the page: its copy of the link works.
    expect(home.stats).toEqual({ total: 2, broken: { total: 1, changeRequest: 0 } });
    expectError(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}/backlinks', { params: { path: { spaceId: 'docs', pageId: faqId } } }),
      404,
    );
    const old = ok(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/links', {
        params: { path: { spaceId: 'docs', changeRequestId: String(changeRequest.number), pageId: 'home' } },
      }),
    );
    expect(old.items[0]).toMatchObject({ status: 'ok', targetReference: { kind: 'page', page: faqId } });
    expect(old.items[0]!.targetReference.versionContext!.revision).toBe(changeRequest.revision);
  });
});

describe('while an import crawls', () => {
  // A server of its own, whose outbound timeout leaves a held page all the time the test needs.
  const patient = useTestServer({ fixture, env: { OUTBOUND_TIMEOUT_MS: '30000' } });
  const importHere = (spaceId: string, url: string, user: User = 'editor') =>
    patient.server.as(user).POST('/v1/spaces/{spaceId}/content/import', { ...space(spaceId), body: { url, source: 'website' } });
  const revisionHere = async (spaceId: string) => ok(await patient.server.as('admin').GET('/v1/spaces/{spaceId}', space(spaceId))).revision;

  /** `answer`, which must come while the website holds an import's page: a write that queued behind the crawl fails here. */
  async function meanwhile<T>(answer: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('no answer after 10 s while an import crawled: the write waits for the crawl')), 10_000);
    });
    try {
      return await Promise.race([answer, stuck]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Starts an import whose start page the website holds; resolves once the website has the request. */
  async function heldImport(spaceId: string) {
    const page = holdNextPage();
    let settled = false;
    const answer = importHere(spaceId, `${site.url}/held/`).finally(() => (settled = true));
    await page.reached;
    return { answer, release: page.release, settled: () => settled };
  }

  test('other writes are answered meanwhile, and the import lands on the revision that is current once it has fetched', async () => {
    const before = await revisionHere('docs');
    const importing = await heldImport('docs');
    // Both wait for no transaction of the import's: they are answered while the website still holds its page.
    const renamed = ok(await meanwhile(patient.server.as('admin').PATCH('/v1/spaces/{spaceId}', { ...space('drafts'), body: { title: 'Renamed meanwhile' } })));
    const other = ok(await meanwhile(importHere('docs', `${site.url}/docs/guide/install`)), 201);
    expect(importing.settled()).toBe(false);
    expect(renamed.title).toBe('Renamed meanwhile');

    importing.release();
    const result = ok(await importing.answer, 201);
    expect(result.importedResources).toBe(1);
    const content = ok(await patient.server.as('reader').GET('/v1/spaces/{spaceId}/content', space('docs')));
    expect(content.id).toBe(result.revision);
    // On top of the other import, which committed while this one fetched: nothing of either is lost.
    expect(content.parents).toEqual([other.revision]);
    expect(content.pages.map((p) => p.path)).toEqual(['home', 'install', 'held']);
    expect(other.revision).not.toBe(before);
  });

  test('it checks again before it writes: a space locked meanwhile refuses it with 403, and nothing changes', async () => {
    const before = await revisionHere('frozen');
    const importing = await heldImport('frozen');
    ok(await meanwhile(patient.server.as('admin').PATCH('/v1/spaces/{spaceId}', { ...space('frozen'), body: { editMode: 'locked' } })));
    expect(importing.settled()).toBe(false);
    importing.release();
    expectError(await importing.answer, 403, 'locked');
    expect(await revisionHere('frozen')).toBe(before);
    expect((await patient.server.as('reader').GET('/v1/spaces/{spaceId}/content/files', space('frozen'))).data?.items).toEqual([]);
  });

  test('a change request closed meanwhile refuses it with 409', async () => {
    const changeRequest = ok(
      await patient.server.as('creator').POST('/v1/spaces/{spaceId}/change-requests', { ...space('drafts'), body: { subject: 'Held import' } }),
      201,
    );
    const page = holdNextPage();
    const answer = patient.server.as('editor').POST('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/import', {
      ...cr('drafts', changeRequest.number),
      body: { url: `${site.url}/held/`, source: 'website' },
    });
    await page.reached;
    ok(
      await meanwhile(
        patient.server.as('creator').PATCH('/v1/spaces/{spaceId}/change-requests/{changeRequestId}', {
          ...cr('drafts', changeRequest.number),
          body: { status: 'archived' },
        }),
      ),
    );
    page.release();
    expectError(await answer, 409, 'archived');
    const after = ok(await patient.server.as('reader').GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}', cr('drafts', changeRequest.number)));
    expect(after.revision).toBe(changeRequest.revision);
  });
});
