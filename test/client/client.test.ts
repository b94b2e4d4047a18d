// The typed client, against the real server (and against a scripted fetch for retries, timeouts and cancellation).
import { describe, expect, test, vi } from 'vitest';
import { ApiError, createDocsClient, paginate, type RetryAttempt } from '../../client/index.ts';
import { ACME } from '../support/fixture.ts';
import { startTestServer, useTestServer } from '../support/server.ts';

const ctx = useTestServer();
const acme = { params: { path: { organizationId: ACME } } };

/** A fetch that answers from a script of statuses (or throws for 'network'), recording each request. */
function scripted(script: (number | 'network' | 'hang')[], headers: Record<string, string> = {}) {
  const requests: Request[] = [];
  const fetch = async (input: Request) => {
    requests.push(input);
    const step = script[Math.min(requests.length - 1, script.length - 1)]!;
    if (step === 'network') throw new TypeError('fetch failed');
    if (step === 'hang') {
      return new Promise<Response>((_resolve, reject) => {
        if (input.signal.aborted) reject(input.signal.reason);
        input.signal.addEventListener('abort', () => reject(input.signal.reason));
      });
    }
    const body = step < 400 ? { items: [], count: 0 } : { error: { code: step, message: `scripted ${step}` } };
    return new Response(JSON.stringify(body), { status: step, headers: { 'content-type': 'application/json', ...headers } });
  };
  return { fetch: fetch as typeof globalThis.fetch, requests };
}

describe('authentication', () => {
  test('sends the token, or the token a function returns for each request', async () => {
    const fixed = createDocsClient({ baseUrl: ctx.server.url, token: 'reader' });
    expect((await fixed.GET('/v1/orgs')).data?.items.map((org) => org.id)).toEqual([ACME]);
    const tokens = ['admin', 'outsider'];
    const rotating = createDocsClient({ baseUrl: ctx.server.url, token: async () => tokens.shift()! });
    expect((await rotating.GET('/v1/orgs')).data?.items[0]!.id).toBe(ACME);
    expect((await rotating.GET('/v1/orgs')).data?.items[0]!.id).toBe('globex');
  });

  test('sends the User-Agent it is given', async () => {
    const { fetch, requests } = scripted([200]);
    await createDocsClient({ baseUrl: 'http://api.test', token: 't', fetch, userAgent: 'docs-cli/1.2' }).GET('/v1/orgs');
    expect(requests[0]!.headers.get('user-agent')).toBe('docs-cli/1.2');
    expect(requests[0]!.headers.get('authorization')).toBe('Bearer t');
  });
});

describe('errors', () => {
  test('by default an error answer is a typed value, `error`, with the envelope', async () => {
    const client = createDocsClient({ baseUrl: ctx.server.url, token: 'outsider' });
    const { data, error, response } = await client.GET('/v1/orgs/{organizationId}', acme);
    expect(data).toBeUndefined();
    expect(response.status).toBe(404);
    expect(error?.error).toEqual({ code: 404, message: `organization ${ACME} not found` });
  });

  test('in throwing mode an error answer throws ApiError with status, code, message and response; data is always there', async () => {
    const client = createDocsClient({ baseUrl: ctx.server.url, token: 'reader', throwOnError: true });
    const { data } = await client.GET('/v1/orgs/{organizationId}', acme);
    expect(data.title).toBe('Acme');
    const failure = await client.PATCH('/v1/orgs/{organizationId}', { ...acme, body: { title: 'Nope' } }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ status: 403, code: 403, message: expect.stringContaining('admin') });
    expect((failure as ApiError).response.status).toBe(403);
  });
});

