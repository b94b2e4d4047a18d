// Record ids as clients see them (server/docs/wire-behaviour.md, Identifiers): what the server makes is 22
// characters, the time it was made, its number within that millisecond and 12 random characters, so ids made one
// after another sort in that order, across a restart too; ids a seed file gave keep their form; the address of a
// change request's PDF, its own secret, is 32 random characters. Through the typed client, over HTTP.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { ACME } from '../support/fixture.ts';
import { ok } from '../support/expect.ts';
import { idTime } from '../support/ids.ts';
import { useTestServer } from '../support/server.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'record-ids-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const ctx = useTestServer({ dataDir: scratch });
const admin = () => ctx.server.as('admin');
const acme = { params: { path: { organizationId: ACME } } };
const space = (spaceId: string) => ({ params: { path: { spaceId } } });

/** Records of five kinds made one after another; their ids in the order they were made. */
async function makeRecords(label: string): Promise<string[]> {
  const made = ok(await admin().POST('/v1/orgs/{organizationId}/spaces', { ...acme, body: { title: `Space ${label}` } }), 201);
  const comment = ok(await admin().POST('/v1/spaces/{spaceId}/comments', { ...space(made.id), body: { body: { markdown: 'First.' } } }), 201);
  const collection = ok(await admin().POST('/v1/orgs/{organizationId}/collections', { ...acme, body: { title: `Collection ${label}` } }), 201);
  const changeRequest = ok(await admin().POST('/v1/spaces/{spaceId}/change-requests', { ...space(made.id), body: { subject: 'Edits' } }), 201);
  const second = ok(await admin().POST('/v1/orgs/{organizationId}/spaces', { ...acme, body: { title: `Space ${label} 2` } }), 201);
  // A space's first revision is made with it, just after its id.
  return [made.id, made.revision, comment.id, collection.id, changeRequest.id, second.id, second.revision];
}

describe('ids of the records the server makes', () => {
  test('are 22 characters that say when they were made, and sort in the order they were made, across a restart', async () => {
    const before = Date.now();
    const first = await makeRecords('one');
    await ctx.server.restart();
    const later = await makeRecords('two');
    const after = Date.now();

    const ids = [...first, ...later];
    for (const id of ids) {
      expect(id).toMatch(/^[0-9A-Za-z]{22}$/);
      expect(idTime(id)).toBeGreaterThanOrEqual(before);
      expect(idTime(id)).toBeLessThanOrEqual(after);
    }
    expect(new Set(ids).size).toBe(ids.length);
    // As SQLite compares them (byte by byte), which is how these ASCII strings compare in JavaScript.
    expect([...ids].sort()).toEqual(ids);
    // The random part: no two alike, though the time part of ids made in one millisecond is.
    expect(new Set(ids.map((id) => id.slice(10))).size).toBe(ids.length);

    // What was made before the restart reads back under the same ids.
    expect(ok(await admin().GET('/v1/spaces/{spaceId}', space(first[0]!)), 200)).toMatchObject({ id: first[0], revision: first[1] });
    expect(ok(await admin().GET('/v1/spaces/{spaceId}/comments/{commentId}', { params: { path: { spaceId: first[0]!, commentId: first[2]! } } }), 200).id).toBe(first[2]);
  });

  test('a seed file\'s ids are kept as it gave them', async () => {
    expect(ok(await admin().GET('/v1/orgs/{organizationId}', acme), 200).id).toBe(ACME);
  });

  test('the address of a change request\'s PDF is 32 random characters, not an id in creation order', async () => {
    const made = ok(await admin().POST('/v1/orgs/{organizationId}/spaces', { ...acme, body: { title: 'Printed' } }), 201);
    const changeRequest = ok(await admin().POST('/v1/spaces/{spaceId}/change-requests', { ...space(made.id), body: { subject: 'Print' } }), 201);
    const addresses: string[] = [];
    for (let index = 0; index < 3; index++) {
      const { url } = ok(
        await admin().GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/pdf', {
          params: { path: { spaceId: made.id, changeRequestId: String(changeRequest.number) } },
        }),
        200,
      );
      addresses.push(url);
      expect((await fetch(url)).status).toBe(200);
    }
    const secrets = addresses.map((url) => new URL(url).pathname.split('/').at(-1)!.replace(/\.pdf$/, ''));
    for (const secret of secrets) expect(secret).toMatch(/^[0-9A-Za-z]{32}$/);
    // Ids made in creation order would share their first characters (the time); random ones almost never do.
    expect(new Set(secrets.map((secret) => secret.slice(0, 6))).size).toBe(secrets.length);
  });
});
