// The comment operations, as tests shared by the space-level and change-request-level bases: each base is an
// adapter with the same methods, so both forms of every operation get the same tests.
import { beforeAll, describe, expect, test } from 'vitest';
import { documentBlocks } from '../../server/content/document.ts';
import type { RevisionContent } from '../../server/content/model.ts';
import { commitSpaceContent, getRevision } from '../../server/content/revisions.ts';
import { commitChangeRequestContent, getChangeRequestRow } from '../../server/domain/change-requests.ts';
import { getSpaceRow } from '../../server/domain/spaces.ts';
import type { operations } from '../../client/index.ts';
import type { Input, Model } from '../../server/handlers/types.ts';
import { expectError, ok } from '../support/expect.ts';
import { standardFixture, type RoleUser } from '../support/fixture.ts';
import type { TestServer } from '../support/server.ts';
import { sql } from 'kysely';
import { inWrite } from '../../server/context/context.ts';

export type Who = RoleUser | 'anonymous';
type Ctx = { readonly server: TestServer };
type ListQuery = NonNullable<operations['listSpaceComments']['parameters']['query']>;
type CreateBody = Input<'CreateCommentRequest'>;
type UpdateBody = Input<'UpdateCommentRequest'>;
type UpdateReplyBody = Input<'UpdateChangeRequestCommentReplyRequest'>;
type Format = { format?: 'markdown' | 'document' };
type Paging = { page?: string; limit?: number };
/** Path parameters to address another (unknown) space or change request. */
export type Where = { spaceId?: string; changeRequestId?: string };

const GUIDE_MARKDOWN = '# Guide\n\nFirst paragraph of the guide.\n\n- step one\n- step two\n';
const blockKey = (markdown: string, text: string) => [...documentBlocks(markdown)].find(([, block]) => block.text === text)![0];
const FIRST_PARAGRAPH = blockKey(GUIDE_MARKDOWN, 'First paragraph of the guide.');

const spacePages = (space: string) => [
  { id: `${space}-guide`, title: 'Guide', markdown: GUIDE_MARKDOWN },
  { id: `${space}-faq`, title: 'FAQ', markdown: 'Ask away.\n' },
  { id: `${space}-scratch`, title: 'Scratch', markdown: 'Draft text.\n' },
];

/** Organization acme with a space (`id`) holding pages `<id>-guide`, `<id>-faq` and `<id>-scratch`. */
export const commentFixture = (spaceId: string) => ({
  ...standardFixture,
  organizations: [
    { ...standardFixture.organizations![0]!, spaces: [{ id: spaceId, title: 'Handbook', pages: spacePages(spaceId) }] },
    standardFixture.organizations![1]!,
  ],
});

/** Gives the space (or the change request) new content, as an edit would. */
export const contentEditor =
  (ctx: Ctx) => (spaceId: string, changeRequestId: string | undefined, change: (content: RevisionContent) => void): Promise<void> =>
    inWrite(ctx.server.running.ctx, async (scope) => {
      const { db } = scope;
      const current = changeRequestId
        ? (await getChangeRequestRow(db, spaceId, changeRequestId))!.revisionId
        : (await getSpaceRow(db, spaceId))!.revisionId;
      const content = structuredClone((await getRevision(db, current, spaceId))!.content);
      change(content);
      if (changeRequestId) {
        const row = (await getChangeRequestRow(db, spaceId, changeRequestId))!;
        await commitChangeRequestContent(scope, row, { type: 'edits', content, contributor: 'editor' });
      } else {
        await commitSpaceContent(db, spaceId, [current], content, scope.now());
      }
    });

type Answer<T> = Promise<{ response: Response; data?: T; error?: unknown }>;

/** The operations of one base (space or change request), with the same signatures. */
export interface Base {
  spaceId: string;
  /** The change request of a change-request base; undefined for the space base. */
  changeRequestId(): string | undefined;
  page(name: 'guide' | 'faq' | 'scratch'): string;
  location(commentId: string): string;
  /** Open comments as the space or the change request counts them. */
  openCount(): Promise<number>;
  list(who: Who, query?: ListQuery, where?: Where): Answer<Model<'CommentList'>>;
  create(who: Who, body: CreateBody, where?: Where): Answer<Model<'Comment'>>;
  get(who: Who, commentId: string, query?: Format): Answer<Model<'Comment'>>;
  update(who: Who, commentId: string, body: UpdateBody): Answer<Model<'Comment'>>;
  remove(who: Who, commentId: string, where?: Where): Answer<never>;
  listReplies(who: Who, commentId: string, query?: Paging & Format): Answer<Model<'CommentReplyList'>>;
  createReply(who: Who, commentId: string, markdown: string): Answer<Model<'CommentReply'>>;
  getReply(who: Who, commentId: string, replyId: string, query?: Format): Answer<Model<'CommentReply'>>;
  updateReply(who: Who, commentId: string, replyId: string, body: UpdateReplyBody): Answer<Model<'CommentReply'>>;
  removeReply(who: Who, commentId: string, replyId: string): Answer<never>;
  commenters(who: Who, query?: Paging, where?: Where): Answer<Model<'MemberList'>>;
}

