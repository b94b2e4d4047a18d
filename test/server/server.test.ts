// The server's framework: errors and their envelope, the contract enforced on requests and responses, start-up
// checks, persistence across restarts, seeding and configuration.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import express, { type Request, type Response } from 'express';
import { afterAll, describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { readConfig, SPEEDUPS } from '../../server/common/config.ts';
import { contractOperations, loadContract } from '../../server/http/contract.ts';
import { contractAnswerPlan } from '../../server/http/example-answers.ts';
import { CONNECTION_LIMITS } from '../../server/speed/app-server.ts';
import { placedOperation } from '../../server/speed/validator.ts';
import { writeTogether } from '../../server/speed/write-together.ts';
import { readSeedFile } from '../../server/start/seed.ts';
import { startServer } from '../../server/start/server.ts';
import { ACME } from '../support/fixture.ts';
import { expectError, ok } from '../support/expect.ts';
import { startTestServer, type TestServer, useTestServer } from '../support/server.ts';

const folders: string[] = [];
const tempFolder = () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'docs-server-'));
  folders.push(folder);
  return folder;
};
afterAll(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })));

const ctx = useTestServer({ env: { BODY_LIMIT: '2048' } });
const raw = (method: string, pathname: string, init: RequestInit & { token?: string } = {}) =>
  fetch(`${ctx.server.url}${pathname}`, {
    method,
    ...init,
    headers: { ...(init.token === undefined ? { authorization: 'Bearer admin' } : {}), ...(init.headers as Record<string, string>) },
  });

