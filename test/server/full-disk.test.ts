// The server on SQLite whose DATA_DIR's disk fills up (a small tmpfs the test mounts, so it needs root): while full,
// writes are 503 with `Retry-After` naming the full storage and reads are served, a restart serves reads; once there
// is room, writes are accepted again without a restart, and nothing acknowledged is lost.
// How the disk fills, what is logged, why CI fails a skip: test/README.md, "The machine failing under the server".
// @needs mount processes
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { createDocsClient, paginate } from '../../client/index.ts';
import { ok } from '../support/expect.ts';
import { eventually, type Instance, logLines, startInstance } from '../support/instances.ts';

const isRoot = process.getuid?.() === 0;
if (!isRoot) {
  const reason = 'full-disk.test.ts: mounting a small filesystem needs root';
  // CI runs as root and requires this test (.ci/run); elsewhere it is skipped, saying why.
  if (process.env.DOCS_TEST_MOUNTS === 'required') throw new Error(`${reason}, and DOCS_TEST_MOUNTS=required`);
  console.log(`${reason}: skipped (run it as root, as CI does)`);
}

const TOKEN = 'full-disk-token';
const ORGANIZATION = 'demo';
/** An OpenAPI text of about 1 MB: a handful fill the disk (each is kept as sent and as processed). */
const BIG_SPEC = JSON.stringify({
  openapi: '3.1.0',
  info: { title: 'Big', version: '1.0.0', description: 'x'.repeat(1_000_000) },
  paths: { '/pets': { get: { responses: { '200': { description: 'The pets' } } } } },
});
const STORAGE_FULL = /the storage is full/;