export function spaceBase(ctx: Ctx, spaceId: string): Base {
  const api = (who: Who) => ctx.server.as(who);
  const path = (where?: Where) => ({ spaceId, ...where });
  return {
    spaceId,
    changeRequestId: () => undefined,
    page: (name) => `${spaceId}-${name}`,
    location: (id) => `${ctx.server.url}/v1/spaces/${spaceId}/comments/${id}`,
    openCount: async () => ok(await api('admin').GET('/v1/spaces/{spaceId}', { params: { path: path() } })).comments,
    list: (who, query, where) => api(who).GET('/v1/spaces/{spaceId}/comments', { params: { path: path(where), query } }),
    create: (who, body, where) => api(who).POST('/v1/spaces/{spaceId}/comments', { params: { path: path(where) }, body }),
    get: (who, commentId, query) =>
      api(who).GET('/v1/spaces/{spaceId}/comments/{commentId}', { params: { path: { ...path(), commentId }, query } }),
    update: (who, commentId, body) =>
      api(who).PUT('/v1/spaces/{spaceId}/comments/{commentId}', { params: { path: { ...path(), commentId } }, body }),
    remove: (who, commentId, where) =>
      api(who).DELETE('/v1/spaces/{spaceId}/comments/{commentId}', { params: { path: { ...path(where), commentId } } }),
    listReplies: (who, commentId, query) =>
      api(who).GET('/v1/spaces/{spaceId}/comments/{commentId}/replies', {
        params: { path: { ...path(), commentId }, query },
      }),
    createReply: (who, commentId, markdown) =>
      api(who).POST('/v1/spaces/{spaceId}/comments/{commentId}/replies', {
        params: { path: { ...path(), commentId } },
        body: { body: { markdown } },
      }),
    getReply: (who, commentId, commentReplyId, query) =>
      api(who).GET('/v1/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}', {
        params: { path: { ...path(), commentId, commentReplyId }, query },
      }),
    updateReply: (who, commentId, commentReplyId, body) =>
      api(who).PUT('/v1/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}', {
        params: { path: { ...path(), commentId, commentReplyId } },
        // The space-level form does not accept `resolved`: tests send it to see the 400.
        body: body as Input<'UpdateCommentReplyRequest'>,
      }),
    removeReply: (who, commentId, commentReplyId) =>
      api(who).DELETE('/v1/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}', {
        params: { path: { ...path(), commentId, commentReplyId } },
      }),
    commenters: (who, query, where) =>
      api(who).GET('/v1/spaces/{spaceId}/commenters', { params: { path: path(where), query } }),
  };
}

export function changeRequestBase(ctx: Ctx, spaceId: string, changeRequest: () => string): Base {
  const api = (who: Who) => ctx.server.as(who);
  const path = (where?: Where) => ({ spaceId, changeRequestId: changeRequest(), ...where });
  const comments = '/v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments';
  return {
    spaceId,
    changeRequestId: changeRequest,
    page: (name) => `${spaceId}-${name}`,
    location: (id) => `${ctx.server.url}/v1/spaces/${spaceId}/change-requests/${changeRequest()}/comments/${id}`,
    openCount: async () =>
      ok(await api('admin').GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}', { params: { path: path() } }))
        .comments,
    list: (who, query, where) => api(who).GET(comments, { params: { path: path(where), query } }),
    create: (who, body, where) => api(who).POST(comments, { params: { path: path(where) }, body }),
    get: (who, commentId, query) =>
      api(who).GET(`${comments}/{commentId}`, { params: { path: { ...path(), commentId }, query } }),
    update: (who, commentId, body) =>
      api(who).PUT(`${comments}/{commentId}`, { params: { path: { ...path(), commentId } }, body }),
    remove: (who, commentId, where) =>
      api(who).DELETE(`${comments}/{commentId}`, { params: { path: { ...path(where), commentId } } }),
    listReplies: (who, commentId, query) =>
      api(who).GET(`${comments}/{commentId}/replies`, { params: { path: { ...path(), commentId }, query } }),
    createReply: (who, commentId, markdown) =>
      api(who).POST(`${comments}/{commentId}/replies`, {
        params: { path: { ...path(), commentId } },
        body: { body: { markdown } },
      }),
    getReply: (who, commentId, commentReplyId, query) =>
      api(who).GET(`${comments}/{commentId}/replies/{commentReplyId}`, {
        params: { path: { ...path(), commentId, commentReplyId }, query },
      }),
    updateReply: (who, commentId, commentReplyId, body) =>
      api(who).PUT(`${comments}/{commentId}/replies/{commentReplyId}`, {
        params: { path: { ...path(), commentId, commentReplyId } },
        body,
      }),
    removeReply: (who, commentId, commentReplyId) =>
      api(who).DELETE(`${comments}/{commentId}/replies/{commentReplyId}`, {
        params: { path: { ...path(), commentId, commentReplyId } },
      }),
    commenters: (who, query, where) =>
      api(who).GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/commenters', {
        params: { path: path(where), query },
      }),
  };
}

/** The tests every operation gets under both bases. */
export function describeCommentOperations(ctx: Ctx, base: Base): void {
  const editContent = contentEditor(ctx);

  beforeAll(async () => {
    await editContent(base.spaceId, base.changeRequestId(), (content) => {
      content.pages.find((page) => page.id === base.page('faq'))!.emoji = '❓';
    });
  });

  const post = async (who: Who = 'commenter', body: Partial<CreateBody> = {}) =>
    ok(await base.create(who, { page: base.page('guide'), body: { markdown: 'A remark.' }, ...body }), 201);
  const idsOf = (list: { items: { id: string }[] }) => list.items.map((item) => item.id);
  const unknown = (): Where => (base.changeRequestId() ? { changeRequestId: 'nope' } : { spaceId: 'nope' });

  const suite: Suite = { ctx, base, editContent, post, idsOf, unknown };
  describePosting(suite);
  describeReading(suite);
  describeChanging(suite);
  describeReplies(suite);
  describePagesAndCommenters(suite);
}

