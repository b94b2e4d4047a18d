// The conformance runner's property phase (conformance/runner/property/): against the reference server with the default
// budget it finds nothing; against the reference server behind thin Express middleware that plants one fault each,
// it reports the fault with its check id, and the shrunk request it prints reproduces the fault.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadContract, type Schema } from '../../conformance/contract/contract.ts';
import { arbitraryOf } from '../../conformance/runner/property/generate.ts';
import { runPropertyPhase } from '../../conformance/runner/property/phase.ts';
import type { CheckResult } from '../../conformance/runner/property/run.ts';
import { runConformance } from '../../conformance/runner/runner.ts';
import { Session } from '../../conformance/runner/session.ts';
import { ok } from '../support/expect.ts';
import { LOCAL_GIT, RUNNER_TOKEN, runnerFixture } from '../support/runner.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { timeout } from '../support/timeouts.ts';
import { testEngine } from '../support/databases.ts';

const TOKEN = RUNNER_TOKEN;
const fixture = runnerFixture;
const contract = loadContract();

/** The path template of an operation as an Express route (from the contract: no path is written here). */
const routeOf = (operationId: string) => contract.operations.get(operationId)!.path.replace(/\{([^}]+)\}/g, ':$1');
const methodOf = (operationId: string) => contract.operations.get(operationId)!.method;

type Fault = (req: Request, res: Response, next: NextFunction) => void | Promise<void>;

/** Forwards a request to the reference server and answers with what it answered (after `change`, if given). */
async function forward(req: Request, res: Response, change?: (status: number, text: string) => { status: number; text: string }): Promise<void> {
  const headers: Record<string, string> = {};
  for (const name of ['authorization', 'content-type', 'accept', 'content-encoding']) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  // fetch sends no body with a GET (the reference server would not read one anyway).
  const body = Buffer.isBuffer(req.body) && req.body.length > 0 && req.method !== 'GET' ? req.body : undefined;
  const upstream = await fetch(`${reference.url}${req.originalUrl}`, { method: req.method, headers, ...(body ? { body } : {}), redirect: 'manual' });
  let text = await upstream.text();
  let status = upstream.status;
  if (change) ({ status, text } = change(status, text));
  const type = upstream.headers.get('content-type');
  const location = upstream.headers.get('location');
  const allow = upstream.headers.get('allow');
  if (type) res.set('content-type', type);
  if (location) res.set('location', location);
  if (allow) res.set('allow', allow);
  // A HEAD's answer: the length of the GET's body, and none.
  const length = upstream.headers.get('content-length');
  if (req.method === 'HEAD') return void res.status(status).set(length ? { 'content-length': length } : {}).end();
  res.status(status).send(text ? Buffer.from(text) : undefined);
}

/** One planted fault each, as Express middleware in front of the real server. */
const FAULTS: Record<string, Fault> = {
  // A 5xx on a boundary value: the list at its largest page size.
  boundary5xx: (req, res, next) => {
    if (req.query.limit === String(contract.operations.get('listSpaces')!.parameters.find((p) => p.name === 'limit')!.schema!.maximum)) {
      res.status(500).json({ error: { code: 500, message: 'planted: limit at its maximum' } });
      return;
    }
    next();
  },
  // A written field dropped: the collection's description is not stored.
  droppedField: (req, _res, next) => {
    if (Buffer.isBuffer(req.body) && req.body.length > 0) {
      const body = JSON.parse(req.body.toString()) as Record<string, unknown>;
      delete body.description;
      req.body = Buffer.from(JSON.stringify(body));
    }
    next();
  },
  // A deleted resource still readable: the delete answers 204 and does nothing.
  deletedReadable: (_req, res) => void res.status(204).end(),
  // An operation that ignores the token: without one (or with a wrong one), it reads as the runner.
  ignoresToken: (req, _res, next) => {
    req.headers.authorization = `Bearer ${TOKEN}`;
    next();
  },
  // A list that repeats an item across pages: every page after the first starts with the first page's first item.
  repeatsItem: async (req, res) => {
    if (!req.query.page) return forward(req, res);
    const first = await fetch(`${reference.url}${req.path}?limit=${String(req.query.limit ?? '')}`, { headers: { authorization: req.headers.authorization ?? '' } });
    const head = ((await first.json()) as { items: unknown[] }).items[0];
    return forward(req, res, (status, text) => {
      const page = JSON.parse(text) as { items: unknown[] };
      return { status, text: JSON.stringify({ ...page, items: [head, ...page.items.slice(1)] }) };
    });
  },
  // An oversized answer: valid JSON, padded with white space.
  oversized: (req, res) => forward(req, res, (status, text) => ({ status, text: text + ' '.repeat(200_000) })),
  // A body parser in front of every route: a JSON body in another charset is a 415, which getSpace does not declare.
  undeclared415: (req, res, next) => {
    if (/charset=(?!utf-8)/i.test(req.headers['content-type'] ?? '')) return void res.status(415).json({ error: { code: 415, message: 'planted: charset' } });
    next();
  },
};