describe('errors', () => {
  test('every failure answers the one envelope with the status as its code', async () => {
    for (const [response, status] of [
      [await raw('GET', '/v1/no-such-thing'), 404],
      [await raw('DELETE', '/v1/orgs'), 405],
      [await raw('GET', '/v1/orgs', { token: '' }), 401],
      [await raw('PATCH', `/v1/orgs/${ACME}`, { headers: { 'content-type': 'text/plain' }, body: 'title=x' }), 415],
      [await raw('PATCH', `/v1/orgs/${ACME}`, { headers: { 'content-type': 'application/json' }, body: '{"title": ' }), 400],
      [await raw('PATCH', `/v1/orgs/${ACME}`, { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'x'.repeat(4000) }) }), 413],
    ] as const) {
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await response.json()) as { error: { code: number; message: string } };
      expect(body.error.code).toBe(status);
      expect(body.error.message.length).toBeGreaterThan(0);
    }
  });

  test('a validation error names the field and the rule', async () => {
    const patch = (body: unknown) =>
      ctx.server.as('admin').PATCH('/v1/orgs/{organizationId}', { params: { path: { organizationId: ACME } }, body: body as never });
    expect(expectError(await patch({ title: 'A' }), 400)).toBe('body.title: must NOT have fewer than 2 characters');
    expect(expectError(await patch({ nickname: 'x' }), 400)).toBe('body.nickname: is not an allowed field (unknown property)');
    expect(expectError(await patch({ sso: 'yes' }), 400)).toBe('body.sso: must be boolean');
  });

  test('a body whose Content-Length is over the limit is refused at once, before a byte of it is read', async () => {
    // The request's headers announce 64 MiB and the body never comes: the 413 cannot wait for it.
    const url = new URL(ctx.server.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(`PATCH /v1/orgs/${ACME} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer admin\r\nContent-Type: application/json\r\nContent-Length: ${64 * 1024 * 1024}\r\n\r\n{"title":"`);
      });
      let received = '';
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString();
        if (received.includes('\r\n\r\n') && received.endsWith('}')) {
          socket.destroy();
          resolve(received);
        }
      });
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('{"error":{"code":413,"message":"Request body too large: at most 2048 bytes"}}');
  });

  test('each answer carries a request id', async () => {
    const response = await raw('GET', '/v1/orgs');
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('the framework', () => {
  test('connections: the limits are the documented ones, and a connection beyond MAX_CONNECTIONS is closed at once', async () => {
    const limited = await startTestServer({ env: { MAX_CONNECTIONS: '2' } });
    const sockets: ReturnType<typeof connect>[] = [];
    try {
      const { server } = limited.running;
      const { headersTimeout, requestTimeout, keepAliveTimeout, maxHeaderSize } = CONNECTION_LIMITS;
      expect({ headersTimeout: server.headersTimeout, requestTimeout: server.requestTimeout, keepAliveTimeout: server.keepAliveTimeout }).toEqual({ headersTimeout, requestTimeout, keepAliveTimeout });
      expect(server.maxConnections).toBe(2);
      expect((await fetch(`${limited.url}/health`, { headers: { 'x-large': 'x'.repeat(maxHeaderSize) } })).status).toBe(431);
      const { port } = new URL(limited.url);
      const open = () =>
        new Promise<ReturnType<typeof connect>>((resolve, reject) => {
          const socket = connect(Number(port), '127.0.0.1', () => resolve(socket)).on('error', reject);
          sockets.push(socket);
        });
      // What a socket reads until it closes: an answer to a request, or nothing when the server drops it.
      const answerOn = (socket: ReturnType<typeof connect>) =>
        new Promise<string>((resolve) => {
          let text = '';
          socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1'))).on('close', () => resolve(text)).on('error', () => {});
          socket.write('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
        });
      const [first, second] = [await open(), await open()];
      expect(await answerOn(await open())).toBe('');
      expect(await answerOn(first)).toMatch(/^HTTP\/1\.1 200 /);
      expect(await answerOn(await open())).toMatch(/^HTTP\/1\.1 200 /);
      second.destroy();
    } finally {
      sockets.forEach((socket) => socket.destroy());
      await limited.close();
    }
  });

  test("requests and responses are born with the app's prototypes, so Express changes no prototype per request", async () => {
    // What node:http hands the app, and what the app has made of it once the answer is sent (server/speed/app-server.ts).
    type Prototypes = [request: object, response: object];
    const seen: { before: Prototypes; after?: Prototypes; expressMethods: boolean }[] = [];
    const prototypes = (req: IncomingMessage, res: ServerResponse): Prototypes => [Object.getPrototypeOf(req), Object.getPrototypeOf(res)];
    const record = (req: IncomingMessage, res: ServerResponse) => {
      const expressMethods = typeof (req as Partial<Request>).get === 'function' && typeof (res as Partial<Response>).json === 'function';
      const entry: (typeof seen)[number] = { before: prototypes(req, res), expressMethods };
      res.once('finish', () => (entry.after = prototypes(req, res)));
      seen.push(entry);
    };
    const { server } = ctx.server.running;
    server.prependListener('request', record);
    try {
      ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}', { params: { path: { organizationId: ACME } } }));
      expect((await raw('GET', '/v1/no-such-thing')).status).toBe(404);
      expect((await raw('GET', '/health')).status).toBe(200);
    } finally {
      server.removeListener('request', record);
    }
    expect(seen).toHaveLength(3);
    for (const entry of seen) {
      expect(entry.expressMethods).toBe(true);
      expect(entry.after).toBeDefined();
      expect(entry.after![0]).toBe(entry.before[0]);
      expect(entry.after![1]).toBe(entry.before[1]);
    }
  });
  test('SPEEDUPS_OFF turns each speed mechanism off, and the server answers the same', async () => {
    const seen: { sameAfter: boolean; expressJson: boolean; placed: boolean }[] = [];
    const watch = (req: IncomingMessage, res: ServerResponse) => {
      const before = Object.getPrototypeOf(req) as object;
      res.once('finish', () =>
        seen.push({
          sameAfter: Object.getPrototypeOf(req) === before,
          expressJson: (res as Response).json === express.response.json,
          placed: placedOperation(req as Request) !== undefined,
        }),
      );
    };
    const answers = async (server: TestServer) => {
      server.running.server.prependListener('request', watch);
      try {
        const org = ok(await server.as('admin').GET('/v1/orgs/{organizationId}', { params: { path: { organizationId: ACME } } }));
        const created = ok(await server.as('admin').POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ACME } }, body: { title: 'Switched' } }));
        const missing = await fetch(`${server.url}/v1/no-such-thing`);
        return { org: org.title, space: created.title, missing: missing.status, connectionListeners: server.running.server.listeners('connection').includes(writeTogether) };
      } finally {
        server.running.server.removeListener('request', watch);
      }
    };
    const off = await startTestServer({ env: { SPEEDUPS_OFF: SPEEDUPS.join(',') } });
    try {
      expect(off.running.ctx.config.speedupsOff).toEqual([...SPEEDUPS]);
      expect(await answers(off)).toEqual({ org: 'Acme', space: 'Switched', missing: 404, connectionListeners: false });
      // Express set each request's prototypes on arrival, Express's own res.json answered, nothing was placed by the route index.
      expect(seen).toHaveLength(3);
      expect(seen.every((entry) => !entry.sameAfter && entry.expressJson && !entry.placed)).toBe(true);
    } finally {
      await off.close();
    }
    seen.length = 0;
    expect(await answers(ctx.server)).toEqual({ org: 'Acme', space: 'Switched', missing: 404, connectionListeners: true });
    expect(seen.map((entry) => [entry.sameAfter, entry.expressJson, entry.placed])).toEqual([
      [true, false, true],
      [true, false, true],
      [true, false, false],
    ]);
    // A second server, started with every mechanism off: on a loaded machine its start alone can pass 30 s.
  }, 90_000);
});