/** What the groups of describeCommentOperations share: the server, the base, and their helpers. */
interface Suite {
  ctx: Ctx;
  base: Base;
  editContent: ReturnType<typeof contentEditor>;
  post: (who?: Who, body?: Partial<CreateBody>) => Promise<Model<'Comment'>>;
  idsOf: (list: { items: { id: string }[] }) => string[];
  unknown: () => Where;
}

/** The tests of posting a comment, and the official client posting one. */
function describePosting({ base, post, idsOf, unknown }: Suite): void {
  describe('POST comments', () => {
    test('posts a comment on a block of a page, and reads it back', async () => {
      const created = await base.create('commenter', {
        page: base.page('guide'),
        node: FIRST_PARAGRAPH,
        body: { markdown: 'Is this **right**?' },
        tableCell: { record: 'row-1', definition: 'col-1' },
      });
      const comment = ok(created, 201);
      expect(created.response.headers.get('location')).toBe(comment.urls.location);
      expect(comment).toMatchObject({
        object: 'comment',
        postedBy: { id: 'commenter' },
        body: { markdown: 'Is this **right**?' },
        status: 'open',
        replies: 0,
        reactions: [],
        permissions: { view: true, edit: true, reply: true, delete: true },
        urls: { location: base.location(comment.id) },
        target: {
          space: base.spaceId,
          page: { id: base.page('guide'), title: 'Guide', path: 'guide', outdated: false },
          node: { id: FIRST_PARAGRAPH, preview: 'First paragraph of the guide.' },
          tableCell: { record: 'row-1', definition: 'col-1' },
        },
      });
      expect(comment.target.changeRequest).toBe(base.changeRequestId());
      expect(comment.target.revision).toEqual(expect.any(String));
      expect(comment.editedAt).toBeUndefined();
      expect(ok(await base.get('commenter', comment.id))).toEqual(comment);
    });

    test('a comment may target a whole page, which carries its emoji', async () => {
      const comment = await post('commenter', { page: base.page('faq') });
      expect(comment.target.node).toBeUndefined();
      expect(comment.target.page).toMatchObject({ id: base.page('faq'), title: 'FAQ', emoji: '❓', path: 'faq' });
    });

    test('answers 400 naming page or node when they are not in the revision, and posts nothing', async () => {
      const before = ok(await base.list('admin')).count;
      expectError(await base.create('commenter', { page: 'no-such-page', body: { markdown: 'x' } }), 400, 'page', 'no-such-page');
      expectError(
        await base.create('commenter', { page: base.page('faq'), node: FIRST_PARAGRAPH, body: { markdown: 'x' } }),
        400,
        'node',
        FIRST_PARAGRAPH,
      );
      expectError(await base.create('commenter', { page: base.page('guide'), body: { markdown: '' } }), 400, 'markdown');
      expectError(await base.create('commenter', { node: FIRST_PARAGRAPH, body: { markdown: 'x' } }), 400, 'node', 'page');
      expectError(await base.create('commenter', {} as CreateBody), 400, 'body');
      expect(ok(await base.list('admin')).count).toBe(before);
    });

    test('without a page, a comment is on the space or the change request as a whole', async () => {
      const comment = ok(await base.create('commenter', { body: { markdown: 'About all of it.' } }), 201);
      expect(comment.target).toEqual({
        space: base.spaceId,
        revision: expect.any(String),
        ...(base.changeRequestId() ? { changeRequest: base.changeRequestId() } : {}),
      });
      expect(ok(await base.get('commenter', comment.id))).toEqual(comment);
      expect(idsOf(ok(await base.list('reader', { limit: 1000 })))).toContain(comment.id);
      // A page filter matches comments on that page only.
      for (const name of ['guide', 'faq', 'scratch'] as const) {
        expect(idsOf(ok(await base.list('reader', { targetPage: base.page(name), limit: 1000 })))).not.toContain(comment.id);
      }
      const withCell = ok(await base.create('commenter', { body: { markdown: 'A cell.' }, tableCell: { record: 'r', definition: 'd' } }), 201);
      expect(withCell.target).toMatchObject({ space: base.spaceId, tableCell: { record: 'r', definition: 'd' } });
      expect(withCell.target.page).toBeUndefined();
    });

    test('needs the comment permission: a reader gets 403', async () => {
      expectError(await base.create('reader', { page: base.page('guide'), body: { markdown: 'x' } }), 403, 'comment');
      expectError(await base.create('reader', { body: { markdown: 'x' } }), 403, 'comment');
    });

    test('answers 404 for an unknown parent, to another organization and to a guest who cannot see the space', async () => {
      const body = { page: base.page('guide'), body: { markdown: 'x' } };
      expectError(await base.create('admin', body, unknown()), 404);
      expectError(await base.create('outsider', body), 404);
      expectError(await base.create('guest', body), 404);
    });

    test('needs a token', async () => {
      expectError(await base.create('anonymous', { page: base.page('guide'), body: { markdown: 'x' } }), 401);
    });

    test('the open comments count follows posting, resolving and deleting', async () => {
      const before = await base.openCount();
      const comment = await post();
      expect(await base.openCount()).toBe(before + 1);
      ok(await base.update('commenter', comment.id, { resolved: true }));
      expect(await base.openCount()).toBe(before);
      ok(await base.update('commenter', comment.id, { resolved: false }));
      expect(await base.openCount()).toBe(before + 1);
      ok(await base.remove('commenter', comment.id), 204);
      expect(await base.openCount()).toBe(before);
    });
  });

  describe("the platform's official client", () => {
    // Its comment flow, as it sends it: a post with only a body, then reads with format=markdown, a reply, and
    // the rest of the lifecycle.
    test('post with only a body, get (format=markdown), list, reply, replies, resolve, unresolve, commenters, delete', async () => {
      const posted = ok(await base.create('editor', { body: { markdown: 'Looks good overall.' } }), 201);
      expect(posted).toMatchObject({ object: 'comment', status: 'open', replies: 0, postedBy: { id: 'editor' } });
      const read = ok(await base.get('reviewer', posted.id, { format: 'markdown' }));
      expect(read).toMatchObject({ id: posted.id, body: { markdown: 'Looks good overall.' }, target: { space: base.spaceId } });
      expect(read.body.document).toBeUndefined();
      expect(read.target.page).toBeUndefined();
      expect(idsOf(ok(await base.list('reviewer', { format: 'markdown', limit: 1000 })))).toContain(posted.id);
      const reply = ok(await base.createReply('reviewer', posted.id, 'Agreed.'), 201);
      expect(reply).toMatchObject({ object: 'comment-reply', body: { markdown: 'Agreed.' }, postedBy: { id: 'reviewer' } });
      // What the post answered is what a read gives (a new reply has no reactions to read; the same holds for comments).
      expect(ok(await base.getReply('reviewer', posted.id, reply.id))).toEqual(reply);
      const replies = ok(await base.listReplies('editor', posted.id, { format: 'markdown' }));
      expect(replies).toMatchObject({ count: 1, items: [{ id: reply.id, body: { markdown: 'Agreed.' } }] });
      expect(ok(await base.get('editor', posted.id)).replies).toBe(1);
      const resolved = ok(await base.update('reviewer', posted.id, { resolved: true }));
      expect(resolved).toMatchObject({ status: 'resolved', resolvedBy: { id: 'reviewer' }, resolvedAt: expect.any(String) });
      const reopened = ok(await base.update('editor', posted.id, { resolved: false }));
      expect(reopened.status).toBe('open');
      expect(reopened.resolvedAt).toBeUndefined();
      const commenters = ok(await base.commenters('editor', { limit: 1000 })).items.map((member) => member.user.id);
      expect(commenters).toEqual(expect.arrayContaining(['editor', 'reviewer']));
      ok(await base.remove('editor', posted.id), 204);
      expectError(await base.get('editor', posted.id), 404);
      expectError(await base.listReplies('editor', posted.id), 404);
    });
  });
}

