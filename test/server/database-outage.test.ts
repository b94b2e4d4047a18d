// PostgreSQL crashing again and again under two instances of the server, every core kept busy, while clients write
// through both: each instance answers again after each return without a restart, nothing acknowledged is lost,
// every answer while the database is down is a 503 with `Retry-After` naming the cause, each outage logged in two
// lines.
// What each of these means exactly: test/README.md, "The machine failing under the server".
// @needs postgres processes
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createDocsClient, type DocsClient } from '../../client/index.ts';
import { ok } from '../support/expect.ts';
import { eventually, type Instance, logLines, query, startInstance } from '../support/instances.ts';
import { type PostgresServer, startPostgres } from '../../scripts/postgres-server.ts';

/** Outages in a row, and how long the database stays down in each. */
const OUTAGES = 10;
const DOWN_MS = 2000;
/** Clients sending requests all along, each through both instances in turn. */
const CLIENTS = 4;
/** Longest wait for an instance to answer again once the database is back: far beyond what it takes (see the log). */
const BACK_WITHIN_MS = 20_000;
const TOKEN = 'outage-token';
const ORGANIZATION = 'demo';
const SPEC_TEXT = JSON.stringify({ openapi: '3.1.0', info: { title: 'Pets', version: '1.0.0' }, paths: { '/pets': { get: { responses: { '200': { description: 'The pets' } } } } } });

/** The cores no process is running on now: the cores less the runnable processes but this one (/proc/loadavg's fourth field). */
function idleCores(): number {
  const runnable = Number(/^\S+ \S+ \S+ (\d+)\//.exec(readFileSync('/proc/loadavg', 'utf8'))?.[1] ?? 1);
  return Math.max(0, availableParallelism() - (runnable - 1));
}

/** The lines that logged an outage's start (error) or end (info). */
const outageLines = (instance: Instance, level: 50 | 30) => logLines(instance).filter((line) => line.condition === 'database-unreachable' && line.level === level);

/** What the clients were answered. */
interface Answers {
  spaces: string[];
  changeRequests: string[];
  specs: string[];
  reads: number;
  refused: { retryAfter: string | null; message: string }[];
  unexpected: string[];
}

/**
 * One request of the mix, the `n`th of a client: a space created (its organization's write queue), a change request
 * (a space's queue, where writes of one instance share a transaction), a list read, or an OpenAPI spec created (which
 * queues a processing job). An answer is expected to be a success or a 503; anything else is recorded as unexpected.
 */
async function request(client: DocsClient, n: number, label: string, spaceId: string, answers: Answers): Promise<number> {
  let answer: { response: Response; error?: unknown; data?: unknown };
  let acknowledged: ((data: never) => void) | undefined;
  switch (n % 4) {
    case 0:
      answer = await client.POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ORGANIZATION } }, body: { title: label } });
      acknowledged = (space: { id: string }) => answers.spaces.push(space.id);
      break;
    case 1:
      answer = await client.POST('/v1/spaces/{spaceId}/change-requests', { params: { path: { spaceId } }, body: { subject: label } });
      acknowledged = (changeRequest: { id: string }) => answers.changeRequests.push(changeRequest.id);
      break;
    case 2:
      answer = await client.GET('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ORGANIZATION }, query: { limit: 5 } } });
      acknowledged = () => answers.reads++;
      break;
    default: {
      const slug = label.toLowerCase().replace(/[^a-z0-9]+/g, '-');
      answer = await client.POST('/v1/orgs/{organizationId}/openapi', { params: { path: { organizationId: ORGANIZATION } }, body: { slug, source: { text: SPEC_TEXT } } });
      acknowledged = () => answers.specs.push(slug);
    }
  }
  const { status } = answer.response;
  if (status === 200 || status === 201) acknowledged(answer.data as never);
  else if (status === 503) {
    answers.refused.push({ retryAfter: answer.response.headers.get('retry-after'), message: (answer.error as { error: { message: string } }).error.message });
  } else answers.unexpected.push(`${status} ${JSON.stringify(answer.error)}`);
  return status;
}

