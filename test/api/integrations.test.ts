import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import LZString from 'lz-string';
import { afterAll, describe, expect, test } from 'vitest';
import type { components } from '../../generated/schema.d.ts';
import { ACME, extendFixture, GLOBEX, type RoleUser } from '../support/fixture.ts';
import { expectError, ok } from '../support/expect.ts';
import { useTestServer } from '../support/server.ts';
import { sql } from 'kysely';

type PublishBody = components['schemas']['PublishIntegrationRequest'];

const fixture = extendFixture({
  users: [{ id: 'multi', displayName: 'Multi User', email: 'multi@acme.test', tokens: ['multi'] }],
  acme: {
    members: [{ user: 'multi', role: 'create' }],
    spaces: [
      { id: 'handbook', title: 'Handbook' },
      { id: 'roadmap', title: 'Roadmap' },
    ],
  },
  globex: { members: [{ user: 'multi', role: 'create' }], spaces: [{ id: 'globex-docs', title: 'Globex docs' }] },
});

// On disk, so that the server can be restarted with its data; a fixed public address keeps `urls` stable across it.
const dataDir = mkdtempSync(path.join(tmpdir(), 'integrations-'));
const PUBLIC_URL = 'http://docs.test';
const ctx = useTestServer({ fixture, dataDir, env: { PUBLIC_URL } });
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
/** Fixture users, plus `multi`, a member of both organizations. */
type Who = RoleUser | 'anonymous' | 'multi';
const as = (user: Who) => ctx.server.as(user as RoleUser);
const named = (integrationName: string) => ({ params: { path: { integrationName } } });
const idle = () => ctx.server.running.ctx.jobs.idle();

const publish = (user: Who, name: string, body: PublishBody) =>
  as(user).POST('/v1/integrations/{integrationName}', { ...named(name), body });
const get = (user: Who, name: string) => as(user).GET('/v1/integrations/{integrationName}', named(name));
const install = (user: Who, name: string, organization: string) =>
  as(user).POST('/v1/integrations/{integrationName}/installations', { ...named(name), body: { organization } });
const installations = (user: Who, name: string, externalId?: string) =>
  as(user).GET('/v1/integrations/{integrationName}/installations', {
    params: { path: { integrationName: name }, query: externalId ? { externalId } : {} },
  });
const events = (user: Who, name: string) => as(user).GET('/v1/integrations/{integrationName}/events', named(name));
const getEvent = (user: Who, name: string, eventId: string) =>
  as(user).GET('/v1/integrations/{integrationName}/events/{eventId}', { params: { path: { integrationName: name, eventId } } });
// The generated type demands `all` (it has a default); the contract makes it optional, and these tests omit it too.
const enableDev = (user: Who, name: string, body: { tunnelUrl: string; all?: boolean }) =>
  as(user).PUT('/v1/integrations/{integrationName}/dev', { ...named(name), body: body as { tunnelUrl: string; all: boolean } });
const disableDev = (user: Who, name: string) => as(user).DELETE('/v1/integrations/{integrationName}/dev', named(name));
const render = (user: Who, name: string, request: string) =>
  as(user).GET('/v1/integrations/{integrationName}/render', { params: { path: { integrationName: name }, query: { request } } });
const encode = (value: unknown) => LZString.compressToEncodedURIComponent(JSON.stringify(value));

// A 1×1 PNG.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

const FULL: PublishBody = {
  runtime: 'v1',
  icon: PNG,
  title: 'Status board',
  description: 'Shows the status of services.',
  summary: '# Status board\n\nEmbeds **live** status.',
  previewImages: [PNG],
  visibility: 'public',
  target: 'space',
  scopes: ['space:views:read', 'space:content:read'],
  categories: ['analytics'],
  blocks: [
    {
      id: 'status',
      title: 'Service status',
      description: 'Status of one service',
      icon: 'gauge',
      urlUnfurl: ['https://*.statuspage.example/**'],
      markdown: { codeblock: 'status', body: 'Service **{{props.service}}** is {{ props.state.label }}.' },
    },
  ],
  contentSources: [{ id: 'incidents', title: 'Incidents', configuration: { componentId: 'configure-incidents' } }],
  externalLinks: [{ url: 'https://status.example/docs', label: 'Documentation' }],
  configurations: {
    account: {
      properties: { apiKey: { type: 'string', title: 'API key' }, region: { type: 'string', enum: ['eu', 'us'], default: 'eu' } },
      required: ['apiKey'],
    },
  },
  script: 'export default { fetch() { return new Response("sentinel-script") } }',
  organization: ACME,
  secrets: { API_TOKEN: 'sentinel-secret' },
  contentSecurityPolicy: "script-src 'self' https://cdn.status.example",
};