/** The tests of reading the comments and one comment. */
function describeReading({ ctx, base, post, idsOf, unknown }: Suite): void {
  describe('GET comments', () => {
    test("each comment and reply of a page is what reading it alone gives: its replies, its reactions, no other's", async () => {
      // A page whose comments have different replies and reactions: a list reads those for the whole page at once.
      const target = { page: base.page('faq') };
      const plain = await post('commenter', target);
      ctx.server.clock.advance(1000);
      const discussed = await post('editor', target);
      ok(await base.createReply('commenter', discussed.id, 'First.'), 201);
      const second = ok(await base.createReply('admin', discussed.id, 'Second.'), 201);
      ok(await base.updateReply('editor', discussed.id, second.id, { addedReactions: ['🎉'] }));
      ok(await base.update('commenter', discussed.id, { addedReactions: ['👍'] }));
      ctx.server.clock.advance(1000);
      const liked = await post('admin', target);
      ok(await base.update('editor', liked.id, { addedReactions: ['👍', '❤️'] }));
      ok(await base.update('commenter', liked.id, { addedReactions: ['❤️'] }));
      ok(await base.update('commenter', discussed.id, { addedReactions: ['❤️'] }));

      const listed = ok(await base.list('reader', { targetPage: target.page, limit: 1000 })).items;
      for (const comment of [plain, discussed, liked]) {
        const item = listed.find((candidate) => candidate.id === comment.id);
        expect(item).toEqual(ok(await base.get('reader', comment.id)));
      }
      expect(listed.find((item) => item.id === discussed.id)).toMatchObject({
        replies: 2,
        reactions: [{ emoji: '👍', count: 1 }, { emoji: '❤️', count: 1 }],
      });
      expect(listed.find((item) => item.id === liked.id)!.reactions).toMatchObject([
        { emoji: '👍', count: 1 },
        { emoji: '❤️', count: 2, users: [{ user: { id: 'editor' } }, { user: { id: 'commenter' } }] },
      ]);
      expect(listed.find((item) => item.id === plain.id)).toMatchObject({ replies: 0, reactions: [] });

      const replies = ok(await base.listReplies('reader', discussed.id)).items;
      expect(replies).toHaveLength(2);
      for (const reply of replies) expect(reply).toEqual(ok(await base.getReply('reader', discussed.id, reply.id)));
      expect(replies.find((reply) => reply.id === second.id)!.reactions).toMatchObject([{ emoji: '🎉', count: 1 }]);
    });

    test('lists newest first by default, oldest first with order=asc, and pages with a cursor', async () => {
      const first = await post('commenter', { page: base.page('scratch') });
      ctx.server.clock.advance(1000);
      const second = await post('editor', { page: base.page('scratch') });
      const query = { targetPage: base.page('scratch') };
      expect(idsOf(ok(await base.list('reader', query))).slice(0, 2)).toEqual([second.id, first.id]);
      const ascending = ok(await base.list('reader', { ...query, order: 'asc' }));
      expect(idsOf(ascending).indexOf(first.id)).toBeLessThan(idsOf(ascending).indexOf(second.id));

      const all = ok(await base.list('reader', query));
      const seen: string[] = [];
      let page: string | undefined;
      do {
        const list = ok(await base.list('reader', { ...query, limit: 1, page }));
        expect(list.count).toBe(all.count);
        seen.push(...idsOf(list));
        page = list.next?.page;
      } while (page);
      expect(seen).toEqual(idsOf(all));
    });

    test('filters by status, page and authors', async () => {
      const open = await post('reviewer', { page: base.page('faq') });
      const resolved = await post('creator', { page: base.page('faq') });
      ok(await base.update('creator', resolved.id, { resolved: true }));

      const onlyOpen = idsOf(ok(await base.list('reader', { status: 'open' })));
      expect(onlyOpen).toContain(open.id);
      expect(onlyOpen).not.toContain(resolved.id);
      const onlyResolved = ok(await base.list('reader', { status: 'resolved' }));
      expect(idsOf(onlyResolved)).toContain(resolved.id);
      expect(onlyResolved.items.every((item) => item.status === 'resolved')).toBe(true);

      const onFaq = ok(await base.list('reader', { targetPage: base.page('faq') }));
      expect(onFaq.items.every((item) => item.target.page?.id === base.page('faq'))).toBe(true);

      const byAuthors = ok(await base.list('reader', { authors: ['reviewer', 'creator'] }));
      expect(idsOf(byAuthors)).toEqual(expect.arrayContaining([open.id, resolved.id]));
      expect(byAuthors.items.every((item) => ['reviewer', 'creator'].includes(item.postedBy.id))).toBe(true);
      expect(byAuthors.count).toBe(byAuthors.items.length);
      expect(ok(await base.list('reader', { authors: ['nobody'] })).count).toBe(0);
    });

    test('gives the body as a Document with format=document', async () => {
      const comment = await post('commenter', { body: { markdown: 'Hello **there**' } });
      const list = ok(await base.list('reader', { format: 'document', authors: ['commenter'] }));
      const item = list.items.find((entry) => entry.id === comment.id)!;
      expect(item.body.markdown).toBeUndefined();
      expect(item.body.document).toMatchObject({
        object: 'document',
        nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ text: 'Hello ' }, { text: 'there', marks: [{ type: 'bold' }] }] }] }],
      });
    });

    test('does not list the replies', async () => {
      const comment = await post();
      const reply = ok(await base.createReply('commenter', comment.id, 'A reply.'), 201);
      const ids = idsOf(ok(await base.list('reader', { limit: 1000 })));
      expect(ids).toContain(comment.id);
      expect(ids).not.toContain(reply.id);
    });

    test('rejects invalid filters and a forged cursor with 400 naming the parameter', async () => {
      expectError(await base.list('reader', { status: 'closed' as never }), 400, 'status');
      expectError(await base.list('reader', { order: 'up' as never }), 400, 'order');
      expectError(await base.list('reader', { limit: 0 }), 400, 'limit');
      expectError(await base.list('reader', { page: 'forged.cursor' }), 400, 'page');
    });

    test('answers 404 for an unknown parent, to another organization and to a guest; 401 without a token', async () => {
      expectError(await base.list('admin', {}, unknown()), 404);
      expectError(await base.list('outsider'), 404);
      expectError(await base.list('guest'), 404);
      expectError(await base.list('anonymous'), 401);
    });
  });

  describe('GET a comment', () => {
    test('any member who can see the space reads it, with permissions computed for them', async () => {
      const comment = await post('commenter');
      expect(ok(await base.get('reader', comment.id)).permissions).toEqual({ view: true, edit: false, reply: false, delete: false });
      expect(ok(await base.get('editor', comment.id)).permissions).toEqual({ view: true, edit: false, reply: true, delete: false });
      expect(ok(await base.get('admin', comment.id)).permissions).toEqual({ view: true, edit: true, reply: true, delete: true });
      expect(ok(await base.get('reader', comment.id, { format: 'document' })).body.document?.object).toBe('document');
    });

    test('answers 400 for an unknown format, 404 for an unknown id or another organization, 401 without a token', async () => {
      const comment = await post();
      expectError(await base.get('reader', comment.id, { format: 'html' as never }), 400, 'format');
      expectError(await base.get('reader', 'no-such-comment'), 404);
      expectError(await base.get('outsider', comment.id), 404);
      expectError(await base.get('guest', comment.id), 404);
      expectError(await base.get('anonymous', comment.id), 401);
    });

    test('a reply is not a comment: its id answers 404', async () => {
      const comment = await post();
      const reply = ok(await base.createReply('commenter', comment.id, 'Reply.'), 201);
      expectError(await base.get('reader', reply.id), 404);
    });
  });
}