describe('status', () => {
  test('each result carries its answer\'s status: a read (200), a create (201, with its Location), a delete (204)', async () => {
    const admin = createDocsClient({ baseUrl: ctx.server.url, token: 'admin' });
    const read = await admin.GET('/v1/orgs/{organizationId}', acme);
    expect([read.status, read.status === 200 && read.data.title]).toEqual([200, 'Acme']);
    const created = await admin.POST('/v1/orgs/{organizationId}/spaces', { ...acme, body: { title: 'Statuses' } });
    if (created.status !== 201) throw new Error(`createSpace answered ${created.status}`);
    expect(created.response.status).toBe(201);
    expect(created.response.headers.get('Location')).toMatch(new RegExp(`/v1/spaces/${created.data.id}$`));
    const removed = await admin.DELETE('/v1/spaces/{spaceId}', { params: { path: { spaceId: created.data.id } } });
    expect([removed.status, removed.data, removed.error]).toEqual([204, undefined, undefined]);
  });

  test('a declared error: its status with its envelope; thrown, ApiError\'s status and body; a page\'s, paginate\'s', async () => {
    const outsider = await createDocsClient({ baseUrl: ctx.server.url, token: 'outsider' }).GET('/v1/orgs/{organizationId}', acme);
    expect([outsider.status, outsider.status === 404 && outsider.error.error.code, outsider.data]).toEqual([404, 404, undefined]);
    const strict = createDocsClient({ baseUrl: ctx.server.url, token: 'reader', throwOnError: true });
    const refused = await strict.PATCH('/v1/orgs/{organizationId}', { ...acme, body: { title: 'Nope' } }).catch((failure: unknown) => failure);
    if (!(refused instanceof ApiError)) throw refused;
    expect([refused.status, refused.status === 403 && refused.body.error.code, refused.response.status]).toEqual([403, 403, 403]);
    const pages = paginate(createDocsClient({ baseUrl: ctx.server.url, token: 'outsider' }), '/v1/orgs/{organizationId}/members', acme);
    const failed = await pages.next().catch((failure: unknown) => failure);
    if (!(failed instanceof ApiError)) throw failed;
    expect([failed.status, failed.status === 404 && failed.body.error.message]).toEqual([404, `organization ${ACME} not found`]);
  });

  test('an undeclared status (a proxy\'s 502, after the retries) is an error answer with that status', async () => {
    const { fetch } = scripted([502]);
    const result = await createDocsClient({ baseUrl: 'http://api.test', fetch, retry: { attempts: 2, baseDelayMs: 1 } }).GET('/v1/orgs');
    expect([result.status, result.status === 502 && result.error.error.code, result.data]).toEqual([502, 502, undefined]);
  });

  test('no answer (the server gone): no status, the call rejects with fetch\'s error after the retries, in every mode', async () => {
    const gone = await startTestServer({ recordCoverage: false });
    await gone.close();
    const attempts: RetryAttempt[] = [];
    const retry = { attempts: 2, baseDelayMs: 1, onRetry: (attempt: RetryAttempt) => attempts.push(attempt) };
    const refused = { name: 'TypeError', message: 'fetch failed', cause: expect.objectContaining({ code: 'ECONNREFUSED' }) };
    await expect(createDocsClient({ baseUrl: gone.url, token: 'reader', retry }).GET('/v1/orgs')).rejects.toMatchObject(refused);
    expect(attempts.map((attempt) => [attempt.attempt, attempt.response])).toEqual([[1, undefined]]);
    const strict = createDocsClient({ baseUrl: gone.url, token: 'reader', retry: false, throwOnError: true });
    const failure = await strict.GET('/v1/orgs').catch((error: unknown) => error);
    expect(failure).toMatchObject(refused);
    expect(failure).not.toBeInstanceOf(ApiError);
    const pages = paginate(createDocsClient({ baseUrl: gone.url, token: 'reader', retry: false }), '/v1/orgs/{organizationId}/members', acme);
    await expect(pages.next()).rejects.toMatchObject(refused);
  });
});

describe('paginate', () => {
  test('iterates the items of every page of a list, passing limit as the page size', async () => {
    const client = createDocsClient({ baseUrl: ctx.server.url, token: 'admin' });
    const seen: string[] = [];
    for await (const member of paginate(client, '/v1/orgs/{organizationId}/members', {
      params: { path: { organizationId: ACME }, query: { limit: 3, sort: 'name', order: 'asc' } },
    })) {
      seen.push(member.user.displayName);
    }
    const { data } = await client.GET('/v1/orgs/{organizationId}/members', {
      params: { path: { organizationId: ACME }, query: { limit: 100, sort: 'name', order: 'asc' } },
    });
    expect(seen).toEqual(data!.items.map((member) => member.user.displayName));
    expect(seen.length).toBeGreaterThan(3);
  });

  test('stops fetching when the consumer breaks', async () => {
    const requests: string[] = [];
    const client = createDocsClient({
      baseUrl: ctx.server.url,
      token: 'admin',
      fetch: (input, init) => {
        requests.push(new Request(input, init).url);
        return fetch(input, init);
      },
    });
    for await (const member of paginate(client, '/v1/orgs/{organizationId}/members', { params: { path: { organizationId: ACME }, query: { limit: 2 } } })) {
      expect(member.object).toBe('member');
      break;
    }
    expect(requests).toHaveLength(1);
  });

  test('throws ApiError when a page fails', async () => {
    const client = createDocsClient({ baseUrl: ctx.server.url, token: 'outsider' });
    const pages = paginate(client, '/v1/orgs/{organizationId}/members', { params: { path: { organizationId: ACME } } });
    await expect(pages.next()).rejects.toMatchObject({ status: 404 });
  });
});

