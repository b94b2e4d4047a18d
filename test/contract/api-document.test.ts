// The inventory parser, on small excerpts written the way api-document.md writes its endpoint tables.
// (Its count on the real document is asserted in contract.test.ts.)
import { describe, expect, test } from 'vitest';
import { parseDesignOperations, parseEndpointOperations } from '../support/api-document.ts';

const endpoints = (body: string) => parseEndpointOperations(`# API\n\n## Endpoints\n\n${body}\n\n## Authentication\n`);

describe('parseEndpointOperations', () => {
  test('reads full paths, "same path" and ".../{param}/rest" rows', () => {
    const table = `### Things

| Method | Path | Query / body | Response |
|---|---|---|---|
| GET | /v1/orgs/{orgId}/things | page, limit | 200 |
| GET | /v1/orgs/{orgId}/things/{thingId} | none | 200 |
| DELETE | same path | none | 204 |
| POST | .../{thingId}/copy | no body | 201 |
| GET | .../{orgId}/stats | none | 200 |`;
    expect(endpoints(table)).toEqual([
      'GET /v1/orgs/{orgId}/things',
      'GET /v1/orgs/{orgId}/things/{thingId}',
      'DELETE /v1/orgs/{orgId}/things/{thingId}',
      'POST /v1/orgs/{orgId}/things/{thingId}/copy',
      'GET /v1/orgs/{orgId}/stats',
    ]);
  });

  test('resolves "(base)" and "/..." rows against every base a section states', () => {
    const oneBase = `### Parts

Base: \`/v1/things/{thingId}/parts\`.

| Method | Path | Body | Response |
|---|---|---|---|
| GET | (base) | none | 200 |
| DELETE | /{partId} | none | 204 |`;
    const twoBases = `### Notes

Thing-level base: \`/v1/things/{thingId}/notes\`. Draft-level base: \`/v1/drafts/{draftId}/notes\`. Identical.

| Method | Path under base | Body | Response |
|---|---|---|---|
| POST | (base) | body | 201 |`;
    expect(endpoints(`${oneBase}\n\n${twoBases}`)).toEqual([
      'GET /v1/things/{thingId}/parts',
      'DELETE /v1/things/{thingId}/parts/{partId}',
      'POST /v1/things/{thingId}/notes',
      'POST /v1/drafts/{draftId}/notes',
    ]);
  });

  test('adds the change-request form of a row whose suffix column is not "none"', () => {
    const table = `### Space content

For change requests, the same operation exists under \`/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content...\`.

| Method | Space path | Change-request path suffix | Query / body | Response |
|---|---|---|---|---|
| GET | /v1/spaces/{spaceId}/content | /content | metadata | 200 |
| GET | /v1/spaces/{spaceId}/search | none | page | 200 |`;
    expect(endpoints(table)).toEqual([
      'GET /v1/spaces/{spaceId}/content',
      'GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/content',
      'GET /v1/spaces/{spaceId}/search',
    ]);
  });

  test('reads the two routes of the "Commenters:" line', () => {
    const section = '### Comments\n\nCommenters: GET `/v1/a/{id}/commenters` and GET `/v1/b/{id}/commenters`, with page.';
    expect(endpoints(section)).toEqual(['GET /v1/a/{id}/commenters', 'GET /v1/b/{id}/commenters']);
  });

  test('ignores tables outside "## Endpoints"', () => {
    const markdown = '## Limits\n\n### Sizes\n\n| Method | Path |\n|---|---|\n| GET | /v1/elsewhere |\n';
    expect(parseEndpointOperations(markdown)).toEqual([]);
  });

  test('rejects a row it cannot resolve, naming the line', () => {
    const table = '### Odd\n\n| Method | Path |\n|---|---|\n| GET | somewhere |';
    expect(() => endpoints(table)).toThrow(/line \d+: unrecognised path "somewhere"/);
  });
});

describe('parseDesignOperations', () => {
  test('reads sortSiteStructure’s method and path', () => {
    const design = '- **sortSiteStructure**: `PATCH /v1/orgs/{organizationId}/sites/{siteId}/structure/sort`, body ...';
    expect(parseDesignOperations(design)).toEqual(['PATCH /v1/orgs/{organizationId}/sites/{siteId}/structure/sort']);
  });
});