/** The tests of changing and deleting a comment. */
function describeChanging({ ctx, base, post, unknown }: Suite): void {
  describe('PUT a comment', () => {
    test('edits the body and sets editedAt', async () => {
      const comment = await post('commenter');
      ctx.server.clock.advance(60_000);
      const updated = ok(await base.update('commenter', comment.id, { body: { markdown: 'Reworded.' } }));
      expect(updated.body).toEqual({ markdown: 'Reworded.' });
      expect(updated.editedAt).toBe(ctx.server.clock.now().toISOString());
      expect(ok(await base.get('reader', comment.id))).toMatchObject({ body: { markdown: 'Reworded.' }, editedAt: updated.editedAt });
    });

    test('resolving sets resolvedAt and resolvedBy; reopening clears them', async () => {
      const comment = await post('commenter');
      ctx.server.clock.advance(1000);
      const resolved = ok(await base.update('editor', comment.id, { resolved: true }));
      expect(resolved).toMatchObject({ status: 'resolved', resolvedAt: ctx.server.clock.now().toISOString(), resolvedBy: { id: 'editor' } });
      expect(ok(await base.get('reader', comment.id))).toMatchObject({ status: 'resolved', resolvedBy: { id: 'editor' } });

      ctx.server.clock.advance(1000);
      const again = ok(await base.update('admin', comment.id, { resolved: true }));
      expect(again.resolvedAt).toBe(resolved.resolvedAt);
      expect(again.resolvedBy?.id).toBe('editor');

      const reopened = ok(await base.update('commenter', comment.id, { resolved: false }));
      expect(reopened.status).toBe('open');
      expect(reopened.resolvedAt).toBeUndefined();
      expect(reopened.resolvedBy).toBeUndefined();
      expect(ok(await base.get('reader', comment.id)).resolvedAt).toBeUndefined();
    });

    test('reactions: one item per emoji with its count and users; removing takes the caller off', async () => {
      const comment = await post('commenter');
      ok(await base.update('commenter', comment.id, { addedReactions: ['👍'] }));
      ctx.server.clock.advance(1000);
      ok(await base.update('editor', comment.id, { addedReactions: ['👍', '🎉'] }));
      ok(await base.update('editor', comment.id, { addedReactions: ['👍'] }));
      const read = ok(await base.get('reader', comment.id));
      expect(read.reactions).toEqual([
        {
          emoji: '👍',
          count: 2,
          users: [
            { user: expect.objectContaining({ id: 'commenter' }), reactedAt: expect.any(String) },
            { user: expect.objectContaining({ id: 'editor' }), reactedAt: ctx.server.clock.now().toISOString() },
          ],
        },
        { emoji: '🎉', count: 1, users: [{ user: expect.objectContaining({ id: 'editor' }), reactedAt: expect.any(String) }] },
      ]);

      ok(await base.update('editor', comment.id, { removedReactions: ['👍', '🎉'] }));
      expect(ok(await base.get('reader', comment.id)).reactions).toEqual([
        { emoji: '👍', count: 1, users: [expect.objectContaining({ user: expect.objectContaining({ id: 'commenter' }) })] },
      ]);
    });

    test("editing someone else's comment needs the admin permission", async () => {
      const comment = await post('commenter');
      expectError(await base.update('creator', comment.id, { body: { markdown: 'Hijacked.' } }), 403, 'admin');
      expect(ok(await base.get('reader', comment.id)).body.markdown).toBe('A remark.');
      const edited = ok(await base.update('admin', comment.id, { body: { markdown: 'Moderated.' } }));
      expect(edited.body.markdown).toBe('Moderated.');
      expect(edited.postedBy.id).toBe('commenter');
    });

    test('resolving and reacting need the comment permission: a reader gets 403 and nothing changes', async () => {
      const comment = await post('commenter');
      expectError(await base.update('reader', comment.id, { resolved: true }), 403, 'comment');
      expectError(await base.update('reader', comment.id, { addedReactions: ['👍'] }), 403, 'comment');
      expect(ok(await base.get('reader', comment.id))).toMatchObject({ status: 'open', reactions: [] });
    });

    test('rejects invalid input with 400 naming the field, and changes nothing', async () => {
      const comment = await post('commenter');
      expectError(await base.update('commenter', comment.id, { addedReactions: [''] }), 400, 'addedReactions');
      expectError(await base.update('commenter', comment.id, { addedReactions: ['a b'] }), 400, 'addedReactions');
      expectError(
        await base.update('commenter', comment.id, { addedReactions: ['👍'], removedReactions: ['👍'] }),
        400,
        'removedReactions',
      );
      expectError(
        await base.update('commenter', comment.id, { body: { markdown: 'Changed.' }, addedReactions: ['👍', ' '] }),
        400,
        'addedReactions',
      );
      expectError(await base.update('commenter', comment.id, { body: { markdown: '' } }), 400, 'markdown');
      expectError(await base.update('commenter', comment.id, { resolved: 'yes' } as never), 400, 'resolved');
      expectError(await base.update('commenter', comment.id, { status: 'resolved' } as never), 400, 'status');
      const read = ok(await base.get('reader', comment.id));
      expect(read).toMatchObject({ body: { markdown: 'A remark.' }, status: 'open', reactions: [] });
      expect(read.editedAt).toBeUndefined();
    });

    test('answers 404 for an unknown id or another organization, 401 without a token', async () => {
      const comment = await post('commenter');
      expectError(await base.update('admin', 'no-such-comment', { resolved: true }), 404);
      expectError(await base.update('outsider', comment.id, { resolved: true }), 404);
      expectError(await base.update('anonymous', comment.id, { resolved: true }), 401);
    });
  });

  describe('DELETE a comment', () => {
    test('the author deletes it with its replies; deleting again answers 204', async () => {
      const comment = await post('commenter');
      const reply = ok(await base.createReply('editor', comment.id, 'Reply.'), 201);
      ok(await base.remove('commenter', comment.id), 204);
      expectError(await base.get('reader', comment.id), 404);
      expect(await ctx.server.running.ctx.store.reader.all(sql`SELECT id FROM comments WHERE id = ${reply.id}`)).toEqual([]);
      ok(await base.remove('commenter', comment.id), 204);
      ok(await base.remove('commenter', 'never-existed'), 204);
    });

    test("deleting someone else's comment needs the admin permission", async () => {
      const comment = await post('commenter');
      expectError(await base.remove('editor', comment.id), 403, 'admin');
      expectError(await base.remove('reader', comment.id), 403);
      ok(await base.get('reader', comment.id));
      ok(await base.remove('admin', comment.id), 204);
      expectError(await base.get('reader', comment.id), 404);
    });

    test('answers 404 when the parent is unknown or in another organization, 401 without a token', async () => {
      const comment = await post('commenter');
      expectError(await base.remove('admin', comment.id, unknown()), 404);
      expectError(await base.remove('outsider', comment.id), 404);
      expectError(await base.remove('anonymous', comment.id), 401);
      ok(await base.get('reader', comment.id));
    });
  });
}

