// A space created empty has a first revision with an id and no row (content/revisions.ts, "Unwritten first
// revisions"): through the API it is a revision like any other, before and after a restart, as the base of change
// requests opened on it, as the parent of the content written on it, and once the link index has written its row.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { ACME } from '../support/fixture.ts';
import { ok } from '../support/expect.ts';
import { useTestServer } from '../support/server.ts';
import { sql } from 'kysely';

const scratch = mkdtempSync(path.join(tmpdir(), 'first-revision-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const ctx = useTestServer({ dataDir: scratch });
const admin = () => ctx.server.as('admin');
const space = (spaceId: string) => ({ params: { path: { spaceId } } });
const changeRequest = (spaceId: string, changeRequestId: string) => ({ params: { path: { spaceId, changeRequestId } } });

async function createSpace(title: string) {
  return ok(await admin().POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ACME } }, body: { title } }), 201);
}

/** What the database holds of the revision: its row, and whether its space names it as unwritten. */
async function stored(spaceId: string, revisionId: string) {
  const db = ctx.server.running.ctx.store.reader;
  const space = await db.first<{ unwritten_revision_id: string | null }>(sql`SELECT unwritten_revision_id FROM spaces WHERE id = ${spaceId}`);
  return {
    row: await db.first(sql`SELECT space_id, parents, type, content FROM revisions WHERE id = ${revisionId}`),
    named: space?.unwrittenRevisionId === revisionId,
  };
}

describe('the first revision of a space created empty', () => {
  test('reads as empty content made with the space, without a row, the same after a restart; a duplicate copies it', async () => {
    const fresh = await createSpace('Fresh');
    const content = ok(await admin().GET('/v1/spaces/{spaceId}/content', space(fresh.id)), 200);
    expect(content).toMatchObject({ object: 'revision', id: fresh.revision, type: 'edits', createdAt: fresh.createdAt, pages: [], files: [] });
    expect(await stored(fresh.id, fresh.revision)).toEqual({ row: undefined, named: true });

    await ctx.server.restart();
    expect(ok(await admin().GET('/v1/spaces/{spaceId}', space(fresh.id)), 200).revision).toBe(fresh.revision);
    expect(ok(await admin().GET('/v1/spaces/{spaceId}/content', space(fresh.id)), 200)).toEqual(content);

    const copy = ok(await admin().POST('/v1/spaces/{spaceId}/duplicate', space(fresh.id)), 201);
    expect(copy.revision).not.toBe(fresh.revision);
    expect(ok(await admin().GET('/v1/spaces/{spaceId}/content', space(copy.id)), 200)).toMatchObject({ id: copy.revision, pages: [] });
  });

  test('is the base of change requests opened on it and the parent of content written on it; merging reads it', async () => {
    const fresh = await createSpace('Changing');
    const [merged, open] = [
      ok(await admin().POST('/v1/spaces/{spaceId}/change-requests', { ...space(fresh.id), body: { subject: 'Merged' } }), 201),
      ok(await admin().POST('/v1/spaces/{spaceId}/change-requests', { ...space(fresh.id), body: { subject: 'Open' } }), 201),
    ];
    expect([merged.revisionInitial, merged.revision, open.revision]).toEqual([fresh.revision, fresh.revision, fresh.revision]);

    ok(await admin().POST('/v1/spaces/{spaceId}/content/template', { ...space(fresh.id), body: { id: 'changelog' } }), 204);
    const written = ok(await admin().GET('/v1/spaces/{spaceId}/content', space(fresh.id)), 200);
    expect(written.id).not.toBe(fresh.revision);
    expect(written.pages!.length).toBeGreaterThan(0);
    expect((await stored(fresh.id, written.id!)).row).toMatchObject({ parents: JSON.stringify([fresh.revision]) });
    // The change requests still read the first revision.
    expect(ok(await admin().GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content', changeRequest(fresh.id, open.id)), 200))
      .toMatchObject({ id: fresh.revision, pages: [] });

    // A merge reads the change request's base, the first revision: nothing changed there, so the main content stays.
    const merge = ok(await admin().POST('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/merge', changeRequest(fresh.id, merged.id)), 200);
    const after = ok(await admin().GET('/v1/spaces/{spaceId}/content', space(fresh.id)), 200);
    expect(after.id).toBe(merge.revision);
    expect(after.pages).toEqual(written.pages);
    expect((await stored(fresh.id, merge.revision)).row).toMatchObject({ parents: JSON.stringify([written.id, fresh.revision]), type: 'merge' });
    expect(await stored(fresh.id, fresh.revision)).toEqual({ row: undefined, named: true });
  });

  test("gets its row when the link index must refer to it (an open change request's links); reads the same after", async () => {
    const fresh = await createSpace('Linked');
    const open = ok(await admin().POST('/v1/spaces/{spaceId}/change-requests', { ...space(fresh.id), body: { subject: 'Open' } }), 201);
    const before = ok(await admin().GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content', changeRequest(fresh.id, open.id)), 200);
    expect((await stored(fresh.id, fresh.revision)).row).toBeUndefined();

    // The space's links count the broken links of its open change requests, indexing their revisions first.
    expect(ok(await admin().GET('/v1/spaces/{spaceId}/links', space(fresh.id)), 200).items).toEqual([]);
    expect(await stored(fresh.id, fresh.revision)).toEqual({
      row: { spaceId: fresh.id, parents: '[]', type: 'edits', content: JSON.stringify({ pages: [], files: [], reusableContents: [], variables: {} }) },
      named: false,
    });
    expect(ok(await admin().GET('/v1/spaces/{spaceId}/content', space(fresh.id)), 200)).toMatchObject({ id: fresh.revision, createdAt: fresh.createdAt, pages: [] });
    expect(ok(await admin().GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content', changeRequest(fresh.id, open.id)), 200)).toEqual(before);
  });
});