/** A helper HTTP server on 127.0.0.1 standing for an integration behind a development tunnel. */
interface Tunnel {
  url: string;
  received: { headers: IncomingHttpHeaders; body: Record<string, unknown> }[];
  close(): Promise<void>;
}
const tunnels: Server[] = [];
async function startTunnel(answer: (body: Record<string, unknown>) => { status: number; body?: unknown }): Promise<Tunnel> {
  const received: Tunnel['received'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>;
      received.push({ headers: req.headers, body });
      const reply = answer(body);
      res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply.body ?? {}));
    });
  });
  tunnels.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/events`, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
afterAll(async () => {
  await Promise.all(tunnels.filter((server) => server.listening).map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('POST /v1/integrations/{integrationName} (publish)', () => {
  test('creates an integration with every field of the body, and reads back the same', async () => {
    const created = ok(await publish('creator', 'status-board', FULL));
    expect(created).toMatchObject({
      object: 'integration',
      name: 'status-board',
      version: 1,
      title: 'Status board',
      description: FULL.description,
      summary: FULL.summary,
      previewImages: [PNG],
      visibility: 'public',
      target: 'space',
      verified: false,
      scopes: FULL.scopes,
      categories: FULL.categories,
      blocks: FULL.blocks,
      contentSources: FULL.contentSources,
      externalLinks: FULL.externalLinks,
      configurations: FULL.configurations,
      contentSecurityPolicy: FULL.contentSecurityPolicy,
      owner: { object: 'organization', id: ACME },
      permissions: { admin: true },
      urls: {
        location: `${PUBLIC_URL}/v1/integrations/status-board`,
        icon: `data:image/png;base64,${PNG}`,
      },
    });
    expect(ok(await get('creator', 'status-board'))).toEqual(created);
  });

  test('never shows the secrets or the script', async () => {
    const answers = [ok(await get('admin', 'status-board')), ok(await as('admin').GET('/v1/integrations'))];
    for (const text of answers.map((answer) => JSON.stringify(answer))) {
      expect(text).not.toContain('sentinel-secret');
      expect(text).not.toContain('sentinel-script');
      expect(text).not.toContain('API_TOKEN');
    }
  });

  test('increments the version on every publish, replacing the fields given and keeping the others', async () => {
    const second = ok(await publish('admin', 'status-board', { title: 'Status board 2', categories: ['monitoring'] }));
    expect(second).toMatchObject({ version: 2, title: 'Status board 2', categories: ['monitoring'], target: 'space', blocks: FULL.blocks });
    const third = ok(await publish('creator', 'status-board', {}));
    expect(third.version).toBe(3);
    expect(ok(await get('reader', 'status-board'))).toMatchObject({ version: 3, title: 'Status board 2', permissions: { admin: false } });
  });

  test('defaults: the title is the name, target all, visibility public, no blocks; the only organization is the owner', async () => {
    const created = ok(await publish('outsider', 'globex-minimal', {}));
    expect(created).toMatchObject({
      name: 'globex-minimal',
      title: 'globex-minimal',
      version: 1,
      target: 'all',
      visibility: 'public',
      blocks: [],
      contentSources: [],
      scopes: [],
      previewImages: [],
      configurations: {},
      owner: { id: GLOBEX },
    });
    expect(created.urls.icon).toBeUndefined();
  });

  test('names the owner by its hostname (subdomain)', async () => {
    ok(await as('outsider').PATCH('/v1/orgs/{organizationId}', { params: { path: { organizationId: GLOBEX } }, body: { hostname: 'globex-hq' } }));
    const created = ok(await publish('multi', 'globex-by-hostname', { organization: 'globex-hq' }));
    expect(created.owner.id).toBe(GLOBEX);
  });

  test('needs `organization` on a first publish by a member of several organizations that may publish', async () => {
    expectError(await publish('multi', 'ambiguous', { title: 'Ambiguous' }), 400, 'organization');
    expectError(await get('multi', 'ambiguous'), 404);
  });

  test('rejects invalid input with 400 naming the field, and changes nothing', async () => {
    const before = ok(await get('admin', 'status-board'));
    const invalid: [PublishBody, string][] = [
      [{ title: 'x'.repeat(129) }, 'title'],
      [{ visibility: 'secret' as never }, 'visibility'],
      [{ title: 'ok', unknown: true } as never, 'unknown'],
      [{ icon: 'not base64!' }, 'icon'],
      [{ previewImages: [PNG, '%%%'] }, 'previewImages[1]'],
      [{ blocks: [FULL.blocks![0]!, FULL.blocks![0]!] }, 'blocks[1].id'],
      [{ blocks: [{ id: 'b', title: 'B', urlUnfurl: ['not a url'] }] }, 'blocks[0].urlUnfurl[0]'],
      [{ configurations: { space: { properties: {}, required: ['missing'] } } }, 'configurations.space.required'],
      [{ organization: 'no-such-organization' }, 'organization'],
      [{ organization: GLOBEX }, 'organization'],
    ];
    for (const [body, field] of invalid) expectError(await publish('admin', 'status-board', body), 400, field);
    expect(ok(await get('admin', 'status-board'))).toEqual(before);
    expectError(await publish('admin', 'bad name!', {}), 400, 'integrationName');
  });

  test('answers 409 when the name belongs to another organization, even to one of its members', async () => {
    expectError(await publish('outsider', 'status-board', { title: 'Mine' }), 409, 'status-board');
    expectError(await publish('multi', 'status-board', { organization: GLOBEX }), 409, 'status-board');
    expect(ok(await get('admin', 'status-board')).version).toBe(3);
  });

  test('needs createContent in the owner organization (403) and a token (401)', async () => {
    expectError(await publish('reader', 'status-board', { title: 'Nope' }), 403);
    expectError(await publish('reader', 'reader-made', { title: 'Nope' }), 403);
    expectError(await publish('reviewer', 'reviewer-made', { organization: ACME }), 403);
    expectError(await publish('anonymous', 'status-board', { title: 'Nope' }), 401);
    expectError(await get('admin', 'reader-made'), 404);
    expect(ok(await get('admin', 'status-board')).title).toBe('Status board 2');
  });
});

describe('GET /v1/integrations/{integrationName}', () => {
  test('shows public and unlisted integrations to anyone with a token, private ones to members of the owner with listIntegrations', async () => {
    ok(await publish('admin', 'acme-private', { visibility: 'private', title: 'Acme private' }));
    ok(await publish('admin', 'acme-unlisted', { visibility: 'unlisted', title: 'Acme unlisted' }));
    expect(ok(await get('outsider', 'status-board')).permissions.admin).toBe(false);
    expect(ok(await get('outsider', 'acme-unlisted')).name).toBe('acme-unlisted');
    expect(ok(await get('reader', 'acme-private')).permissions.admin).toBe(false);
    expectError(await get('outsider', 'acme-private'), 404);
    // A guest's organization shows listIntegrations false: its private integrations stay hidden from them.
    expect(ok(await as('guest').GET('/v1/orgs/{organizationId}', { params: { path: { organizationId: ACME } } })).permissions.listIntegrations).toBe(false);
    expectError(await get('guest', 'acme-private'), 404);
    expect(ok(await get('guest', 'acme-unlisted')).name).toBe('acme-unlisted');
  });

  test('answers 404 for an unknown name and 401 without a token; reading needs no role', async () => {
    expectError(await get('admin', 'no-such-integration'), 404);
    expectError(await get('admin', 'bad name!'), 400, 'integrationName');
    expectError(await get('anonymous', 'status-board'), 401);
    expect(ok(await get('reader', 'status-board')).name).toBe('status-board');
  });
});

describe('GET /v1/integrations', () => {
  const list = (user: RoleUser, query: Record<string, unknown> = {}) =>
    as(user).GET('/v1/integrations', { params: { query } });
  const names = async (user: RoleUser, query: Record<string, unknown> = {}) =>
    ok(await list(user, query)).items.map((item) => item.name);

  test('lists public integrations and the private ones of the caller’s organizations, never unlisted ones', async () => {
    expect(await names('reader')).toEqual(['acme-private', 'globex-by-hostname', 'globex-minimal', 'status-board']);
    expect(await names('outsider')).toEqual(['globex-by-hostname', 'globex-minimal', 'status-board']);
    expect(await names('guest')).toEqual(['globex-by-hostname', 'globex-minimal', 'status-board']);
  });

  test('filters by search, category, scope, owner, target, blocks, content sources and block domain', async () => {
    expect(await names('admin', { search: 'BOARD' })).toEqual(['status-board']);
    expect(await names('admin', { search: 'acme priv' })).toEqual(['acme-private']);
    expect(await names('admin', { category: 'monitoring' })).toEqual(['status-board']);
    expect(await names('admin', { scope: 'space:content:read' })).toEqual(['status-board']);
    expect(await names('admin', { owner: GLOBEX })).toEqual(['globex-by-hostname', 'globex-minimal']);
    expect(await names('admin', { target: 'site' })).toEqual(['acme-private', 'globex-by-hostname', 'globex-minimal']);
    expect(await names('admin', { target: 'space' })).toEqual(['acme-private', 'globex-by-hostname', 'globex-minimal', 'status-board']);
    expect(await names('admin', { blocks: true })).toEqual(['status-board']);
    expect(await names('admin', { blocks: false })).toEqual(['acme-private', 'globex-by-hostname', 'globex-minimal']);
    expect(await names('admin', { contentSources: true })).toEqual(['status-board']);
    expect(await names('admin', { blockDomain: 'statuspage.example' })).toEqual(['status-board']);
    expect(await names('admin', { blockDomain: 'eu.statuspage.example' })).toEqual(['status-board']);
    expect(await names('admin', { blockDomain: 'example.org' })).toEqual([]);
  });

  test('pages with a cursor bound to the filters', async () => {
    const first = ok(await list('reader', { limit: 2 }));
    expect(first).toMatchObject({ count: 4 });
    expect(first.items.map((item) => item.name)).toEqual(['acme-private', 'globex-by-hostname']);
    const second = ok(await list('reader', { limit: 2, page: first.next!.page }));
    expect(second.items.map((item) => item.name)).toEqual(['globex-minimal', 'status-board']);
    expect(second.next).toBeUndefined();
    expectError(await list('reader', { limit: 2, page: first.next!.page, owner: ACME }), 400, 'page');
    // Filtered on the integrations' fields (blocks): counted and paged as the list filtered has them.
    const filtered = ok(await list('admin', { blocks: false, limit: 2 }));
    expect(filtered).toMatchObject({ count: 3 });
    expect(filtered.items.map((item) => item.name)).toEqual(['acme-private', 'globex-by-hostname']);
    const rest = ok(await list('admin', { blocks: false, limit: 2, page: filtered.next!.page }));
    expect(rest.items.map((item) => item.name)).toEqual(['globex-minimal']);
    expect(rest.next).toBeUndefined();
  });

  test('rejects invalid filters with 400, and needs a token', async () => {
    expectError(await list('admin', { blockDomain: 'bad domain' }), 400, 'blockDomain');
    expectError(await list('admin', { target: 'planet' }), 400, 'target');
    expectError(await list('admin', { limit: 0 }), 400, 'limit');
    expectError(await as('anonymous').GET('/v1/integrations'), 401);
  });
});

describe('installations', () => {
  test('installs an integration in an organization: 201, active, covering every space; records installation_setup', async () => {
    const created = ok(await install('admin', 'status-board', ACME), 201);
    expect(created).toMatchObject({
      status: 'active',
      space_selection: 'all',
      site_selection: 'all',
      spaces: 2,
      configuration: {},
      externalIds: [],
      target: { organization: ACME },
      createdAt: '2026-03-01T09:00:00.000Z',
    });
    const listed = ok(await installations('admin', 'status-board'));
    expect(listed).toMatchObject({ count: 1, items: [created] });

    const [event] = ok(await events('admin', 'status-board')).items;
    expect(event).toMatchObject({
      integrationId: 'status-board',
      installationId: created.id,
      status: 'success',
      payload: { type: 'installation_setup', installationId: created.id, status: 'active' },
    });
    expect(event!.payload.eventId).toBe(event!.id);
  });

  test('answers 409 when it is already installed there, and keeps one installation', async () => {
    expectError(await install('admin', 'status-board', ACME), 409, 'organization');
    expect(ok(await installations('admin', 'status-board')).count).toBe(1);
  });

  test('rejects an unknown organization, or one of another member, with 400 naming it', async () => {
    expectError(await install('admin', 'status-board', 'no-such-org'), 400, 'organization');
    expectError(await install('admin', 'status-board', GLOBEX), 400, 'organization');
    expectError(await install('multi', 'acme-private', GLOBEX), 403);
    expect(ok(await installations('admin', 'status-board')).count).toBe(1);
  });

  test('installs a private integration only in its owner organization', async () => {
    for (const [organizationId, user] of [[ACME, 'admin'], [GLOBEX, 'outsider']] as const) {
      ok(
        await as(user).PATCH('/v1/orgs/{organizationId}/members/{userId}', {
          params: { path: { organizationId, userId: 'multi' } },
          body: { role: 'admin' },
        }),
      );
    }
    expectError(await install('multi', 'acme-private', GLOBEX), 400, 'organization');
    ok(await install('multi', 'acme-private', ACME), 201);
  });

  test('needs installIntegration in the organization (403), sight of the integration (404) and a token (401)', async () => {
    expectError(await install('creator', 'globex-minimal', ACME), 403);
    expectError(await install('outsider', 'acme-private', GLOBEX), 404);
    expectError(await install('admin', 'no-such-integration', ACME), 404);
    expectError(await install('anonymous', 'status-board', ACME), 401);
    expect(ok(await installations('admin', 'globex-minimal')).count).toBe(0);
  });

  test('lists all installations to the integration’s admins, and those of their organizations to organization admins', async () => {
    ctx.server.clock.advance(1000);
    const globex = ok(await install('outsider', 'status-board', GLOBEX), 201);
    expect(ok(await installations('admin', 'status-board')).items.map((item) => item.target.organization)).toEqual([ACME, GLOBEX]);
    expect(ok(await installations('outsider', 'status-board')).items).toEqual([globex]);
    // Installed elsewhere, it cannot become private.
    expectError(await publish('admin', 'status-board', { visibility: 'private' }), 400, 'visibility');
    expect(ok(await get('outsider', 'status-board'))).toMatchObject({ visibility: 'public', version: 3 });
  });

  test('listing needs listInstallations or the integration’s admin permission (403), sight (404) and a token (401)', async () => {
    expectError(await installations('reader', 'globex-minimal'), 403);
    expectError(await installations('outsider', 'acme-private'), 404);
    expectError(await installations('admin', 'no-such-integration'), 404);
    expectError(await installations('anonymous', 'status-board'), 401);
    expectError(
      await as('admin').GET('/v1/integrations/{integrationName}/installations', {
        params: { path: { integrationName: 'status-board' }, query: { limit: 5000 } },
      }),
      400,
      'limit',
    );
  });
});

describe('development mode and event delivery', () => {
  test('delivers events to the tunnel: the POST carries the payload, the event is a success with its trace', async () => {
    const tunnel = await startTunnel(() => ({ status: 200, body: { installation: { externalIds: ['ext-acme', 'shared'] } } }));
    ok(await publish('admin', 'deliver', { title: 'Deliver', visibility: 'public' }));
    expect((await enableDev('admin', 'deliver', { tunnelUrl: tunnel.url })).response.status).toBe(204);
    const installation = ok(await install('admin', 'deliver', ACME), 201);
    await idle();

    expect(tunnel.received).toHaveLength(1);
    const [request] = tunnel.received;
    const [event] = ok(await events('admin', 'deliver')).items;
    expect(request!.body).toEqual(event!.payload);
    expect(request!.body).toMatchObject({ type: 'installation_setup', installationId: installation.id, status: 'active' });
    expect(request!.headers).toMatchObject({
      'content-type': 'application/json',
      'x-docs-event-id': event!.id,
      'x-docs-event-type': 'installation_setup',
      'x-docs-integration': 'deliver',
    });
    expect(event!.status).toBe('success');

    const { trace } = ok(await getEvent('admin', 'deliver', event!.id));
    const messages = trace.logs.map((log) => log.message).join('\n');
    expect(messages).toContain(`delivered to ${tunnel.url}: HTTP 200`);
    expect(messages).toContain('updated its installation: externalIds');
    expect(trace.logs.every((log) => log.timestamp === event!.createdAt)).toBe(true);

    // The tunnel's answer set the installation's external ids.
    expect(ok(await installations('admin', 'deliver', 'ext-acme')).items.map((item) => item.id)).toEqual([installation.id]);
    await tunnel.close();
  });

  test('forwards only the owner organization’s events unless `all` is true', async () => {
    const tunnel = await startTunnel((body) => ({ status: 200, body: { installation: { externalIds: [`ext-${String(body.installationId)}`, 'shared'] } } }));
    ok(await enableDev('admin', 'deliver', { tunnelUrl: tunnel.url }));
    ok(await install('outsider', 'deliver', GLOBEX), 201);
    await idle();
    expect(tunnel.received).toHaveLength(0);
    const [notForwarded] = ok(await events('admin', 'deliver')).items;
    expect(notForwarded!.status).toBe('success');
    const { trace } = ok(await getEvent('admin', 'deliver', notForwarded!.id));
    expect(trace.logs.map((log) => log.message).join('\n')).toContain('only the events of the owner organization');

    ok(await enableDev('admin', 'deliver', { tunnelUrl: tunnel.url, all: true }));
    ok(await publish('admin', 'deliver-all', { title: 'Deliver all' }));
    ok(await enableDev('admin', 'deliver-all', { tunnelUrl: tunnel.url, all: true }));
    const globex = ok(await install('outsider', 'deliver-all', GLOBEX), 201);
    await idle();
    expect(tunnel.received.map((request) => request.body.installationId)).toEqual([globex.id]);
    expect(ok(await installations('outsider', 'deliver-all')).items[0]!.externalIds).toEqual([`ext-${globex.id}`, 'shared']);
    await tunnel.close();
  });

  test('records a failed delivery to an unreachable tunnel, with the reason in the trace', async () => {
    const closed = await startTunnel(() => ({ status: 200 }));
    await closed.close();
    ok(await publish('admin', 'unreachable', { title: 'Unreachable' }));
    ok(await enableDev('admin', 'unreachable', { tunnelUrl: closed.url }));
    ok(await install('admin', 'unreachable', ACME), 201);
    await idle();
    const [event] = ok(await events('admin', 'unreachable')).items;
    expect(event!.status).toBe('failed');
    const { trace } = ok(await getEvent('admin', 'unreachable', event!.id));
    const failure = trace.logs.find((log) => log.level === 'error');
    expect(failure?.message).toContain('delivery failed');
    expect(failure?.message).toContain('could not be reached');
  });

  test('records a failed delivery when the tunnel answers an error status', async () => {
    const tunnel = await startTunnel(() => ({ status: 500, body: { error: 'boom' } }));
    ok(await publish('admin', 'erroring', { title: 'Erroring' }));
    ok(await enableDev('admin', 'erroring', { tunnelUrl: tunnel.url }));
    ok(await install('admin', 'erroring', ACME), 201);
    await idle();
    const [event] = ok(await events('admin', 'erroring')).items;
    expect(event!.status).toBe('failed');
    const { trace } = ok(await getEvent('admin', 'erroring', event!.id));
    expect(trace.logs.at(-1)).toMatchObject({ level: 'error', message: `delivery failed: ${tunnel.url} answered HTTP 500` });
    await tunnel.close();
  });

  test('DELETE .../dev stops the delivery: later events are recorded without it', async () => {
    const tunnel = await startTunnel(() => ({ status: 200 }));
    ok(await publish('admin', 'stopped', { title: 'Stopped' }));
    ok(await enableDev('admin', 'stopped', { tunnelUrl: tunnel.url }));
    expect((await disableDev('admin', 'stopped')).response.status).toBe(204);
    expect((await disableDev('admin', 'stopped')).response.status).toBe(204);
    ok(await install('admin', 'stopped', ACME), 201);
    await idle();
    expect(tunnel.received).toHaveLength(0);
    const [event] = ok(await events('admin', 'stopped')).items;
    const { trace } = ok(await getEvent('admin', 'stopped', event!.id));
    expect(trace.logs.map((log) => log.message).join('\n')).toContain('recorded without delivery');
    await tunnel.close();
  });

  test('rejects an invalid tunnel with 400 naming tunnelUrl, and keeps the current one', async () => {
    const tunnel = await startTunnel(() => ({ status: 200 }));
    ok(await publish('admin', 'kept-tunnel', { title: 'Kept tunnel' }));
    ok(await enableDev('admin', 'kept-tunnel', { tunnelUrl: tunnel.url }));
    expectError(await enableDev('admin', 'kept-tunnel', { tunnelUrl: 'ftp://127.0.0.1/events' }), 400, 'tunnelUrl');
    expectError(await enableDev('admin', 'kept-tunnel', { tunnelUrl: 'not a url' }), 400, 'tunnelUrl');
    expectError(await enableDev('admin', 'kept-tunnel', { tunnelUrl: `http://x/${'a'.repeat(2048)}` }), 400, 'tunnelUrl');
    ok(await install('admin', 'kept-tunnel', ACME), 201);
    await idle();
    expect(tunnel.received).toHaveLength(1);
    await tunnel.close();
  });

  test('development mode needs the integration’s admin permission (403), sight (404) and a token (401)', async () => {
    const body = { tunnelUrl: 'http://127.0.0.1:9/events' };
    expectError(await enableDev('reader', 'status-board', body), 403);
    expectError(await enableDev('outsider', 'acme-private', body), 404);
    expectError(await enableDev('admin', 'no-such-integration', body), 404);
    expectError(await enableDev('anonymous', 'status-board', body), 401);
    expectError(await disableDev('reader', 'status-board'), 403);
    expectError(await disableDev('outsider', 'acme-private'), 404);
    expectError(await disableDev('admin', 'no-such-integration'), 404);
    expectError(await disableDev('anonymous', 'status-board'), 401);
    expectError(await disableDev('admin', 'x'.repeat(101)), 400, 'integrationName');
  });
});

