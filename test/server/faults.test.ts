// Declared faults on demand (server/http/faults.ts, the harness's `server.faults`): through the harness, as a child
// process (the default) and in process, with the typed client and its retry; the state read back after each.
// @needs processes
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { ApiError, type RetryAttempt } from '../../client/index.ts';
import { type DocsServer, type Fault, type Seed, startDocsServer } from '../../server/testing/index.ts';

const seed: Seed = {
  users: [
    { id: 'ann', displayName: 'Ann', tokens: ['ann-token'] },
    { id: 'bob', displayName: 'Bob', tokens: ['bob-token'] },
  ],
  organizations: [
    {
      id: 'acme',
      title: 'Acme',
      members: [
        { user: 'ann', role: 'admin' },
        { user: 'bob', role: 'read' },
      ],
      spaces: [
        { id: 'handbook', title: 'Handbook' },
        { id: 'notes', title: 'Notes' },
      ],
    },
  ],
};
const acme = { params: { path: { organizationId: 'acme' } } };
const space = (spaceId: string) => ({ params: { path: { spaceId } } });

// What a fault may say is the contract's: an operation id, and an error status that operation declares.
const typed: Fault<'getSpace'> = { operation: 'getSpace', status: 503, times: 2, when: { params: { spaceId: 'handbook' } } };
// @ts-expect-error getSpace declares no 409
const undeclaredStatus: Fault<'getSpace'> = { operation: 'getSpace', status: 409 };
// @ts-expect-error a success is not a fault
const success: Fault<'getSpace'> = { operation: 'getSpace', status: 200 };
// @ts-expect-error not an operation of the contract
const unknownOperation: Fault<'getSpaces'> = { operation: 'getSpaces', status: 503 };
// @ts-expect-error getSpace has no path parameter organizationId
const unknownParameter: Fault<'getSpace'> = { operation: 'getSpace', status: 503, when: { params: { organizationId: 'acme' } } };
void [undeclaredStatus, success, unknownOperation, unknownParameter];

