// Every example of the contract (`@opExample` in spec/) is what the reference server answers: its request, sent by
// the demo organization's admin to a server holding the examples' world (scripts/example-world/) as it is before
// any example ran, gets the example's answer, the status and every field exactly but for what the server makes when
// it answers (ids, tokens, times). EXAMPLES_UPDATE=1 writes the server's answers into spec/.
// How, and how to update: test/README.md, "The contract's examples, answered".
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createDocsClient, type DocsClient } from '../../client/index.ts';
import { createTestDatabase, type TestDatabase, testEngine } from '../support/databases.ts';
import { ADMIN_TOKEN, EXAMPLE_SEED, WORLD_START } from '../../scripts/example-world/world.ts';
import { startOutside, type Outside } from '../../scripts/example-world/outside.ts';
import { buildWorld, WORLD_PARTS } from '../../scripts/example-world/parts.ts';
import { type ExampleAnswer, writeExampleAnswers } from '../support/example-source.ts';
import { answerDifferences, ExamplePairs, mapCursor, type OperationExample, operationExamples } from '../support/examples.ts';
import { loadContract } from '../../server/http/contract.ts';
import { repoRoot } from '../support/repo.ts';
import { pendingOperations } from '../../server/handlers/pending.ts';
import { startTestServer, type TestServer, type TestServerOptions } from '../support/server.ts';

/**
 * The examples of the operations the server implements. A pending operation (server/handlers/pending.ts) is answered
 * from the contract, its example: comparing would prove nothing, so its examples wait for its implementation (named
 * in the run as skipped).
 */
const all = operationExamples(loadContract());
const pending = new Set<string>(Object.keys(pendingOperations));
const examples = all.filter((example) => !pending.has(example.operationId));

/** Where the examples' answers point: the address of the service the examples show. */
const PUBLIC_URL = 'https://docs.example.com';

const settings: TestServerOptions = {
  fixture: EXAMPLE_SEED,
  startAt: WORLD_START,
  recordCoverage: false,
  env: { PUBLIC_URL, LOG_LEVEL: 'silent' },
};

/** The ids of the seed's records, which the examples use as they are. */
const SEEDED = new Set(JSON.stringify(EXAMPLE_SEED).match(/(?<="id":")[^"]+/g));

/** The examples' world in a server: the ids it made for the records the examples name, and when it was done. */
interface World {
  ids: Map<string, string>;
  outside: Map<string, string>;
  end: string;
}

async function buildServerWorld(server: TestServer, outside: Map<string, string>): Promise<World> {
  server.clock.set(WORLD_START);
  const ids = await buildWorld({
    as: (user) => server.withToken(user === undefined ? ADMIN_TOKEN : `${user}-token`),
    clock: server.clock,
    origins: outside,
    settled: () => server.running.ctx.jobs.idle(),
    seeded: SEEDED,
  });
  return { ids, outside, end: server.clock.now().toISOString() };
}

/** The answers to write into spec/ (EXAMPLES_UPDATE=1, or `all`), by operation id and example name. */
const updates = process.env.EXAMPLES_UPDATE === '1' || process.env.EXAMPLES_UPDATE === 'all' ? new Map<string, Map<string, ExampleAnswer>>() : undefined;
const updateAll = process.env.EXAMPLES_UPDATE === 'all';

/** Sends an example's request and compares the answer with the example's; the differences, one line each. */
async function differences(client: DocsClient, world: World, example: OperationExample): Promise<string[]> {
  const pairs = new ExamplePairs(world.ids);
  const toServer = <T>(value: T): T => {
    let text = JSON.stringify(pairs.toServerValue(value));
    for (const [origin, served] of world.outside) text = text.replaceAll(origin, served);
    return text === undefined ? value : (JSON.parse(text) as T);
  };
  const call = (client as unknown as Record<string, (path: string, init: object) => Promise<{ data?: unknown; error?: unknown; response: Response }>>)[
    example.method.toUpperCase()
  ]!;
  const answer = await call(example.path, {
    params: toServer(example.parameters),
    ...(example.body === undefined ? {} : { body: toServer(example.body) }),
  });
  // An operation the server answers from the contract (its handler missing) answers its example: that proves nothing.
  const fromContract = answer.response.headers.get('x-contract-answer');
  if (fromContract !== null) return [`the server answers ${example.operationId} from the contract (${fromContract}): it does not implement it yet`];
  if (answer.response.status !== example.status) {
    return [`status: the example has ${example.status}, the server ${answer.response.status} ${JSON.stringify(answer.error ?? '')}`];
  }
  let body = answer.data;
  if (body !== undefined) {
    let text = JSON.stringify(body);
    for (const [origin, served] of world.outside) text = text.replaceAll(served, origin);
    body = JSON.parse(text);
  }
  // A request's own tokens (its path's ids) are paired first: the answer's must be the ones it named.
  answerDifferences(example.parameters, toServer(example.parameters), pairs);
  if (example.body !== undefined) answerDifferences(example.body, toServer(example.body), pairs);
  // What the server answered, in the example's ids (a cursor's too: its key and list named by the example's).
  const exampleOf = (part: unknown) => (typeof part === 'string' ? (pairs.exampleOf(part) ?? part) : part);
  const cursorsOf = (_key: string, item: unknown) =>
    typeof item === 'string' ? mapCursor(item, (data) => ({ ...data, k: data.k.map(exampleOf), l: exampleOf(data.l) as string })) : item;
  const answerOf = (value: unknown) => {
    let text = JSON.stringify(value, cursorsOf).replace(/[A-Za-z0-9_-]{16,}/g, (token) => pairs.exampleOf(token) ?? token);
    for (const [origin, served] of world.outside) text = text.replaceAll(served, origin);
    return JSON.parse(text) as unknown;
  };
  const found = answerDifferences(example.response, body, pairs);
  if (updates) {
    const answers = updates.get(example.operationId) ?? new Map<string, ExampleAnswer>();
    const headers = answerOf(Object.fromEntries(answer.response.headers)) as Record<string, string>;
    updates.set(example.operationId, answers.set(example.name, { body: body === undefined ? undefined : answerOf(body), headers, differs: updateAll || found.length > 0 }));
    return [];
  }
  return found;
}