describe('events', () => {
  test('lists events newest first, and pages through them', async () => {
    ok(await publish('admin', 'eventful', { title: 'Eventful' }));
    const first = ok(await install('admin', 'eventful', ACME), 201);
    ctx.server.clock.advance(60_000);
    const second = ok(await install('outsider', 'eventful', GLOBEX), 201);
    const all = ok(await events('admin', 'eventful'));
    expect(all.items.map((event) => event.installationId)).toEqual([second.id, first.id]);
    expect(Date.parse(all.items[0]!.createdAt) - Date.parse(all.items[1]!.createdAt)).toBe(60_000);
    const page = ok(
      await as('admin').GET('/v1/integrations/{integrationName}/events', {
        params: { path: { integrationName: 'eventful' }, query: { limit: 1 } },
      }),
    );
    expect(page).toMatchObject({ count: 2, items: [all.items[0]] });
    const next = ok(
      await as('admin').GET('/v1/integrations/{integrationName}/events', {
        params: { path: { integrationName: 'eventful' }, query: { limit: 1, page: page.next!.page } },
      }),
    );
    expect(next.items).toEqual([all.items[1]]);
    expect(next.next).toBeUndefined();
  });

  test('organization admins see the events of their own organization’s installations only', async () => {
    const listed = ok(await events('outsider', 'eventful'));
    expect(listed.items.map((event) => event.payload.type)).toEqual(['installation_setup']);
    const acmeEvent = ok(await events('admin', 'eventful')).items[1]!;
    expectError(await getEvent('outsider', 'eventful', acmeEvent.id), 404);
  });

  test('gets an event with its trace', async () => {
    const [event] = ok(await events('admin', 'eventful')).items;
    const answer = ok(await getEvent('admin', 'eventful', event!.id));
    expect(answer.event).toEqual(event);
    expect(answer.trace.logs.map((log) => log.level)).toEqual(['debug', 'info']);
    expect(answer.trace.logs[1]!.message).toContain('recorded without delivery');
  });

  test('needs listInstallations or the admin permission (403), sight (404) and a token (401)', async () => {
    const [event] = ok(await events('admin', 'eventful')).items;
    expectError(await events('reader', 'eventful'), 403);
    expectError(await getEvent('reader', 'eventful', event!.id), 403);
    expectError(await events('outsider', 'acme-private'), 404);
    expectError(await getEvent('outsider', 'acme-private', event!.id), 404);
    expectError(await events('admin', 'no-such-integration'), 404);
    expectError(await getEvent('admin', 'eventful', 'no-such-event'), 404);
    expectError(await getEvent('admin', 'status-board', event!.id), 404);
    expectError(await events('anonymous', 'eventful'), 401);
    expectError(await getEvent('anonymous', 'eventful', event!.id), 401);
    expectError(
      await as('admin').GET('/v1/integrations/{integrationName}/events', {
        params: { path: { integrationName: 'eventful' }, query: { page: 'forged.cursor' } },
      }),
      400,
      'page',
    );
  });
});

