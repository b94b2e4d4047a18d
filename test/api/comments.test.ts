// Comments on a space (`/v1/spaces/{spaceId}/comments`, `/commenters`). The operations' tests are shared with the
// change-request form (comments-change-requests.test.ts) through comments.suite.ts.
import { describe, expect, test, vi } from 'vitest';
import { commentFixture, contentEditor, describeCommentOperations, spaceBase } from './comments.suite.ts';
import { expectError, ok } from '../support/expect.ts';
import { useTestServer } from '../support/server.ts';
import type { StoredPage } from '../../server/content/model.ts';
import { frozen } from '../../server/common/deep-freeze.ts';
import { insertComment, pageDigest } from '../../server/domain/comments.ts';
import { sql } from 'kysely';
import { inWrite } from '../../server/context/context.ts';
import { atLeast, type Role, ROLES } from '../../server/auth/roles.ts';
import { contentRole } from '../../server/domain/collections.ts';
import { COMMENTER_ROLES } from '../../server/store/comments.ts';

const ctx = useTestServer({ fixture: commentFixture('handbook') });
const base = spaceBase(ctx, 'handbook');

describe('comments of a space', () => {
  describeCommentOperations(ctx, base);
});

// A comment on a space whose current revision this instance knows, by a member who may comment by their own role, is
// answered by the first try: one insert that checks that itself, and that the revision is still the space's current
// one. Otherwise the handler answers, in a write of its own (http/route-rules.ts).
describe('the first try of a comment on a space', () => {
  const editContent = contentEditor(ctx);

  test('answers from one write what the handler answers; a moved revision, a refusal or a caller it does not cover fall to the handler', async () => {
    const writes = vi.spyOn(ctx.server.running.ctx.store, 'write');
    const post = (who: 'commenter' | 'reader' | 'editor', page = base.page('guide')) => base.create(who, { page, body: { markdown: 'First try.' } });
    try {
      // A comment on a page reads the space's current revision: from then on this instance knows it.
      ok(await post('commenter'), 201);
      writes.mockClear();
      const first = ok(await post('editor'), 201);
      expect(writes).toHaveBeenCalledTimes(1);
      expect(first).toEqual(ok(await base.get('editor', first.id)));
      expect(first).toMatchObject({ postedBy: { id: 'editor' }, replies: 0, target: { page: { id: base.page('guide'), outdated: false } } });

      // The space's content moves on (a new current revision): the first try inserts nothing, the handler posts on it.
      await editContent(base.spaceId, undefined, (content) => {
        content.pages.find((page) => page.id === base.page('guide'))!.title = 'Guide, edited';
      });
      writes.mockClear();
      const onNew = ok(await post('commenter'), 201);
      expect(writes).toHaveBeenCalledTimes(2);
      const current = ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: base.spaceId } } })).revision;
      expect(onNew.target).toMatchObject({ revision: current, page: { title: 'Guide, edited', outdated: false } });
      expect(onNew).toEqual(ok(await base.get('commenter', onNew.id)));

      // A reader may not comment: 403, from the handler after a first try that inserted nothing.
      writes.mockClear();
      expectError(await post('reader'), 403, 'comment');
      expect(writes).toHaveBeenCalledTimes(2);
      // A page the revision does not have: the first try declines, the handler answers its 400.
      writes.mockClear();
      expectError(await post('commenter', 'no-such-page'), 400, 'page', 'no-such-page');
      expect(writes).toHaveBeenCalledTimes(1);
    } finally {
      writes.mockRestore();
    }
  });
});

describe('the roles the first try of a comment checks in SQL', () => {
  test("are the domain's: those that may comment on any space by their own role", () => {
    const member = (role: Role) => ({ organizationId: 'acme', role, disabled: false });
    expect(ROLES.filter((role) => atLeast(contentRole(member(role), null), 'comment'))).toEqual([...COMMENTER_ROLES]);
  });
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