for (const example of all.filter((candidate) => pending.has(candidate.operationId))) {
  test.todo(`${example.operationId}: pending (answered from the contract until implemented)`);
}

const title = (example: OperationExample) => `${example.operationId}${example.name === 'default' ? '' : ` (${example.name})`}`;

describe.skipIf(examples.length === 0)("the contract's examples, sent to the reference server", () => {
  let outside: Outside | undefined;
  beforeAll(async () => {
    outside = await startOutside(Object.assign({}, ...WORLD_PARTS.map((part) => part.outside ?? {})));
  });
  afterAll(async () => {
    await outside?.close();
    for (const part of WORLD_PARTS) await part.close?.();
  });

  if (testEngine() === 'sqlite') {
    let server: TestServer | undefined;
    let world: World;
    beforeAll(async () => {
      server = await startTestServer({ ...settings, engine: 'sqlite' });
      world = await buildServerWorld(server, outside!.origins);
      await server.running.keep();
    }, 120_000);
    afterAll(async () => {
      await server?.close();
      if (updates && updates.size > 0) {
        const written = await writeExampleAnswers(repoRoot, updates);
        console.log(`examples: wrote ${written.answers} answers into ${written.files.join(', ') || 'no file'}; run \`npm run generate\``);
      }
    });

    test.each(examples.map((example) => [title(example), example] as const))('%s', async (_title, example) => {
      await server!.running.reset();
      server!.clock.set(world.end);
      expect(await differences(server!.withToken(ADMIN_TOKEN), world, example)).toEqual([]);
    });
  } else {
    let database: TestDatabase | undefined;
    let reads: TestServer | undefined;
    let world: World;
    /** The database each server answers from, by server: named in a difference, with the world's end. */
    const databases = new Map<TestServer, string>();
    // A server of its own on a clone of the world's database, which holds every record already: no fixture to apply.
    const serverOnWorld = async () => {
      const clone = await createTestDatabase({ template: database!.name });
      const server = await startTestServer({ ...settings, fixture: {}, engine: 'postgres', database: clone });
      databases.set(server, clone.name);
      return server;
    };
    beforeAll(async () => {
      database = await createTestDatabase();
      // The world's database outlives its server: each example's database is a clone of it.
      const server = await startTestServer({ ...settings, engine: 'postgres', database: { ...database, drop: async () => undefined } });
      try {
        world = await buildServerWorld(server, outside!.origins);
      } finally {
        await server.close();
      }
      // Reads change nothing another example's answer shows (they write what the server keeps for itself: a
      // revision's link index on first ask, a PDF's address, a token's last use): one server answers them all.
      reads = await serverOnWorld();
    }, 120_000);
    afterAll(async () => {
      await reads?.close();
      await database?.drop();
    });

    // Side by side: each example waits mostly on PostgreSQL (a database cloned, a server started on it).
    test.concurrent.each(examples.map((example) => [title(example), example] as const))('%s', async (_title, example) => {
      const server = example.method === 'get' ? reads! : await serverOnWorld();
      try {
        server.clock.set(world.end);
        const client = createDocsClient({ baseUrl: server.url, token: ADMIN_TOKEN });
        const where = `${server === reads ? 'the shared reads server' : 'a server of its own'}, on database ${databases.get(server)} (a clone of ${database!.name}, the world built by ${world.end})`;
        expect(await differences(client, world, example), where).toEqual([]);
      } finally {
        if (server !== reads) await server.close();
      }
    });
  }
});
