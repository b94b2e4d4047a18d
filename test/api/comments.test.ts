// Comments on a space (`/v1/spaces/{spaceId}/comments`, `/commenters`). The operations' tests are shared with the
// change-request form (comments-change-requests.test.ts) through comments.suite.ts.
import { describe, expect, test } from 'vitest';
import { commentFixture, describeCommentOperations, spaceBase } from './comments.suite.ts';
import { expectError, ok } from '../support/expect.ts';
import { useTestServer } from '../support/server.ts';
import type { StoredPage } from '../../server/content/model.ts';
import { frozen } from '../../server/common/deep-freeze.ts';
import { insertComment, pageDigest } from '../../server/domain/comments.ts';
import { sql } from 'kysely';
import { inWrite } from '../../server/context/context.ts';

const ctx = useTestServer({ fixture: commentFixture('handbook') });
const base = spaceBase(ctx, 'handbook');

describe('comments of a space', () => {
  describeCommentOperations(ctx, base);
});

describe('space-level replies', () => {
  test('do not accept `resolved`: only change-request replies resolve their comment', async () => {
    const comment = ok(await base.create('commenter', { page: base.page('guide'), body: { markdown: 'Hm.' } }), 201);
    const reply = ok(await base.createReply('commenter', comment.id, 'Hm hm.'), 201);
    expectError(await base.updateReply('commenter', comment.id, reply.id, { resolved: true }), 400, 'resolved');
    expect(ok(await base.get('reader', comment.id)).status).toBe('open');
  });
});

describe('pageDigest', () => {
  test("follows a page's title and markdown, whether the page is frozen (kept) or being built (hashed each time)", () => {
    const built: StoredPage = { id: 'p', title: 'T', slug: 't', type: 'document', markdown: 'a', pages: [], createdAt: '', updatedAt: '' } as StoredPage;
    const first = pageDigest(built);
    built.markdown = 'b';
    const changed = pageDigest(built);
    expect(changed).not.toBe(first);
    const kept = frozen({ ...built });
    expect(pageDigest(kept)).toBe(changed);
    expect(pageDigest(kept)).toBe(changed);
    expect(pageDigest(frozen({ ...built, title: 'U' }))).not.toBe(changed);
  });
});

describe('insertComment', () => {
  test('answers the row as stored, every column: the defaults it writes are the schema\'s', async () => {
    const app = ctx.server.running.ctx;
    const space = ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: 'handbook' } } }));
    const comment = await inWrite(app, (scope) =>
      insertComment(scope, { spaceId: space.id, changeRequestId: null, postedBy: 'commenter', body: 'Is it?' }),
    );
    const reply = await inWrite(app, (scope) =>
      insertComment(scope, {
        spaceId: space.id,
        changeRequestId: null,
        parentId: comment.id,
        revisionId: space.revision,
        pageId: base.page('guide'),
        nodeId: 'n',
        tableCell: '{"record":"r","definition":"d"}',
        postedBy: 'editor',
        body: 'It is.',
        pageDigest: 'digest',
        nodePreview: 'preview',
      }),
    );
    for (const row of [comment, reply]) {
      expect(await app.store.reader.first(sql`SELECT * FROM comments WHERE id = ${row.id}`)).toStrictEqual(row);
    }
    expect(ok(await base.get('reader', comment.id)).replies).toBe(1);
  });
});