describe('GET /v1/integrations/{integrationName}/spaces', () => {
  const spaces = (user: Who, name: string, query: { externalId?: string; extended?: boolean; limit?: number } = {}) =>
    as(user).GET('/v1/integrations/{integrationName}/spaces', { params: { path: { integrationName: name }, query } });

  test('lists the spaces of the organizations where it is installed, visible to the caller', async () => {
    const listed = ok(await spaces('admin', 'deliver'));
    expect(listed.count).toBe(2);
    expect(listed.items.map((item) => item.space)).toEqual(['handbook', 'roadmap']);
    const installation = ok(await installations('admin', 'deliver', 'ext-acme')).items[0]!;
    expect(listed.items[0]).toMatchObject({
      integration: 'deliver',
      installation: installation.id,
      status: 'active',
      configuration: {},
      externalIds: ['ext-acme', 'shared'],
    });
    expect(ok(await spaces('outsider', 'deliver')).items.map((item) => item.space)).toEqual(['globex-docs']);
  });

  test('puts the full space in the items with extended=true', async () => {
    const listed = ok(await spaces('admin', 'deliver', { extended: true }));
    const space = listed.items[0]!.space;
    if (typeof space === 'string') expect.fail('expected the full space');
    expect(space).toMatchObject({ object: 'space', id: 'handbook', title: 'Handbook', organization: ACME });
    expect(space).toEqual(ok(await as('admin').GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: 'handbook' } } })));
  });

  test('filters by the installation’s external id, and pages', async () => {
    expect(ok(await spaces('admin', 'deliver', { externalId: 'ext-acme' })).items.map((item) => item.space)).toEqual(['handbook', 'roadmap']);
    expect(ok(await spaces('admin', 'deliver', { externalId: 'unknown' })).items).toEqual([]);
    const first = ok(await spaces('admin', 'deliver', { limit: 1 }));
    expect(first.items.map((item) => item.space)).toEqual(['handbook']);
    const second = ok(
      await as('admin').GET('/v1/integrations/{integrationName}/spaces', {
        params: { path: { integrationName: 'deliver' }, query: { limit: 1, page: first.next!.page } },
      }),
    );
    expect(second.items.map((item) => item.space)).toEqual(['roadmap']);
    expect(second.next).toBeUndefined();
  });

  test('pages across installations one item at a time, as the whole list has them', async () => {
    // Installed in two organizations, listed by a member of both.
    ok(await publish('admin', 'walker', { title: 'Walker', visibility: 'public' }));
    ok(await install('admin', 'walker', ACME), 201);
    ok(await install('outsider', 'walker', GLOBEX), 201);
    const all = ok(await spaces('multi', 'walker', { limit: 1000 }));
    expect(new Set(all.items.map((item) => item.installation)).size).toBe(2);
    expect(all.items.map((item) => item.space)).toEqual(expect.arrayContaining(['handbook', 'roadmap', 'globex-docs']));
    expect(all.count).toBe(all.items.length);
    const walked: unknown[] = [];
    let page: string | undefined;
    do {
      const next = ok(
        await as('multi').GET('/v1/integrations/{integrationName}/spaces', {
          params: { path: { integrationName: 'walker' }, query: { limit: 1, ...(page ? { page } : {}) } },
        }),
      );
      expect(next.count).toBe(all.count);
      walked.push(...next.items);
      page = next.next?.page;
    } while (page);
    expect(walked).toEqual(all.items);
  });

  test('needs listInstallations or the admin permission (403), sight (404) and a token (401)', async () => {
    expectError(await spaces('reader', 'deliver'), 403);
    expectError(await spaces('outsider', 'acme-private'), 404);
    expectError(await spaces('admin', 'no-such-integration'), 404);
    expectError(await spaces('anonymous', 'deliver'), 401);
    expectError(await spaces('admin', 'deliver', { limit: 0 }), 400, 'limit');
  });
});