/** The tests of replies. */
function describeReplies({ ctx, base, post }: Suite): void {
  describe('replies', () => {
    test('posting a reply answers 201, reads back, and the replies count follows', async () => {
      const comment = await post('commenter');
      const created = await base.createReply('editor', comment.id, 'Agreed, *mostly*.');
      const reply = ok(created, 201);
      expect(created.response.headers.get('location')).toBe(reply.urls.location);
      expect(reply).toMatchObject({
        object: 'comment-reply',
        postedBy: { id: 'editor' },
        body: { markdown: 'Agreed, *mostly*.' },
        reactions: [],
        permissions: { view: true, edit: true, reply: true, delete: true },
        urls: { location: `${base.location(comment.id)}/replies/${reply.id}` },
      });
      expect(ok(await base.getReply('reader', comment.id, reply.id))).toEqual({
        ...reply,
        permissions: { view: true, edit: false, reply: false, delete: false },
      });
      expect(ok(await base.get('reader', comment.id)).replies).toBe(1);
      ok(await base.createReply('commenter', comment.id, 'Thanks.'), 201);
      expect(ok(await base.get('reader', comment.id)).replies).toBe(2);
      ok(await base.removeReply('editor', comment.id, reply.id), 204);
      expect(ok(await base.get('reader', comment.id)).replies).toBe(1);
    });

    test('lists replies oldest first, with a cursor, and as Documents with format=document', async () => {
      const comment = await post('commenter');
      const first = ok(await base.createReply('editor', comment.id, 'One'), 201);
      ctx.server.clock.advance(1000);
      const second = ok(await base.createReply('commenter', comment.id, 'Two'), 201);
      const page1 = ok(await base.listReplies('reader', comment.id, { limit: 1 }));
      expect(page1).toMatchObject({ count: 2, items: [{ id: first.id }] });
      const page2 = ok(await base.listReplies('reader', comment.id, { limit: 1, page: page1.next!.page }));
      expect(page2.items.map((item) => item.id)).toEqual([second.id]);
      expect(page2.next).toBeUndefined();
      const documents = ok(await base.listReplies('reader', comment.id, { format: 'document' }));
      expect(documents.items[0]!.body.document?.nodes[0]).toMatchObject({ type: 'paragraph' });
      expect(ok(await base.getReply('reader', comment.id, first.id, { format: 'document' })).body.markdown).toBeUndefined();
    });

    test('editing a reply sets editedAt; reactions work as on comments', async () => {
      const comment = await post('commenter');
      const reply = ok(await base.createReply('editor', comment.id, 'Draft reply'), 201);
      ctx.server.clock.advance(5000);
      const edited = ok(await base.updateReply('editor', comment.id, reply.id, { body: { markdown: 'Final reply' } }));
      expect(edited).toMatchObject({ body: { markdown: 'Final reply' }, editedAt: ctx.server.clock.now().toISOString() });
      ok(await base.updateReply('commenter', comment.id, reply.id, { addedReactions: ['❤️'] }));
      ok(await base.updateReply('admin', comment.id, reply.id, { addedReactions: ['❤️'] }));
      const read = ok(await base.getReply('reader', comment.id, reply.id));
      expect(read).toMatchObject({ body: { markdown: 'Final reply' }, reactions: [{ emoji: '❤️', count: 2 }] });
      expect(read.reactions[0]!.users.map((entry) => entry.user.id)).toEqual(['commenter', 'admin']);
      ok(await base.updateReply('admin', comment.id, reply.id, { removedReactions: ['❤️'] }));
      expect(ok(await base.getReply('reader', comment.id, reply.id)).reactions).toMatchObject([{ emoji: '❤️', count: 1 }]);
    });

    test("editing or deleting someone else's reply needs the admin permission; replying needs comment", async () => {
      const comment = await post('commenter');
      const reply = ok(await base.createReply('editor', comment.id, 'Mine'), 201);
      expectError(await base.updateReply('commenter', comment.id, reply.id, { body: { markdown: 'Yours' } }), 403, 'admin');
      expectError(await base.removeReply('commenter', comment.id, reply.id), 403, 'admin');
      expectError(await base.createReply('reader', comment.id, 'Me too'), 403, 'comment');
      expectError(await base.updateReply('reader', comment.id, reply.id, { addedReactions: ['👍'] }), 403, 'comment');
      expect(ok(await base.getReply('reader', comment.id, reply.id))).toMatchObject({ body: { markdown: 'Mine' }, reactions: [] });
      expect(ok(await base.get('reader', comment.id)).replies).toBe(1);
      ok(await base.updateReply('admin', comment.id, reply.id, { body: { markdown: 'Moderated' } }));
      ok(await base.removeReply('admin', comment.id, reply.id), 204);
      expectError(await base.getReply('reader', comment.id, reply.id), 404);
    });

    test('rejects invalid replies and changes with 400 naming the field, and changes nothing', async () => {
      const comment = await post('commenter');
      const reply = ok(await base.createReply('commenter', comment.id, 'Reply'), 201);
      expectError(await base.createReply('commenter', comment.id, ''), 400, 'markdown');
      expectError(await base.updateReply('commenter', comment.id, reply.id, { body: { markdown: '' } }), 400, 'markdown');
      expectError(await base.updateReply('commenter', comment.id, reply.id, { removedReactions: ['x y'] }), 400, 'removedReactions');
      expectError(await base.listReplies('reader', comment.id, { limit: 1001 }), 400, 'limit');
      expect(ok(await base.getReply('reader', comment.id, reply.id))).toMatchObject({ body: { markdown: 'Reply' } });
      expect(ok(await base.get('reader', comment.id)).replies).toBe(1);
    });

    test('answers 404 for an unknown comment or reply, to a guest and to another organization; 401 without a token', async () => {
      const comment = await post('commenter');
      const reply = ok(await base.createReply('commenter', comment.id, 'Reply'), 201);
      const other = await post('commenter');
      expectError(await base.listReplies('reader', 'no-such-comment'), 404);
      expectError(await base.createReply('commenter', 'no-such-comment', 'x'), 404);
      expectError(await base.getReply('reader', comment.id, 'no-such-reply'), 404);
      expectError(await base.getReply('reader', other.id, reply.id), 404);
      expectError(await base.updateReply('commenter', comment.id, 'no-such-reply', { body: { markdown: 'x' } }), 404);
      expectError(await base.removeReply('commenter', 'no-such-comment', reply.id), 404);
      ok(await base.removeReply('commenter', comment.id, 'no-such-reply'), 204);

      expectError(await base.listReplies('guest', comment.id), 404);
      expectError(await base.getReply('guest', comment.id, reply.id), 404);
      expectError(await base.listReplies('outsider', comment.id), 404);
      expectError(await base.createReply('outsider', comment.id, 'x'), 404);
      expectError(await base.getReply('outsider', comment.id, reply.id), 404);
      expectError(await base.updateReply('outsider', comment.id, reply.id, { addedReactions: ['👍'] }), 404);
      expectError(await base.removeReply('outsider', comment.id, reply.id), 404);

      expectError(await base.listReplies('anonymous', comment.id), 401);
      expectError(await base.createReply('anonymous', comment.id, 'x'), 401);
      expectError(await base.getReply('anonymous', comment.id, reply.id), 401);
      expectError(await base.updateReply('anonymous', comment.id, reply.id, { addedReactions: ['👍'] }), 401);
      expectError(await base.removeReply('anonymous', comment.id, reply.id), 401);
      expect(ok(await base.get('reader', comment.id)).replies).toBe(1);
    });
  });
}