describe.skipIf(!isRoot)('SQLite on a disk that fills up', () => {
  const instances: Instance[] = [];
  let mountPoint: string | undefined;
  let mounted = false;

  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
    if (mounted) execFileSync('umount', ['--lazy', mountPoint!]);
    if (mountPoint) rmSync(mountPoint, { recursive: true, force: true });
  });

  /** Every answer 503 an instance gave, checked to be the full storage's. */
  const refusals = new Map<Instance, number>();
  const refused = (instance: Instance, answer: { response: Response; error?: unknown }) => {
    expect(answer.response.status).toBe(503);
    expect(answer.response.headers.get('retry-after')).toBe('10');
    expect((answer.error as { error: { message: string } }).error.message).toMatch(STORAGE_FULL);
    refusals.set(instance, (refusals.get(instance) ?? 0) + 1);
  };

  test('writes refused with 503 and reads served while it is full, across a restart; writes accepted once space is freed', async ({ onTestFailed }) => {
    onTestFailed(() => {
      for (const [index, instance] of instances.entries()) {
        const lines = instance.output().split('\n').filter((line) => !line.includes('"msg":"request"'));
        console.log(`instance ${index} (exit code ${instance.child.exitCode}):\n${lines.slice(-30).join('\n')}`);
      }
    });
    mountPoint = mkdtempSync(path.join(tmpdir(), 'full-disk-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=40m', 'tmpfs', mountPoint]);
    mounted = true;
    const dataDir = path.join(mountPoint, 'data');
    // Other files on the disk, which the operator deletes to free space: more than SQLite's log holds while the disk
    // is full, which moves into the database file once there is room.
    const others = path.join(mountPoint, 'others');
    writeFileSync(others, Buffer.alloc(16 * 1024 * 1024));
    const filler = path.join(mountPoint, 'filler');
    const env = { DATA_DIR: dataDir, DOCS_API_TOKEN: TOKEN };
    mkdirSync(dataDir);
    const first = await startInstance(env);
    instances.push(first);
    // Without retries: each refusal is seen here (the client's policy waits out `Retry-After` for an idempotent call).
    const clientOf = (instance: Instance) => createDocsClient({ baseUrl: instance.url, token: TOKEN, retry: false });
    let client = clientOf(first);
    const spaces: string[] = [];
    const specs: string[] = [];
    /** The ids of the organization's spaces, every page of the list read. */
    const listed = async () => {
      const ids: string[] = [];
      for await (const space of paginate(client, '/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ORGANIZATION }, query: { limit: 100 } } })) ids.push(space.id);
      return ids;
    };
    const newSpace = (title: string) => client.POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ORGANIZATION } }, body: { title } });

    // Large specs and spaces through the API until the disk refuses one.
    for (let i = 0; ; i++) {
      expect(i, 'a 40 MB disk refuses a write within 200 specs of 1 MB').toBeLessThan(200);
      const spec = await client.POST('/v1/orgs/{organizationId}/openapi', { params: { path: { organizationId: ORGANIZATION } }, body: { slug: `big-${i}`, source: { text: BIG_SPEC } } });
      if (spec.response.status === 201) specs.push(`big-${i}`);
      else refused(first, spec);
      const space = await newSpace(`Filling ${i}`);
      if (space.response.status === 201) spaces.push(space.data!.id);
      else refused(first, space);
      if (spec.response.status === 503 || space.response.status === 503) break;
    }
    const fill = () => fillDisk(filler);
    fill();

    /** The spaces deleted, which lists no longer show. */
    const deleted = new Set<string>();
    const deleteOne = async () => {
      const id = spaces.find((space) => !deleted.has(space))!;
      const answer = await client.DELETE('/v1/spaces/{spaceId}', { params: { path: { spaceId: id } } });
      if (answer.response.status === 204) deleted.add(id);
      return answer;
    };
    const createOne = async () => {
      const answer = await newSpace('Last');
      if (answer.response.status === 201) spaces.push(answer.data!.id);
      return answer;
    };

    /**
     * Creates spaces until the full disk refuses one: SQLite fits a write into what its log already holds (the pages
     * a refused larger write took, or the whole log once it could be copied into the database file), so a write may
     * still be accepted, and acknowledged like any other, until what it needs is more than that.
     */
    const untilRefused = async (instance: Instance) => {
      for (let i = 0; ; i++) {
        expect(i, 'a full disk refuses a new space within 1000').toBeLessThan(1000);
        const answer = await createOne();
        if (answer.response.status === 503) return refused(instance, answer);
        expect(answer.response.status).toBe(201);
      }
    };
    /**
     * While the disk is full: a write that needs more room than SQLite holds is a 503 (new spaces until one is
     * refused), any other write a 503 or a success (a large spec fits into the pages a refused larger write took, a
     * DELETE changes a row in place), never anything else; reads 200, /health degraded.
     */
    const full = async (instance: Instance) => {
      await untilRefused(instance);
      const spec = await client.POST('/v1/orgs/{organizationId}/openapi', { params: { path: { organizationId: ORGANIZATION } }, body: { slug: `spec-${instances.length}`, source: { text: BIG_SPEC } } });
      if (spec.response.status === 201) specs.push(`spec-${instances.length}`);
      else refused(instance, spec);
      const deletion = await deleteOne();
      if (deletion.response.status !== 204) refused(instance, deletion);
      for (const id of [spaces[0]!, spaces.at(-1)!]) expect(ok(await client.GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: id } } })).id).toBe(id);
      expect(await listed()).toEqual(expect.arrayContaining(spaces.filter((id) => !deleted.has(id))));
      ok(await client.GET('/v1/orgs/{organizationId}/openapi/{specSlug}', { params: { path: { organizationId: ORGANIZATION, specSlug: specs[0]! } } }));
      const health = await fetch(`${instance.url}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'degraded', database: 'reachable', storage: 'full', engine: 'sqlite' });
    };
    await full(first);

    // A restart on the full disk starts, and serves the same.
    await first.stop();
    // What the stop freed (SQLite removes its log once it could copy it into the database file) is taken too.
    fill();
    const second = await startInstance(env);
    instances.push(second);
    client = clientOf(second);
    await full(second);

    // Space freed: writes are accepted again, without a restart.
    rmSync(filler);
    rmSync(others);
    const created = await eventually(async () => {
      const space = await newSpace('After');
      if (space.response.status === 201) return space.data!;
      refused(second, space);
      return undefined;
    });
    spaces.push(created.id);
    expect((await deleteOne()).response.status).toBe(204);
    await eventually(async () => {
      const health = (await (await fetch(`${second.url}/health`)).json()) as { status: string; storage: string };
      return health.status === 'ok' && health.storage === 'ok' ? true : undefined;
    });
    // Nothing acknowledged is lost (the spaces deleted are no longer listed, and still read).
    expect(await listed()).toEqual(expect.arrayContaining(spaces.filter((id) => !deleted.has(id))));
    for (const id of deleted) expect(ok(await client.GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: id } } })).deletedAt).toEqual(expect.any(String));
    for (const slug of specs) ok(await client.GET('/v1/orgs/{organizationId}/openapi/{specSlug}', { params: { path: { organizationId: ORGANIZATION, specSlug: slug } } }));
    // The start-up writes were made: at the start when they fitted, or else once there was room.
    await eventually(async () => (logLines(second).some((line) => line.msg.startsWith('DOCS_API_TOKEN is the token of')) ? true : undefined));

    expectConditionLogged(first, second, refusals);
  }, 120_000);
});

/** The disk's last bytes taken by `file`. */
function fillDisk(file: string): void {
  try {
    for (;;) appendFileSync(file, Buffer.alloc(64 * 1024));
  } catch (error) {
    expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
  }
}

/** What the two instances logged of the full disk, `refusals` their 503s. */
function expectConditionLogged(first: Instance, second: Instance, refusals: Map<Instance, number>): void {
  // One line when the condition starts, one when it ends (the first process was stopped before); nothing else at
  // error level; each refused request a warn-level access-log line without a stack.
  for (const instance of [first, second]) {
    const lines = logLines(instance);
    const conditionLines = lines.filter((line) => line.condition === 'storage-full');
    const expected = instance === first ? [50] : [50, 30];
    expect(conditionLines.map((line) => line.level)).toEqual(expected);
    expect(conditionLines[0]).toMatchObject({ cause: expect.stringMatching(/SQLITE_FULL|SQLITE_IOERR/) });
    expect(lines.filter((line) => line.level >= 50 && line.condition === undefined)).toEqual([]);
    const refusedLines = lines.filter((line) => line.msg === 'request' && line.status === 503);
    expect(refusedLines.length).toBe(refusals.get(instance));
    expect(refusedLines.filter((line) => line.level !== 40 || line.err !== undefined)).toEqual([]);
  }
  expect(logLines(second).find((line) => line.condition === 'storage-full' && line.level === 30)).toMatchObject({
    durationMs: expect.any(Number),
    refusedRequests: refusals.get(second),
  });
}