describe('GET /v1/integrations/{integrationName}/sites', () => {
  const sites = (user: Who, name: string, query: { externalId?: string; extended?: boolean; limit?: number; page?: string } = {}) =>
    as(user).GET('/v1/integrations/{integrationName}/sites', { params: { path: { integrationName: name }, query } });
  const createSite = async (user: Who, organizationId: string, title: string) =>
    ok(await as(user).POST('/v1/orgs/{organizationId}/sites', { params: { path: { organizationId } }, body: { title } }));

  test('lists the sites of the organizations where it is installed, visible to the caller, filtered by external id', async () => {
    // Lists are in creation order: the clock moves between creations so that the order is known.
    const first = await createSite('admin', ACME, 'Acme docs');
    ctx.server.clock.advance(1000);
    const second = await createSite('admin', ACME, 'Acme help');
    const globex = await createSite('outsider', GLOBEX, 'Globex docs');
    const listed = ok(await sites('admin', 'deliver'));
    expect(listed.items.map((item) => item.site)).toEqual([first.id, second.id]);
    expect(listed.items[0]).toMatchObject({ integration: 'deliver', status: 'active', externalIds: ['ext-acme', 'shared'] });
    expect(ok(await sites('outsider', 'deliver')).items.map((item) => item.site)).toEqual([globex.id]);
    expect(ok(await sites('admin', 'deliver', { externalId: 'ext-acme' })).count).toBe(2);
    expect(ok(await sites('admin', 'deliver', { externalId: 'unknown' })).items).toEqual([]);

    const page = ok(await sites('admin', 'deliver', { limit: 1 }));
    expect(page.items.map((item) => item.site)).toEqual([first.id]);
    const next = ok(await sites('admin', 'deliver', { limit: 1, page: page.next!.page }));
    expect(next.items.map((item) => item.site)).toEqual([second.id]);
  });

  test('puts the full site in the items with extended=true', async () => {
    const [item] = ok(await sites('admin', 'deliver', { extended: true })).items;
    const site = item!.site;
    if (typeof site === 'string') expect.fail('expected the full site');
    expect(site).toMatchObject({ object: 'site', title: 'Acme docs' });
    expect(site).toEqual(
      ok(await as('admin').GET('/v1/orgs/{organizationId}/sites/{siteId}', { params: { path: { organizationId: ACME, siteId: site.id } } })),
    );
  });

  test('needs listInstallations or the admin permission (403), sight (404) and a token (401)', async () => {
    expectError(await sites('reader', 'deliver'), 403);
    expectError(await sites('outsider', 'acme-private'), 404);
    expectError(await sites('admin', 'no-such-integration'), 404);
    expectError(await sites('anonymous', 'deliver'), 401);
    expectError(await sites('admin', 'deliver', { limit: 1001 }), 400, 'limit');
  });
});