/** Where each fault lives: the operation it is planted on. */
const PLANTED: Record<keyof typeof FAULTS, string> = {
  boundary5xx: 'listSpaces',
  droppedField: 'updateCollection',
  deletedReadable: 'deleteCollection',
  ignoresToken: 'getSpace',
  repeatsItem: 'listSpaces',
  oversized: 'getSpace',
  undeclared415: 'getSpace',
};

let reference: TestServer;
let broken: Server;
let brokenUrl: string;
let fault: keyof typeof FAULTS | undefined;

beforeAll(async () => {
  reference = await startTestServer({ fixture, recordCoverage: false, env: { VALIDATE_RESPONSES: 'false', ...LOCAL_GIT } });
  const app = express();
  // No ETag of the proxy's own: it would be on the GET's answer (Express's res.send) and not on the HEAD's.
  app.set('etag', false);
  // The body as bytes, whatever its type and encoding (the proxy passes it on as it came).
  app.use((req: Request, _res: Response, next: NextFunction) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      req.body = Buffer.concat(chunks);
      next();
    });
  });
  for (const [name, operationId] of Object.entries(PLANTED)) {
    app[methodOf(operationId)](routeOf(operationId), (req: Request, res: Response, next: NextFunction) => {
      if (fault !== name) return next();
      Promise.resolve(FAULTS[name]!(req, res, next)).catch(next);
    });
  }
  // A method the path does not declare, answered as if it were an operation.
  app.put(routeOf('getSpace'), (_req: Request, res: Response, next: NextFunction) => {
    if (fault !== 'methodAnswered') return next();
    res.status(200).json({ planted: true });
  });
  // HEAD refused where GET is answered, as a router that knows only the declared methods does.
  app.head(routeOf('getSpace'), (_req: Request, res: Response, next: NextFunction) => {
    if (fault !== 'headRefused') return next();
    res.status(405).set('allow', 'GET, PATCH, DELETE').json({ error: { code: 405, message: 'planted: HEAD' } });
  });
  app.use((req: Request, res: Response, next: NextFunction) => void forward(req, res).catch(next));
  broken = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => broken.once('listening', resolve));
  brokenUrl = `http://127.0.0.1:${(broken.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => broken?.close(resolve));
  await reference?.close();
});

/** A session on the broken server with the real ids of a few resources made on the reference server. */
async function sessionWithIds(): Promise<Session> {
  const client = reference.withToken(TOKEN);
  const session = new Session({ baseUrl: brokenUrl, token: TOKEN });
  session.ids.add('organizationId', 'acme');
  for (const title of ['First', 'Second', 'Third']) {
    const space = ok(await client.POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: 'acme' } }, body: { title } }), 201);
    session.ids.add('spaceId', space.id);
  }
  return session;
}

/** Sends a result's (shrunk) request again, with the token unless the check was about the token. */
async function resend(result: CheckResult): Promise<{ status: number; text: string }> {
  const request = { ...result.request! };
  if (result.checkId === 'round-trip') {
    // The resource the phase wrote to is deleted by now: the same request, to a new one.
    const collection = ok(await reference.withToken(TOKEN).POST('/v1/orgs/{organizationId}/collections', { params: { path: { organizationId: 'acme' } }, body: { title: 'Again' } }), 201);
    request.url = request.url.replace(/[^/]+$/, collection.id);
  }
  const withToken = result.checkId !== 'auth-required';
  const answer = await fetch(request.url, {
    method: request.method,
    headers: { ...(withToken ? { authorization: `Bearer ${TOKEN}` } : {}), ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
  });
  return { status: answer.status, text: await answer.text() };
}

describe('property phase', () => {
  test('against the reference server with the default budget: no finding', { timeout: timeout(120_000) }, async () => {
    const report = await runConformance({ baseUrl: reference.url, token: TOKEN, property: { seed: 1 } });
    expect(report.property!.results.filter((result) => !result.ok)).toEqual([]);
    expect(report.violations).toEqual([]);
    expect(report.notes).toEqual([]);
    // Every operation was judged by the checks that apply to any answer, and authentication by every operation.
    const judged = new Set(report.property!.results.filter((result) => result.checkId === 'auth-required').map((result) => result.operationId));
    expect(judged.size).toBe(contract.operations.size);
    expect(report.property!.seed).toBe(1);
  });

  // Each planted fault: the phase, restricted to the operations where the fault lives, reports it with its check id.
  const cases: { fault: keyof typeof FAULTS; operations: string[]; checkId: string; examples: number; reproduces: (answer: { status: number; text: string }) => boolean }[] = [
    { fault: 'boundary5xx', operations: ['listSpaces'], checkId: 'no-5xx', examples: 20, reproduces: (answer) => answer.status === 500 },
    { fault: 'droppedField', operations: ['createCollection'], checkId: 'round-trip', examples: 10, reproduces: (answer) => answer.status === 200 && !('description' in (JSON.parse(answer.text) as object)) },
    { fault: 'deletedReadable', operations: ['createCollection'], checkId: 'use-after-delete', examples: 2, reproduces: (answer) => answer.status === 200 },
    { fault: 'ignoresToken', operations: ['getSpace'], checkId: 'auth-required', examples: 1, reproduces: (answer) => answer.status === 200 },
    { fault: 'repeatsItem', operations: ['listSpaces'], checkId: 'pagination', examples: 1, reproduces: (answer) => answer.status === 200 },
    { fault: 'oversized', operations: ['getSpace'], checkId: 'response-size', examples: 1, reproduces: (answer) => answer.text.length > 200_000 },
  ];
  test('the HTTP layer: an undeclared 415 for a body an operation does not take, an undeclared method answered 200 and a HEAD refused are reported', { timeout: timeout(60_000) }, async () => {
    for (const [planted, checkId, message] of [
      ['undeclared415', 'framework-answers', /^\[framework-answers\] a JSON body in latin1: .*415/],
      ['methodAnswered', 'method-not-allowed', /^\[method-not-allowed\] PUT \/v1\/spaces\/\{spaceId\} \(not declared\): answered 200, expected 405 or 404$/],
      ['headRefused', 'head', /^\[head\] with the token: HEAD answered 405, GET 200$/],
    ] as const) {
      fault = planted as keyof typeof FAULTS;
      try {
        const session = await sessionWithIds();
        const report = await runPropertyPhase(session, { operations: ['getSpace'], examples: 1, seed: 7, largeBodyBytes: 1024, checks: ['framework-answers', 'method-not-allowed', 'head'] });
        const failed = report.results.filter((result) => !result.ok);
        expect(failed.map((result) => `${result.operationId} ${result.checkId} ${result.message}`)).toEqual([expect.stringMatching(`^getSpace ${checkId} `)]);
        expect(failed[0]!.message).toMatch(message);
        expect(session.violations.some((violation) => violation.step === `property: ${checkId}`)).toBe(true);
      } finally {
        fault = undefined;
      }
    }
    // Without a fault, they hold on the reference server behind the same proxy.
    const session = await sessionWithIds();
    const report = await runPropertyPhase(session, { operations: ['getSpace', 'deleteSpace', 'updateSpace'], examples: 1, seed: 7, largeBodyBytes: 1024, checks: ['framework-answers', 'method-not-allowed', 'head'] });
    expect(report.results.filter((result) => !result.ok)).toEqual([]);
    expect(report.results.map((result) => `${result.operationId} ${result.checkId}`).sort()).toEqual([
      'deleteSpace framework-answers',
      'getSpace framework-answers',
      'getSpace head',
      'getSpace method-not-allowed',
      'updateSpace framework-answers',
    ]);
  });

  // What the runner finds of a fault planted in front of the server does not depend on the engine under it: these,
  // and the repeatability of a seed, run on SQLite (the postgres project runs the phase against the server above).
  const runnerOnly = test.skipIf(testEngine() === 'postgres');
  for (const planted of cases) {
    runnerOnly(`a planted fault (${planted.fault}) is reported as ${planted.checkId}, and its shrunk request reproduces it`, { timeout: timeout(60_000) }, async () => {
      fault = planted.fault;
      try {
        const session = await sessionWithIds();
        const report = await runPropertyPhase(session, { operations: planted.operations, examples: planted.examples, seed: 7, maxResponseBytes: 100_000 });
        const failed = report.results.filter((result) => !result.ok);
        expect(failed.map((result) => `${result.operationId} ${result.checkId}`)).toContain(`${PLANTED[planted.fault]} ${planted.checkId}`);
        const finding = failed.find((result) => result.checkId === planted.checkId)!;
        expect(finding.request!.curl).toMatch(/^curl -sS -X [A-Z]+ 'http:\/\/127\.0\.0\.1:\d+\/v1\//);
        expect(planted.reproduces(await resend(finding))).toBe(true);
        // The failure is a violation of the run too.
        expect(session.violations.some((violation) => violation.kind === 'property' && violation.step === `property: ${planted.checkId}`)).toBe(true);
        if (planted.fault === 'boundary5xx') expect(new URL(finding.request!.url).search).toBe('?limit=1000');
        if (planted.fault === 'droppedField') expect(Object.keys(finding.request!.body as object)).toContain('description');
      } finally {
        fault = undefined;
      }
    });
  }

  runnerOnly('the same seed makes the same requests', { timeout: timeout(60_000) }, async () => {
    const runs: string[][] = [];
    for (let run = 0; run < 2; run++) {
      const session = new Session({ baseUrl: reference.url, token: TOKEN });
      session.ids.add('organizationId', 'acme');
      await runPropertyPhase(session, { operations: ['listSpaces', 'listCollections'], examples: 5, seed: 42, checks: ['no-5xx', 'invalid-refused'] });
      runs.push(session.calls.map((call) => `${call.method} ${call.url}`));
    }
    expect(runs[0]!.length).toBeGreaterThan(5);
    expect(runs[1]).toEqual(runs[0]);
  });
});

describe('the values it makes up', () => {
  /** Every string schema of the contract with a format or a pattern, found anywhere in the document, as the phase reads it. */
  const formatted: Schema[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (typeof node !== 'object' || node === null) return;
    const schema = node as Schema;
    if ([schema.type].flat().includes('string') && (typeof schema.format === 'string' || typeof schema.pattern === 'string')) formatted.push(schema);
    Object.values(node).forEach(visit);
  };
  visit(contract.document);
  const sample = (schema: Schema) => fc.sample(arbitraryOf(contract, schema), { numRuns: 20, seed: 7 }) as string[];
  /** The host name a value starts with (`docs.acme.io/guide`), if it starts with one. */
  const leadingHost = (value: string) => /^((?:[a-z0-9-]+\.)+[a-z0-9-]+)(?=$|[/:?#])/i.exec(value)?.[1];

  test('name no real host: the hosts of addresses, e-mail addresses and host names of patterns are under .invalid (RFC 6761)', () => {
    const of = (format: string) => formatted.filter((schema) => schema.format === format).flatMap((schema) => sample(schema));
    const patterned = formatted.filter((schema) => typeof schema.pattern === 'string').flatMap((schema) => sample(schema));
    const hosts = patterned.flatMap((value) => leadingHost(value) ?? []);
    // The contract has `uri` fields, an e-mail field, and patterns of host names (a site's hostname, its proxy).
    expect([of('uri').length, of('email').length, hosts.length].every((count) => count >= 20)).toBe(true);
    const invalid = (host: string) => host.toLowerCase().endsWith('.invalid');
    expect(of('uri').filter((address) => !invalid(new URL(address).hostname))).toEqual([]);
    expect(of('email').filter((address) => !invalid(address.split('@')[1]!))).toEqual([]);
    expect(hosts.filter((host) => !invalid(host))).toEqual([]);
  });
});
