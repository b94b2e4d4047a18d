// The headers a JSON API owes its callers (the OWASP REST Security Cheat Sheet), read through the typed client: every
// answer says `X-Content-Type-Options: nosniff`; one that depends on the caller is never kept by a cache
// (`Cache-Control: no-store`); none that is not a page may be shown in another site's frame (`frame-ancestors
// 'none'`); the server's own pages, the same for everyone, are `no-cache`, and the reference page keeps its own policy
// (server/docs/security.md, "Answer headers").
import { describe, expect, test } from 'vitest';
import { ACME } from '../support/fixture.ts';
import { useTestServer } from '../support/server.ts';

const ctx = useTestServer();

const API = { 'x-content-type-options': 'nosniff', 'cache-control': 'no-store', 'content-security-policy': "frame-ancestors 'none'" };

const headersOf = (response: Response, names: string[]) => Object.fromEntries(names.map((name) => [name, response.headers.get(name)]));

describe('answer headers', () => {
  test('every API answer, success or error, says nosniff, no-store and no framing', async () => {
    const reader = ctx.server.as('reader');
    const admin = ctx.server.as('admin');
    const answers = [
      (await reader.GET('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ACME } } })).response,
      (await admin.POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ACME } }, body: { title: 'Headers' } })).response,
      (await reader.GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: 'missing' } } })).response,
      (await reader.GET('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ACME }, query: { limit: 0 } } })).response,
      (await ctx.server.as('anonymous').GET('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ACME } } })).response,
      await fetch(`${ctx.server.url}/v1/nowhere`),
    ];
    expect(answers.map((response) => response.status)).toEqual([200, 201, 404, 400, 401, 404]);
    for (const response of answers) expect(headersOf(response, Object.keys(API)), `${response.status} ${response.url}`).toEqual(API);
  });

  test("the server's own pages: the contract and the reference are no-cache, the health no-store; the reference page keeps its own policy", async () => {
    const names = [...Object.keys(API)];
    const at = async (path: string) => headersOf(await fetch(`${ctx.server.url}${path}`), names);
    expect(await at('/openapi.json')).toEqual({ ...API, 'cache-control': 'no-cache' });
    expect(await at('/openapi.yaml')).toEqual({ ...API, 'cache-control': 'no-cache' });
    expect(await at('/health')).toEqual(API);
    const page = await at('/docs');
    expect(page['x-content-type-options']).toBe('nosniff');
    expect(page['cache-control']).toBe('no-cache');
    expect(page['content-security-policy']).toMatch(/default-src 'self'.*frame-ancestors 'self'/);
  });
});