describe('the contract on responses', () => {
  test('a handler answering a wrong shape, or throwing, gives a 500 with a generic message and no stack', async () => {
    const broken = await startTestServer({
      handlers: (_ctx, table) => ({
        ...table,
        getOrganization: () => ({ status: 200, body: { object: 'organization', id: ACME } }) as never,
        listOrganizations: () => {
          throw new Error('database exploded at /secret/path.ts:12');
        },
      }),
      env: { LOG_LEVEL: 'silent' },
    });
    try {
      const wrongShape = await broken.as('admin').GET('/v1/orgs/{organizationId}', { params: { path: { organizationId: ACME } } });
      expectError(wrongShape, 500, 'Internal server error');
      const thrown = await broken.as('admin').GET('/v1/orgs');
      const message = expectError(thrown, 500);
      expect(message).not.toContain('secret');
      expect(JSON.stringify(thrown.error)).not.toContain('path.ts');
    } finally {
      await broken.close();
    }
  });

  test('start-up refuses a handler table that misses an operation or has an extra one, naming the setting that serves the rest', () => {
    const operations = contractOperations(loadContract());
    const refusal = /Serve the rest and answer the operations not implemented from the contract with ANSWER_FROM_CONTRACT=true \(or --answer-from-contract\)/;
    expect(() => contractAnswerPlan(operations, {}, {}, false)).toThrow(/operations without a handler: .*listOrganizations/);
    expect(() => contractAnswerPlan(operations, {}, {}, false)).toThrow(refusal);
    const complete = Object.fromEntries(operations.map((operation) => [operation.operationId, () => undefined]));
    expect(contractAnswerPlan(operations, complete, {}, false)).toEqual({ answered: new Map(), extra: [], stalePending: [] });
    expect(() => contractAnswerPlan(operations, { ...complete, invented: () => undefined }, {}, false)).toThrow(/handlers of no operation of the contract: invented/);
    expect(() => contractAnswerPlan(operations, complete, { getTeam: 'not written' }, false)).toThrow(/operations pending \(server\/handlers\/pending\.ts\): getTeam\./);
    // With the setting, the same tables are served: what is not implemented is answered from the contract.
    const { getTeam: _getTeam, ...withoutGetTeam } = complete;
    expect(contractAnswerPlan(operations, { ...withoutGetTeam, invented: () => undefined }, { listTeams: 'not written', gone: 'left the contract' }, true)).toEqual({
      answered: new Map([
        ['listTeams', 'pending: not written'],
        ['getTeam', 'no handler'],
      ]),
      extra: ['invented'],
      stalePending: ['gone'],
    });
  });
});