describe('PostgreSQL crashing again and again under two instances on a loaded machine', () => {
  let server: PostgresServer;
  let instances: Instance[] = [];
  const load: ChildProcess[] = [];

  beforeAll(async () => {
    // Commits wait for PostgreSQL's log to be written (not flushed: the machine does not crash, the database does),
    // so that what it acknowledged survives an immediate stop, as it does on a durable server.
    server = startPostgres({ port: 6900 + Math.floor(Math.random() * 500), settings: ['synchronous_commit=on'] });
    await query(server.url('postgres'), 'CREATE DATABASE outages');
    const env = { DATABASE_URL: server.url('outages'), DOCS_API_TOKEN: TOKEN, JOB_LEASE_MS: '1500' };
    instances = [await startInstance(env), await startInstance(env)];
    // The machine loaded: a process spinning on each core that nothing else keeps busy, beside the instances and
    // PostgreSQL (alone, one per core; in a whole run, whose other files keep the cores busy, as many as are idle).
    for (let core = 0; core < idleCores(); core++) load.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  }, 60_000);

  afterAll(async () => {
    for (const child of load) child.kill('SIGKILL');
    await Promise.all(instances.map((instance) => instance.stop()));
    server?.stop();
  });

  test(`${OUTAGES} outages in a row: each instance back within seconds, nothing acknowledged lost, 503s only, two log lines each`, async ({ onTestFailed }) => {
    // What the instances logged last (the access log left out) tells why one exited or stopped answering.
    onTestFailed(() => {
      for (const [index, instance] of instances.entries()) {
        const lines = instance.output().split('\n').filter((line) => !line.includes('"msg":"request"'));
        console.log(`instance ${index} (exit code ${instance.child.exitCode}):\n${lines.slice(-40).join('\n')}`);
      }
    });
    const clients = instances.map((instance) => createDocsClient({ baseUrl: instance.url, token: TOKEN, retry: false, timeoutMs: 15_000 }));
    const space = ok(await clients[0]!.POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ORGANIZATION } }, body: { title: 'Changes' } }), 201);
    const answers: Answers = { spaces: [], changeRequests: [], specs: [], reads: 0, refused: [], unexpected: [] };
    const acknowledged = () => answers.spaces.length + answers.changeRequests.length + answers.specs.length;

    let sending = true;
    const sender = async (index: number) => {
      for (let n = 0; sending; n++) {
        try {
          // A client that was refused waits a little, as any would, rather than spinning.
          if ((await request(clients[(index + n) % clients.length]!, n, `Client ${index} request ${n}`, space.id, answers)) === 503) {
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        } catch (failure) {
          answers.unexpected.push(`no answer: ${String(failure)}`);
        }
      }
    };
    const senders = Array.from({ length: CLIENTS }, (_, index) => sender(index));

    /** How long after the database's return each instance took to acknowledge a write again, per outage. */
    const backAfterMs: number[][] = [];
    try {
      for (let outage = 0; outage < OUTAGES; outage++) {
        const before = acknowledged();
        await eventually(async () => (acknowledged() >= before + 2 * CLIENTS ? true : undefined));
        server.crash();
        await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
        server.resume();
        const returned = performance.now();
        backAfterMs.push(
          await Promise.all(
            clients.map(async (client, index) => {
              await eventually(
                async () => ((await request(client, 0, `Instance ${index} after outage ${outage}`, space.id, answers)) === 201 ? true : undefined),
                BACK_WITHIN_MS,
              );
              return Math.round(performance.now() - returned);
            }),
          ),
        );
        // Each instance has seen this outage end (its line), before the next one begins.
        for (const instance of instances) await eventually(async () => (outageLines(instance, 30).length === outage + 1 ? true : undefined), BACK_WITHIN_MS);
      }
    } finally {
      sending = false;
      await Promise.all(senders);
    }
    const { spaces, changeRequests, specs, reads, refused, unexpected } = answers;
    console.log(
      `${OUTAGES} outages of ${DOWN_MS} ms: acknowledged ${spaces.length} spaces, ${changeRequests.length} change requests, ${specs.length} specs, ` +
        `${reads} reads; ${refused.length} answers 503; each instance back after (ms, per outage) ${JSON.stringify(backAfterMs)}`,
    );

    expect(unexpected).toEqual([]);
    for (const instance of instances) expect(instance.child.exitCode).toBeNull();
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) {
      expect(answer.retryAfter).toMatch(/^[1-9]\d*$/);
      expect(answer.message).toMatch(/the database is unreachable/);
    }

    // Nothing acknowledged is lost, and the jobs the acknowledged specs queued all ran, outages or not.
    const url = server.url('outages');
    expect((await query<{ n: number }>(url, 'SELECT count(*)::int AS n FROM spaces WHERE id = ANY($1)', [spaces]))[0]!.n).toBe(spaces.length);
    expect((await query<{ n: number }>(url, 'SELECT count(*)::int AS n FROM change_requests WHERE id = ANY($1)', [changeRequests]))[0]!.n).toBe(changeRequests.length);
    await eventually(async () => {
      const [row] = await query<{ n: number }>(url, `SELECT count(*)::int AS n FROM openapi_specs WHERE slug = ANY($1) AND processing_state = 'complete'`, [specs]);
      return row!.n === specs.length ? true : undefined;
    }, 60_000);

    let refusedInLog = 0;
    for (const instance of instances) {
      const lines = logLines(instance);
      const started = outageLines(instance, 50);
      const ended = outageLines(instance, 30);
      expect({ started: started.length, ended: ended.length }).toEqual({ started: OUTAGES, ended: OUTAGES });
      for (const line of started) expect(line.cause).toEqual(expect.any(String));
      for (const line of ended) expect(line).toMatchObject({ durationMs: expect.any(Number), refusedRequests: expect.any(Number), retriedJobSteps: expect.any(Number) });
      refusedInLog += ended.reduce((sum, line) => sum + (line.refusedRequests as number), 0);
      // Nothing else at error level; each refused request is a warn-level access-log line without a stack.
      expect(lines.filter((line) => line.level >= 50 && line.condition === undefined)).toEqual([]);
      const refusedLines = lines.filter((line) => line.msg === 'request' && line.status === 503);
      expect(refusedLines.length).toBeGreaterThan(0);
      expect(refusedLines.filter((line) => line.level !== 40 || line.err !== undefined)).toEqual([]);
    }
    // The counts of the end lines are the refusals the clients saw, each counted once at most (a request refused
    // by the end of an outage the instance had already seen end is a line of the access log only).
    expect(refusedInLog).toBeGreaterThan(0);
    expect(refusedInLog).toBeLessThanOrEqual(refused.length);
  }, 300_000);
});
