// Comments on a space (`/v1/spaces/{spaceId}/comments`, `/commenters`). The operations' tests are shared with the
// change-request form (comments-change-requests.test.ts) through comments.suite.ts.
import { describe, expect, test } from 'vitest';
import { commentFixture, describeCommentOperations, spaceBase } from './comments.suite.ts';
import { expectError, ok } from './support/expect.ts';
import { useTestServer } from './support/server.ts';

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