for (const inProcess of [false, true]) {
  describe(inProcess ? 'in process' : 'as a child process', () => {
    let server: DocsServer;
    beforeAll(async () => {
      server = await startDocsServer({ seed, inProcess });
    });
    beforeEach(() => server.reset());
    afterAll(() => server?.stop());

    test("getSpace fails twice with 503, and the client's retry gets the space the third time", async () => {
      await server.faults.add(typed);
      const retries: RetryAttempt[] = [];
      const client = server.clientWith(server.token, { retry: { baseDelayMs: 1, onRetry: (attempt) => retries.push(attempt) } });
      // Retry-After: 1 (the contract's required header on a 503) is waited for: a short one is given instead.
      const { data, response } = await client.GET('/v1/spaces/{spaceId}', space('handbook'));
      expect(response.status).toBe(200);
      expect(data?.title).toBe('Handbook');
      expect(retries.map((attempt) => attempt.response?.status)).toEqual([503, 503]);
      expect(retries[0]!.response!.headers.get('retry-after')).toBe('1');
      // Used up: the next request is served.
      expect((await server.client.GET('/v1/spaces/{spaceId}', space('handbook'))).response.status).toBe(200);
    }, 30_000);

    test('the answer is the error envelope with the declared headers; other spaces and operations are served', async () => {
      await server.faults.add({ operation: 'getSpace', status: 503, headers: { 'Retry-After': '0' }, when: { params: { spaceId: 'handbook' } } });
      const client = server.clientWith(server.token, { retry: false });
      const failed = await client.GET('/v1/spaces/{spaceId}', space('handbook'));
      expect(failed.response.status).toBe(503);
      expect(failed.response.headers.get('retry-after')).toBe('0');
      expect(failed.error).toEqual({ error: { code: 503, message: 'Service unavailable (a fault of the test harness)' } });
      expect((await client.GET('/v1/spaces/{spaceId}', space('notes'))).data?.title).toBe('Notes');
      expect((await client.GET('/v1/orgs/{organizationId}/spaces', acme)).data?.count).toBe(2);
      // Without `times`, until cleared.
      expect((await client.GET('/v1/spaces/{spaceId}', space('handbook'))).response.status).toBe(503);
      await server.faults.clear();
      expect((await client.GET('/v1/spaces/{spaceId}', space('handbook'))).response.status).toBe(200);
    });

    test("a write that fails changes nothing; a fault for one caller's token leaves the others alone", async () => {
      await server.faults.add({ operation: 'createSpace', status: 429, message: 'slow down', when: { token: 'ann-token' } });
      const ann = server.clientWith('ann-token', { throwOnError: true, retry: false });
      const thrown = await ann.POST('/v1/orgs/{organizationId}/spaces', { ...acme, body: { title: 'Refused' } }).catch((error: unknown) => error);
      expect(thrown).toBeInstanceOf(ApiError);
      expect(thrown).toMatchObject({ status: 429, message: expect.stringContaining('slow down') });
      const titles = async () => (await server.client.GET('/v1/orgs/{organizationId}/spaces', acme)).data?.items.map((item) => item.title).sort();
      expect(await titles()).toEqual(['Handbook', 'Notes']);
      // The admin token of the harness is ann's too (the first admin of the seed's first organization): bob is not.
      const bob = await server.clientWith('bob-token', { retry: false }).POST('/v1/orgs/{organizationId}/spaces', { ...acme, body: { title: 'By Bob' } });
      expect(bob.response.status).toBe(403);
    });

    test('a dropped connection is a network error, which the client retries', async () => {
      await server.faults.add({ operation: 'getSpace', drop: true, times: 1 });
      const plain = server.clientWith(server.token, { retry: false });
      await expect(plain.GET('/v1/spaces/{spaceId}', space('notes'))).rejects.toThrow();
      await server.faults.add({ operation: 'getSpace', drop: true, times: 1 });
      const retries: RetryAttempt[] = [];
      const retrying = server.clientWith(server.token, { retry: { baseDelayMs: 1, onRetry: (attempt) => retries.push(attempt) } });
      expect((await retrying.GET('/v1/spaces/{spaceId}', space('notes'))).data?.title).toBe('Notes');
      expect(retries).toHaveLength(1);
      expect(retries[0]!.error).toBeDefined();
    });

    test("a delay alone serves the request late: a client's timeout ends it first", async () => {
      await server.faults.add({ operation: 'getSpace', delayMs: 3_000, times: 1 });
      const impatient = server.clientWith(server.token, { retry: false, timeoutMs: 200 });
      await expect(impatient.GET('/v1/spaces/{spaceId}', space('notes'))).rejects.toThrow(/timeout|aborted/i);
      await server.faults.add({ operation: 'getSpace', delayMs: 50, times: 1 });
      expect((await server.client.GET('/v1/spaces/{spaceId}', space('notes'))).data?.title).toBe('Notes');
    });

    test('reset() clears the faults', async () => {
      await server.faults.add({ operation: 'listSpaces', status: 500 });
      expect((await server.client.GET('/v1/orgs/{organizationId}/spaces', acme)).response.status).toBe(500);
      await server.reset();
      expect((await server.client.GET('/v1/orgs/{organizationId}/spaces', acme)).response.status).toBe(200);
    });

    test('the server refuses a fault the contract does not declare, naming why, and keeps none of it', async () => {
      const refused = (fault: object) => server.faults.add(fault as Fault).then(() => 'added', (error: Error) => error.message);
      expect(await refused({ operation: 'getSpace', status: 409 })).toBe(
        'docs-platform-server: fault refused: getSpace: status 409 is not an error status it declares (it declares 400, 401, 403, 404, 429, 500, 503)',
      );
      expect(await refused({ operation: 'getSpace', status: 200 })).toMatch(/status 200 is not an error status it declares/);
      // A name near one of the contract's is suggested (a letter too many, another case, a transposition); none when none is near.
      expect(await refused({ operation: 'getSpaces', status: 503 })).toBe('docs-platform-server: fault refused: operation: "getSpaces" is not an operation of the contract (did you mean getSpace?)');
      expect(await refused({ operation: 'GetSpace', status: 503 })).toMatch(/"GetSpace" is not an operation of the contract \(did you mean getSpace\?\)$/);
      expect(await refused({ operation: 'listSpcaes', status: 503 })).toMatch(/\(did you mean listSpaces\?\)$/);
      expect(await refused({ operation: 'launchRocket', status: 503 })).toBe('docs-platform-server: fault refused: operation: "launchRocket" is not an operation of the contract');
      expect(await refused({ operation: 'getSpace' })).toMatch(/needs a status, a delayMs or drop: true$/);
      expect(await refused({ operation: 'getSpace', status: 503, drop: true })).toMatch(/a dropped connection has no status/);
      expect(await refused({ operation: 'getSpace', status: 503, times: 0 })).toMatch(/times must be a whole number from 1$/);
      expect(await refused({ operation: 'getSpace', status: 503, when: { params: { organizationId: 'acme' } } })).toMatch(
        /when\.params\.organizationId is not a path parameter of the operation \(it has spaceId\)$/,
      );
      expect(await refused({ operation: 'getSpace', status: 503, retries: 2 })).toMatch(/unknown field of a fault: retries$/);
      expect((await server.client.GET('/v1/spaces/{spaceId}', space('notes'))).response.status).toBe(200);
    });
  });
}
