// Deprecations on the wire (server/http/deprecations.ts, server/docs/wire-behaviour.md "Deprecations"): every answer
// of a deprecated operation carries `Deprecation`, `Sunset` when dated and `Link`, through the typed client against
// the real server; the client's `onDeprecated` is told once per operation; the headers of a dated deprecation, a
// deprecated parameter and a deprecated body field, read from a document that has them; what the docs page renders.
import { afterEach, describe, expect, test, vi } from 'vitest';
import type { Request } from 'express';
import { createDocsClient, type DeprecationNotice, deprecationNotice } from '../../client/index.ts';
import { deprecationHeaders, deprecationsOf, usedDeprecations } from '../../server/http/deprecations.ts';
import { loadContract, type OpenApiDocument } from '../../server/http/contract.ts';
import { ok } from '../support/expect.ts';
import { at, SECTION_MOVE, SECTIONS, useSiteStructureServer } from '../support/site-structure.ts';

const { admin, newSite, addSections, server } = (() => {
  const structure = useSiteStructureServer();
  return { ...structure, server: () => structure.ctx.server };
})();

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a deprecated operation on the wire (moveSiteSection)', () => {
  test('every answer it gives carries Deprecation and Link; an operation not deprecated carries neither', async () => {
    const siteId = await newSite();
    const [one, two] = await addSections(siteId, ['guide', 'api']);
    const moved = await admin().POST(SECTION_MOVE, { ...at(siteId, { siteSectionId: two!.id }), body: { position: { before: { type: 'site-section', siteSection: one!.id } } } });
    ok(moved);
    const missing = await admin().POST(SECTION_MOVE, { ...at(siteId, { siteSectionId: 'nosuchsection' }), body: { position: {} } });
    expect(missing.response.status).toBe(404);
    for (const { response } of [moved, missing]) {
      expect(response.headers.get('deprecation')).toMatch(/^@\d+$/);
      // Undated: the moment the server started, which is before this answer.
      expect(Number(response.headers.get('deprecation')!.slice(1))).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
      expect(response.headers.get('link')).toContain(`<${server().url}/docs#/Site%20structure/moveSiteSection>; rel="deprecation"; type="text/html"`);
      expect(response.headers.get('sunset')).toBeNull();
    }
    const listed = await admin().GET(SECTIONS, at(siteId));
    ok(listed);
    expect(listed.response.headers.get('deprecation')).toBeNull();
    expect(listed.response.headers.get('link')).toBeNull();
  });

  test("the typed client tells onDeprecated once per operation, from the answer's headers; false says nothing", async () => {
    const siteId = await newSite();
    const [one, two] = await addSections(siteId, ['guide', 'api']);
    const notices: DeprecationNotice[] = [];
    const client = createDocsClient({ baseUrl: server().url, token: 'admin', onDeprecated: (notice) => notices.push(notice) });
    const move = (id: string, before: string) => client.POST(SECTION_MOVE, { ...at(siteId, { siteSectionId: id }), body: { position: { before: { type: 'site-section', siteSection: before } } } });
    ok(await move(two!.id, one!.id));
    ok(await move(one!.id, two!.id));
    ok(await client.GET(SECTIONS, at(siteId)));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ method: 'POST', path: SECTION_MOVE, docs: `${server().url}/docs#/Site%20structure/moveSiteSection` });
    expect(notices[0]!.deprecatedAt).toBeInstanceOf(Date);

    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const warning = createDocsClient({ baseUrl: server().url, token: 'admin' });
    // Whatever they answer (a move that changes nothing is a 409), both answers say it is deprecated.
    await warning.POST(SECTION_MOVE, { ...at(siteId, { siteSectionId: two!.id }), body: { position: {} } });
    await warning.POST(SECTION_MOVE, { ...at(siteId, { siteSectionId: one!.id }), body: { position: {} } });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toMatch(/POST \/v1\/orgs\/\{organizationId\}\/sites\/\{siteId\}\/sections\/\{siteSectionId\}\/move is deprecated .*onDeprecated: false/);

    const silent = createDocsClient({ baseUrl: server().url, token: 'admin', onDeprecated: false });
    expect((await silent.POST(SECTION_MOVE, { ...at(siteId, { siteSectionId: two!.id }), body: { position: {} } })).response.headers.get('deprecation')).toMatch(/^@/);
    expect(warn).toHaveBeenCalledTimes(1);
  });
});