describe('GET /v1/integrations/{integrationName}/render', () => {
  test('renders a block as an element tree, with the props substituted into its markdown', async () => {
    const answer = await render('reader', 'status-board', encode({ blockId: 'status', props: { service: 'API', state: { label: 'up' } } }));
    expect(ok(answer)).toEqual({
      type: 'element',
      element: {
        type: 'block',
        blockId: 'status',
        props: { service: 'API', state: { label: 'up' } },
        children: [
          {
            type: 'card',
            title: 'Service status',
            hint: 'Status of one service',
            icon: 'gauge',
            children: [{ type: 'markdown', content: 'Service **API** is up.' }],
          },
        ],
      },
    });
    expect(answer.response.headers.get('content-security-policy')).toBe(FULL.contentSecurityPolicy);
  });

  test('leaves missing props empty', async () => {
    const { element } = ok(await render('outsider', 'status-board', encode({ blockId: 'status' })));
    expect(JSON.stringify(element)).toContain('Service **** is .');
  });

  test('rejects an undecodable request or an unknown block with 400 naming request', async () => {
    expectError(await render('admin', 'status-board', 'garbage!!'), 400, 'request');
    expectError(await render('admin', 'status-board', LZString.compressToEncodedURIComponent('not json')), 400, 'request');
    expectError(await render('admin', 'status-board', encode({ props: {} })), 400, 'request', 'blockId');
    expectError(await render('admin', 'status-board', encode({ blockId: 'nope' })), 400, 'request', 'nope');
    expectError(await render('admin', 'status-board', 'x'.repeat(8193)), 400, 'request');
  });

  test('needs sight of the integration (404) and a token (401); rendering needs no role', async () => {
    expectError(await render('outsider', 'acme-private', encode({ blockId: 'status' })), 404);
    expectError(await render('admin', 'no-such-integration', encode({ blockId: 'status' })), 404);
    expectError(await render('anonymous', 'status-board', encode({ blockId: 'status' })), 401);
    ok(await render('guest', 'status-board', encode({ blockId: 'status' })));
  });
});