describe('persistence', () => {
  test('what a client writes survives a restart on the same DATA_DIR', async () => {
    const server = await startTestServer({ dataDir: tempFolder() });
    try {
      const space = ok(
        await server.as('admin').POST('/v1/orgs/{organizationId}/spaces', {
          params: { path: { organizationId: ACME } },
          body: { title: 'Durable', emoji: '1f4be' },
        }),
        201,
      );
      ok(await server.as('admin').PATCH('/v1/orgs/{organizationId}', { params: { path: { organizationId: ACME } }, body: { title: 'Acme Durable' } }));
      const firstPage = ok(await server.as('admin').GET('/v1/orgs/{organizationId}/members', { params: { path: { organizationId: ACME }, query: { limit: 2 } } }));

      await server.restart();

      expect(ok(await server.as('admin').GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: space.id } } }))).toEqual(space);
      expect(ok(await server.as('admin').GET('/v1/orgs/{organizationId}', { params: { path: { organizationId: ACME } } })).title).toBe('Acme Durable');
      // Cursors are signed with a secret kept in the database: they stay valid.
      const secondPage = await server.as('admin').GET('/v1/orgs/{organizationId}/members', {
        params: { path: { organizationId: ACME }, query: { limit: 2, page: firstPage.next!.page } },
      });
      expect(ok(secondPage).items).toHaveLength(2);
    } finally {
      await server.close();
    }
  });

  test('the running server holds data.sqlite exclusively, its log index in memory; once stopped, the file is readable', async () => {
    const dataDir = tempFolder();
    const server = await startTestServer({ dataDir });
    const file = path.join(dataDir, 'data.sqlite');
    const countSpaces = () => {
      const outside = new Database(file, { timeout: 0 });
      try {
        return (outside.prepare('SELECT COUNT(*) AS n FROM spaces WHERE title = ?').get('Held') as { n: number }).n;
      } finally {
        outside.close();
      }
    };
    try {
      ok(await server.as('admin').POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ACME } }, body: { title: 'Held' } }), 201);
      expect(countSpaces).toThrow(/database is locked/);
      expect(existsSync(`${file}-shm`)).toBe(false);
    } finally {
      await server.close();
    }
    expect(countSpaces()).toBe(1);
  });
});

