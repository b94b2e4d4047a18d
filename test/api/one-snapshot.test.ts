// Every request's reads see one committed state of the database, on both engines: a site's published view and its
// lists read while other connections attach and detach site spaces, and a list of spaces with its count read while
// spaces are created and deleted, never answer a 500 or a mix of two moments.
// Why the race is made so: test/README.md, "One request, one snapshot".
import { expect, test } from 'vitest';
import type { DocsClient } from '../../client/index.ts';
import { ACME, extendFixture } from '../support/fixture.ts';
import { ok } from '../support/expect.ts';
import { useTestServer } from '../support/server.ts';
import { at, SECTIONS, SITE_SPACE, SITE_SPACES, SITES } from '../support/site-structure.ts';

const WRITERS = ['blog', 'faq'];
const ctx = useTestServer({
  fixture: extendFixture({ acme: { spaces: ['guide', 'api', ...WRITERS].map((id) => ({ id, title: id.toUpperCase() })) } }),
});

/** Reads each reader makes; the writers write until every reader is done. */
const READS = 50;
const READERS = 6;

/** What a reader saw wrong: a status that is not 200, or an answer whose parts disagree. */
type Findings = string[];

/** Runs `write` in a loop on each writer while READERS readers each run `read` READS times; what they saw wrong. */
async function race(write: (writer: string) => Promise<void>, read: (client: DocsClient, index: number) => Promise<string | undefined>): Promise<Findings> {
  const findings: Findings = [];
  let reading = true;
  const writers = WRITERS.map(async (writer) => {
    while (reading) await write(writer);
  });
  const readers = Array.from({ length: READERS }, async () => {
    const client = ctx.server.as('admin');
    for (let index = 0; index < READS; index++) {
      const finding = await read(client, index);
      if (finding !== undefined) findings.push(finding);
    }
  });
  try {
    await Promise.all(readers);
  } finally {
    reading = false;
    await Promise.all(writers);
  }
  return findings;
}

/** The status of an answer, and its body or error, when it is not 200. */
const notOk = (answer: { response: Response; error?: unknown }, what: string) =>
  answer.response.status === 200 ? undefined : `${what}: ${answer.response.status} ${JSON.stringify(answer.error)}`;

test("a site's published view and structure, read while its site spaces are attached and detached", async () => {
  const admin = ctx.server.as('admin');
  const site = ok(await admin.POST(SITES, { params: { path: { organizationId: ACME } }, body: { spaces: ['guide'], visibility: 'public' } }), 201);
  const section = ok(await admin.POST(SECTIONS, { ...at(site.id), body: { spaceId: 'api' } }), 201);
  const findings = await race(
    async (spaceId) => {
      const attached = ok(await admin.POST(SITE_SPACES, { ...at(site.id), body: { spaceId, sectionId: section.id } }), 201);
      ok(await admin.DELETE(SITE_SPACE, at(site.id, { siteSpaceId: attached.id })), 204);
    },
    async (client, index) => {
      if (index % 3 === 0) {
        const published = await client.GET('/v1/orgs/{organizationId}/sites/{siteId}/published', at(site.id));
        return notOk(published, 'the published site');
      }
      if (index % 3 === 1) return notOk(await client.GET(SECTIONS, at(site.id)), 'the sections');
      const list = await client.GET(SITE_SPACES, { params: { ...at(site.id).params, query: { limit: 1000 } } });
      return notOk(list, 'the site spaces') ?? (list.data!.count === list.data!.items.length ? undefined : `the site spaces: count ${list.data!.count}, ${list.data!.items.length} items`);
    },
  );
  expect(findings).toEqual([]);
});

test('a list of spaces and its count, read while spaces are created and deleted', async () => {
  const admin = ctx.server.as('admin');
  const findings = await race(
    async (title) => {
      const space = ok(await admin.POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ACME } }, body: { title } }), 201);
      ok(await admin.DELETE('/v1/spaces/{spaceId}', { params: { path: { spaceId: space.id } } }), 204);
    },
    async (client) => {
      const list = await client.GET('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ACME }, query: { limit: 1000 } } });
      const failed = notOk(list, 'the spaces');
      if (failed !== undefined) return failed;
      const { count, items } = list.data!;
      return count === items.length ? undefined : `the spaces: count ${count}, ${items.length} items`;
    },
  );
  expect(findings).toEqual([]);
});