describe('DELETE /v1/integrations/{integrationName} (unpublish)', () => {
  test('needs the integration’s admin permission (403), sight (404) and a token (401)', async () => {
    expectError(await as('reader').DELETE('/v1/integrations/{integrationName}', named('eventful')), 403);
    expectError(await as('outsider').DELETE('/v1/integrations/{integrationName}', named('acme-private')), 404);
    expectError(await as('anonymous').DELETE('/v1/integrations/{integrationName}', named('eventful')), 401);
    expectError(await as('admin').DELETE('/v1/integrations/{integrationName}', named('bad name!')), 400, 'integrationName');
    expect(ok(await get('reader', 'eventful')).name).toBe('eventful');
  });

  test('removes the integration with its installations and events; 204 again when it is gone', async () => {
    const first = await as('creator').DELETE('/v1/integrations/{integrationName}', named('eventful'));
    expect(first.response.status).toBe(204);
    expectError(await get('admin', 'eventful'), 404);
    expectError(await events('admin', 'eventful'), 404);
    expect(await ctx.server.running.ctx.store.reader.all(sql`SELECT id FROM integration_installations WHERE integration_name = 'eventful'`)).toEqual([]);
    expect((await as('creator').DELETE('/v1/integrations/{integrationName}', named('eventful'))).response.status).toBe(204);
    // The name is free again, for any organization.
    expect(ok(await publish('outsider', 'eventful', {})).owner.id).toBe(GLOBEX);
  });
});

describe('persistence', () => {
  test('integrations, installations, events and development mode survive a restart', async () => {
    const tunnel = await startTunnel(() => ({ status: 200 }));
    ok(await publish('admin', 'durable', { title: 'Durable' }));
    ok(await enableDev('admin', 'durable', { tunnelUrl: tunnel.url, all: true }));
    const read = async () => ({
      integration: ok(await get('admin', 'deliver')),
      installations: ok(await installations('admin', 'deliver')),
      events: ok(await events('admin', 'deliver')),
      spaces: ok(await as('admin').GET('/v1/integrations/{integrationName}/spaces', named('deliver'))),
      sites: ok(await as('admin').GET('/v1/integrations/{integrationName}/sites', { params: { path: { integrationName: 'deliver' }, query: { extended: true } } })),
    });
    const before = await read();
    await ctx.server.restart();
    expect(await read()).toEqual(before);

    ok(await install('outsider', 'durable', GLOBEX), 201);
    await idle();
    expect(tunnel.received).toHaveLength(1);
    await tunnel.close();
  });
});