describe('seeding', () => {
  test('an empty database gets a demo organization whose admin token is DOCS_API_TOKEN', async () => {
    const config = readConfig({ PORT: '0', DATA_DIR: ':memory:', LOG_LEVEL: 'silent', DOCS_API_TOKEN: 'let-me-in' });
    const running = await startServer(config);
    try {
      expect(running.createdToken).toBeUndefined();
      const response = await fetch(`${running.url}/v1/orgs`, { headers: { authorization: 'Bearer let-me-in' } });
      const body = (await response.json()) as { items: { id: string; permissions: { admin: boolean } }[] };
      expect(body.items.map((org) => [org.id, org.permissions.admin])).toEqual([['demo', true]]);
    } finally {
      await running.close();
    }
  });

  test('without DOCS_API_TOKEN a random admin token is created once, and works', async () => {
    const dataDir = tempFolder();
    const config = readConfig({ PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    const first = await startServer(config);
    const token = first.createdToken!;
    await first.close();
    expect(token).toMatch(/^[\w-]{40,}$/);
    const second = await startServer(config);
    try {
      expect(second.createdToken).toBeUndefined();
      const response = await fetch(`${second.url}/v1/orgs/demo`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(200);
    } finally {
      await second.close();
    }
  });

  test('SEED_FILE loads organizations, users, roles, tokens and spaces from YAML, at every start without duplicates', async () => {
    const folder = tempFolder();
    const seedFile = path.join(folder, 'seed.yaml');
    writeFileSync(
      seedFile,
      [
        'users:',
        '  - { id: ann, displayName: Ann, email: ann@init.test, tokens: [ann-token] }',
        'organizations:',
        '  - id: initech',
        '    title: Initech',
        '    members: [{ user: ann, role: review }]',
        '    spaces: [{ id: tps, title: TPS Reports, pages: [{ title: Cover sheets, markdown: "Use the new cover sheet." }] }]',
      ].join('\n'),
    );
    const config = readConfig({ PORT: '0', DATA_DIR: path.join(folder, 'data'), LOG_LEVEL: 'silent', SEED_FILE: seedFile });
    for (let start = 0; start < 2; start++) {
      const running = await startServer(config);
      try {
        const orgs = (await (await fetch(`${running.url}/v1/orgs`, { headers: { authorization: 'Bearer ann-token' } })).json()) as {
          items: { id: string }[];
        };
        expect(orgs.items.map((org) => org.id)).toEqual(['initech']);
        const spaces = (await (
          await fetch(`${running.url}/v1/orgs/initech/spaces`, { headers: { authorization: 'Bearer ann-token' } })
        ).json()) as { count: number; items: { id: string; permissions: { review: boolean } }[] };
        expect(spaces.count).toBe(1);
        expect(spaces.items[0]).toMatchObject({ id: 'tps', permissions: { review: true } });
      } finally {
        await running.close();
      }
    }
  });

  test('a JSON SEED_FILE is read as JSON, giving what YAML gives; flow-style YAML and broken files are read as YAML', () => {
    const folder = tempFolder();
    const write = (name: string, text: string) => {
      const file = path.join(folder, name);
      writeFileSync(file, text);
      return file;
    };
    const value = {
      users: [{ id: 'ann', displayName: 'Ann \u00e9\u2019\ud83d\ude00', email: null, tokens: ['t'] }],
      organizations: [{ id: 'o', title: '1e3', members: [{ user: 'ann', role: 'admin' }], spaces: [{ title: 'x', pages: [] }] }],
    };
    const json = JSON.stringify(value, null, 2);
    expect(readSeedFile(write('seed.json', `\n  ${json}`))).toEqual(parse(json));
    expect(readSeedFile(write('seed.json', json))).toEqual(value);
    // Read as JSON (not YAML, which refuses a repeated key): the last value of a repeated key, as JSON readers do.
    expect(readSeedFile(write('repeated.json', '{ "users": [], "users": [{ "displayName": "Ann" }] }'))).toEqual({ users: [{ displayName: 'Ann' }] });
    expect(() => parse('{ "users": [], "users": [] }')).toThrow(/unique/);
    expect(readSeedFile(write('flow.yaml', '{ users: [{ id: ann, displayName: Ann }] }'))).toEqual({ users: [{ id: 'ann', displayName: 'Ann' }] });
    expect(() => readSeedFile(write('broken.json', '{ "users": [ }'))).toThrow(/^SEED_FILE .*broken\.json: /);
  });

  test('a broken SEED_FILE stops the start with a message naming it', async () => {
    const seedFile = path.join(tempFolder(), 'broken.yaml');
    writeFileSync(seedFile, 'organizations:\n  - title: Xylo\n    members: [{ user: ghost, role: admin }]\n');
    const config = readConfig({ PORT: '0', DATA_DIR: ':memory:', LOG_LEVEL: 'silent', SEED_FILE: seedFile });
    await expect(startServer(config)).rejects.toThrow(/no user ghost/);
  });

  test('a SEED_FILE is checked against the contract, every record and field, before anything is stored: one line names the file, the record and the field', { timeout: 120_000 }, async () => {
    const folder = tempFolder();
    const cases: [string, string][] = [
      ['organizations:\n  - { id: acme, title: O }\n', 'organizations[0] (acme): title must NOT have fewer than 2 characters, got "O"'],
      [
        'users:\n  - { id: ann, displayName: Ann, email: not-an-address }\n',
        'users[0] (ann): email must match format "email", got "not-an-address"',
      ],
      [
        'organizations:\n  - id: acme\n    title: Acme\n    spaces:\n      - id: handbook\n        title: Handbook\n        pages: [{ title: Intro, pages: [{ title: "" }] }]\n',
        'organizations[0] (acme) › spaces[0] (handbook) › pages[0] (Intro) › pages[0]: title must NOT have fewer than 1 characters, got ""',
      ],
      ['organizations:\n  - { id: acme, title: Acme, teams: [{ id: writers, title: "" }] }\n', 'organizations[0] (acme) › teams[0] (writers): title must NOT have fewer than 1 characters, got ""'],
      ['organizations:\n  - { id: acme, title: Acme, colour: red }\n', 'organizations[0] (acme): colour is not a field of the seed format'],
      [`organizations:\n  - { id: ${'a'.repeat(129)}, title: Acme }\n`, `organizations[0] (${'a'.repeat(40)}…): id must NOT have more than 128 characters`],
      // Text both engines store alike (server/common/text.ts): no NUL, no unpaired surrogate, in any string of the file.
      ['organizations:\n  - { id: acme, title: "Ac\\0me" }\n', 'organizations[0] (acme): title must not contain the character U+0000 (NUL)'],
      [
        '{"organizations": [{"id": "acme", "title": "Acme", "spaces": [{"id": "handbook", "title": "Handbook", "pages": [{"title": "Intro", "markdown": "a\\ud800b"}]}]}]}',
        'organizations[0] (acme) › spaces[0] (handbook) › pages[0] (Intro): markdown must not contain an unpaired surrogate',
      ],
      ['{"users": [{"id": "ann", "displayName": "Ann", "tokens": ["t\\u0000"]}]}', 'users[0] (ann): tokens[0] must not contain the character U+0000 (NUL)'],
    ];
    for (const [index, [yaml, problem]] of cases.entries()) {
      const seedFile = path.join(folder, `seed-${index}.yaml`);
      writeFileSync(seedFile, yaml);
      const dataDir = path.join(folder, `data-${index}`);
      const config = readConfig({ PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent', SEED_FILE: seedFile, DOCS_API_TOKEN: 'seed-check' });
      const failure = await startServer(config).then(
        () => undefined,
        (error: Error) => error.message,
      );
      expect(failure).toContain(`SEED_FILE ${seedFile}: ${problem}`);
      expect(failure).not.toContain('\n');
      // Nothing of it was stored: started without it, the database holds the demo organization only.
      const running = await startServer(readConfig({ PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent', DOCS_API_TOKEN: 'seed-check' }));
      try {
        const organizations = (await (await fetch(`${running.url}/v1/orgs`, { headers: { authorization: 'Bearer seed-check' } })).json()) as { items: { id: string }[] };
        expect(organizations.items.map((organization) => organization.id)).toEqual(['demo']);
      } finally {
        await running.close();
      }
    }
  });
});

describe('configuration', () => {
  test('reads the documented variables with their defaults', () => {
    const config = readConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      dataDir: path.resolve('./data'),
      logLevel: 'info',
      validateResponses: true,
      allowPrivateNetworks: false,
    });
    expect(config.publicUrl).toBeUndefined();
    const custom = readConfig({ PORT: '8080', PUBLIC_URL: 'https://api.example.com/', VALIDATE_RESPONSES: 'false', DATA_DIR: ':memory:' });
    expect(custom).toMatchObject({ port: 8080, publicUrl: 'https://api.example.com', validateResponses: false, dataDir: ':memory:' });
  });

  test('rejects invalid values, naming the variable', () => {
    expect(() => readConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => readConfig({ VALIDATE_RESPONSES: 'maybe' })).toThrow(/VALIDATE_RESPONSES/);
    expect(() => readConfig({ PUBLIC_URL: 'not a url' })).toThrow(/PUBLIC_URL/);
    expect(() => readConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
    expect(() => readConfig({ SPEEDUPS_OFF: 'json-answer,warp-drive' })).toThrow(/SPEEDUPS_OFF must name mechanisms among app-prototypes, .*got "json-answer,warp-drive"/);
  });

  test('PUBLIC_URL is the base of every urls.location', async () => {
    const server = await startTestServer({ env: { PUBLIC_URL: 'https://docs-api.example.com', APP_URL: 'https://app.example.com' } });
    try {
      const org = ok(await server.as('admin').GET('/v1/orgs/{organizationId}', { params: { path: { organizationId: ACME } } }));
      expect(org.urls).toMatchObject({ location: `https://docs-api.example.com/v1/orgs/${ACME}`, app: `https://app.example.com/o/${ACME}` });
    } finally {
      await server.close();
    }
  });
});