describe('retries', () => {
  test('retries 429, 502, 503 and 504 and network errors on idempotent methods, observing each attempt', async () => {
    const { fetch, requests } = scripted([503, 'network', 429, 200], { 'retry-after': '0' });
    const attempts: RetryAttempt[] = [];
    const client = createDocsClient({
      baseUrl: 'http://api.test',
      fetch,
      retry: { attempts: 5, baseDelayMs: 1, onRetry: (attempt) => attempts.push(attempt) },
    });
    const { data } = await client.GET('/v1/orgs');
    expect(data).toEqual({ items: [], count: 0 });
    expect(requests).toHaveLength(4);
    expect(attempts.map((attempt) => [attempt.attempt, attempt.response?.status ?? 'network'])).toEqual([
      [1, 503],
      [2, 'network'],
      [3, 429],
    ]);
  });

  test('gives up after the bounded number of attempts and returns the last answer', async () => {
    const { fetch, requests } = scripted([502]);
    const { error, response } = await createDocsClient({ baseUrl: 'http://api.test', fetch, retry: { attempts: 3, baseDelayMs: 1 } }).GET('/v1/orgs');
    expect(requests).toHaveLength(3);
    expect(response.status).toBe(502);
    expect(error?.error.code).toBe(502);
  });

  test('does not retry POST unless asked, nor a 500 or a 4xx', async () => {
    const post = scripted([503]);
    await createDocsClient({ baseUrl: 'http://api.test', fetch: post.fetch, retry: { baseDelayMs: 1 } }).POST('/v1/orgs/{organizationId}/ping', acme);
    expect(post.requests).toHaveLength(1);
    const optedIn = scripted([503, 200]);
    await createDocsClient({ baseUrl: 'http://api.test', fetch: optedIn.fetch, retry: { baseDelayMs: 1, retryNonIdempotent: true } }).POST(
      '/v1/orgs/{organizationId}/ping',
      acme,
    );
    expect(optedIn.requests).toHaveLength(2);
    for (const status of [500, 404]) {
      const once = scripted([status]);
      await createDocsClient({ baseUrl: 'http://api.test', fetch: once.fetch, retry: { baseDelayMs: 1 } }).GET('/v1/orgs');
      expect(once.requests).toHaveLength(1);
    }
  });

  test('waits as long as Retry-After asks, and stops when it asks for longer than the maximum', async () => {
    const delays: number[] = [];
    const short = scripted([429, 200], { 'retry-after': '1' });
    await createDocsClient({ baseUrl: 'http://api.test', fetch: short.fetch, retry: { baseDelayMs: 1, onRetry: (a) => delays.push(a.delayMs) } }).GET('/v1/orgs');
    expect(delays).toEqual([1000]);
    const long = scripted([429, 200], { 'retry-after': '120' });
    const { response } = await createDocsClient({ baseUrl: 'http://api.test', fetch: long.fetch, retry: { maxDelayMs: 5_000 } }).GET('/v1/orgs');
    expect(response.status).toBe(429);
    expect(long.requests).toHaveLength(1);
  }, 10_000);
});

describe('timeouts and cancellation', () => {
  test('a request slower than timeoutMs fails with a TimeoutError and is not retried', async () => {
    const { fetch, requests } = scripted(['hang']);
    const client = createDocsClient({ baseUrl: 'http://api.test', fetch, timeoutMs: 50 });
    await expect(client.GET('/v1/orgs')).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(requests).toHaveLength(1);
  });

  test('the caller’s AbortSignal cancels the request', async () => {
    const { fetch } = scripted(['hang']);
    const controller = new AbortController();
    const pending = createDocsClient({ baseUrl: 'http://api.test', fetch }).GET('/v1/orgs', { signal: controller.signal });
    controller.abort(new Error('user left'));
    await expect(pending).rejects.toThrow('user left');
  });
});

describe('baseUrl', () => {
  test("one ending with the start of the contract's paths (/v1) is warned about once, naming the address to give", async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const doubled = createDocsClient({ baseUrl: `${ctx.server.url}/v1`, token: 'reader' });
      const first = await doubled.GET('/v1/orgs/{organizationId}', acme);
      await doubled.GET('/v1/orgs');
      expect(first.response.status).toBe(404);
      expect(warn.mock.calls).toEqual([
        [
          `docs-platform-contract: baseUrl ${ctx.server.url}/v1 ends with /v1, where the contract's paths begin: ` +
            `this request goes to ${ctx.server.url}/v1/v1/orgs/${ACME}. Give the address without /v1.`,
        ],
      ]);
      // An address with a path of its own, and one without, are not warned about; their calls are answered.
      const { fetch, requests } = scripted([200]);
      await createDocsClient({ baseUrl: 'https://gateway.test/docs-api/', fetch }).GET('/v1/orgs');
      expect(requests[0]!.url).toBe('https://gateway.test/docs-api/v1/orgs');
      expect((await createDocsClient({ baseUrl: ctx.server.url, token: 'reader' }).GET('/v1/orgs')).response.status).toBe(200);
      expect(warn).toHaveBeenCalledTimes(1);
    } finally {
      warn.mockRestore();
    }
  });
});