/** The tests of a comment's target page, and the commenters. */
function describePagesAndCommenters({ base, editContent, post, unknown }: Suite): void {
  describe('target page', () => {
    test('becomes outdated when the page changes, and stays shown (outdated) when the page is gone', async () => {
      const comment = await post('commenter', { page: base.page('scratch') });
      await editContent(base.spaceId, base.changeRequestId(), (content) => {
        content.pages.find((page) => page.id === base.page('faq'))!.markdown = 'Ask away, again.\n';
      });
      expect(ok(await base.get('reader', comment.id)).target.page?.outdated).toBe(false);

      await editContent(base.spaceId, base.changeRequestId(), (content) => {
        content.pages.find((page) => page.id === base.page('scratch'))!.markdown = 'Rewritten.\n';
      });
      expect(ok(await base.get('reader', comment.id)).target.page).toMatchObject({ title: 'Scratch', outdated: true });

      await editContent(base.spaceId, base.changeRequestId(), (content) => {
        content.pages = content.pages.filter((page) => page.id !== base.page('scratch'));
      });
      expect(ok(await base.get('reader', comment.id)).target.page).toMatchObject({
        id: base.page('scratch'),
        title: 'Scratch',
        outdated: true,
      });
      expectError(await base.create('commenter', { page: base.page('scratch'), body: { markdown: 'x' } }), 400, 'page');
    });
  });

  describe('GET commenters', () => {
    test('lists the members who posted comments or replies, in order of their first one, with a cursor', async () => {
      const list = ok(await base.commenters('reader', { limit: 1000 }));
      const ids = list.items.map((member) => member.id);
      expect(ids[0]).toBe('commenter');
      expect(ids).toEqual(expect.arrayContaining(['commenter', 'editor', 'creator', 'reviewer']));
      expect(ids).not.toContain('reader');
      expect(ids).not.toContain('guest');
      expect(new Set(ids).size).toBe(ids.length);
      expect(list.items.find((member) => member.id === 'commenter')).toMatchObject({
        object: 'member',
        role: 'comment',
        user: { id: 'commenter', displayName: 'Commenter User' },
      });
      expect(list.count).toBe(ids.length);

      const first = ok(await base.commenters('reader', { limit: 2 }));
      const rest = ok(await base.commenters('reader', { limit: 1000, page: first.next!.page }));
      expect([...first.items, ...rest.items].map((member) => member.id)).toEqual(ids);
    });

    test('a reply is enough to be listed', async () => {
      const comment = await post('commenter');
      ok(await base.createReply('reviewer', comment.id, 'Seen.'), 201);
      const ids = ok(await base.commenters('reader', { limit: 1000 })).items.map((member) => member.id);
      expect(ids).toContain('reviewer');
    });

    test('answers 400 for a bad limit, 404 for an unknown parent or another organization, 401 without a token', async () => {
      expectError(await base.commenters('reader', { limit: 0 }), 400, 'limit');
      expectError(await base.commenters('admin', {}, unknown()), 404);
      expectError(await base.commenters('outsider'), 404);
      expectError(await base.commenters('guest'), 404);
      expectError(await base.commenters('anonymous'), 401);
    });
  });
}