describe('the docs page of a deprecation (GET /docs, Swagger UI)', () => {
  test('the document the page renders (/openapi.json) ends each deprecated description with its reason and successor', async () => {
    const response = await fetch(`${server().url}/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as OpenApiDocument;
    const move = document.paths['/v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}/move']!.post as { deprecated: boolean; description: string; 'x-deprecation': { reason: string } };
    // Swagger UI marks the operation deprecated (struck through) and renders its description, this paragraph last.
    expect(move.deprecated).toBe(true);
    expect(move.description.split('\n\n').at(-1)).toBe(`Deprecated: ${move['x-deprecation'].reason} Use sortSiteStructure instead.`);
    const schemas = (document as unknown as { components: { schemas: Record<string, { properties: Record<string, { deprecated: boolean; description: string; 'x-deprecation': { reason: string } }> }> } }).components.schemas;
    const field = schemas.Organization!.properties.internal_isOnNewTrial!;
    expect(field.deprecated).toBe(true);
    expect(field.description.split('\n\n').at(-1)).toBe(`Deprecated: ${field['x-deprecation'].reason}`);
  });
});

/** The contract with moveSiteSection dated and succeeded, a deprecated query parameter and a deprecated body field. */
function datedContract(): OpenApiDocument {
  const document = structuredClone(loadContract());
  const path = '/v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}/move';
  const move = document.paths[path]!.post as Record<string, unknown>;
  Object.assign(move, { 'x-deprecation': { reason: 'Sort the whole structure at once.', since: '2026-01-15', successor: 'sortSiteStructure' }, 'x-sunset': '2027-01-01' });
  const list = document.paths['/v1/orgs/{organizationId}/sites/{siteId}/sections']!.get as { parameters: unknown[] };
  list.parameters = [...list.parameters, { name: 'legacyOrder', in: 'query', schema: { type: 'boolean' }, deprecated: true, 'x-deprecation': { reason: 'Sections are always in order.' }, 'x-sunset': '2026-09-01' }];
  const create = document.paths['/v1/orgs/{organizationId}/sites/{siteId}/sections']!.post as { requestBody: unknown };
  create.requestBody = { required: true, content: { 'application/json': { schema: { type: 'object', properties: { spaceId: { type: 'string' }, icon: { type: 'string', deprecated: true, 'x-deprecation': { reason: 'Icons come from the space.', since: '2026-02-01' } } } } } } };
  return document;
}

describe('the headers of a deprecation, read once from the contract', () => {
  const deprecations = deprecationsOf(datedContract(), { publicUrl: 'https://api.example.com', startedAt: Date.parse('2026-03-01T09:00:00Z') });
  const request = (query: Record<string, unknown> = {}, body?: unknown) => ({ query, headers: {}, body }) as unknown as Request;

  test('a dated operation: Deprecation its day, Sunset an HTTP-date, Link to its successor and its docs', () => {
    const headers = deprecationHeaders(usedDeprecations(deprecations.get('moveSiteSection')!, request()));
    expect(headers).toEqual({
      deprecation: `@${Date.parse('2026-01-15T00:00:00Z') / 1000}`,
      sunset: 'Fri, 01 Jan 2027 00:00:00 GMT',
      link: '<https://api.example.com/docs#/Site%20structure/sortSiteStructure>; rel="successor-version", <https://api.example.com/docs#/Site%20structure/moveSiteSection>; rel="deprecation"; type="text/html"',
    });
    const notice = deprecationNotice('POST', '/move', new Response(null, { headers }));
    expect(notice).toMatchObject({ deprecatedAt: new Date('2026-01-15T00:00:00Z'), sunset: new Date('2027-01-01T00:00:00Z'), successor: 'https://api.example.com/docs#/Site%20structure/sortSiteStructure' });
  });

  test('a deprecated parameter or field marks only the requests that send it; undated, the server start is its date', () => {
    const list = deprecations.get('listSiteSections')!;
    expect(usedDeprecations(list, request())).toEqual([]);
    expect(deprecationHeaders(usedDeprecations(list, request({ legacyOrder: 'true' })))).toMatchObject({ deprecation: `@${Date.parse('2026-03-01T09:00:00Z') / 1000}`, sunset: 'Tue, 01 Sep 2026 00:00:00 GMT' });
    const create = deprecations.get('createSiteSection')!;
    expect(usedDeprecations(create, request({}, { spaceId: 'guide' }))).toEqual([]);
    expect(usedDeprecations(create, request({}, { spaceId: 'guide', icon: 'book' })).map((each) => each.use)).toEqual(['/icon']);
    expect(deprecations.has('getSite')).toBe(false);
  });
});
