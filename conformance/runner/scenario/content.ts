// The scenario's groups on the main space's content: the content imported (or a template), a change request with its
// content and discussion, the space's comments, the organization's search.
import { SEARCH_WORD } from '../fixtures.ts';
import { StepFailed } from '../session.ts';
import { addressHint, NEEDS_ADDRESS, NEEDS_FILE, pickPage, type Scenario } from './context.ts';

/** Content of the main space: imported from the runner's website (else from Git, else a template), plus a template, then read. */
export function content(sc: Scenario): Promise<void> {
  const { s, env, main } = sc;
  const { fixtures } = env;
  return s.group('content', async () => {
    if (!main) throw new StepFailed('no space to work in');
    const spaceId = main.id;
    const space = { spaceId };
    // The website import needs the implementation to reach the runner; when it cannot, the template is the content.
    const imported = await s.call(
      'importSpaceContent',
      { path: space, body: { url: fixtures.websiteUrl, source: 'website' } },
      { refusable: NEEDS_ADDRESS },
    );
    s.contentSource = imported.ok ? 'website' : 'template';
    if (!imported.ok) {
      if (imported.status >= 400 && imported.status < 500) s.addressHint = addressHint(fixtures.url);
      // Then a Git import of the same pages and image, when there is a repository holding them.
      if (env.contentGit) {
        const before = await s.must('getSpace', { path: space, query: {} });
        let started: { ok: boolean } = { ok: false };
        for (const url of env.contentGit.urls) {
          started = await s.call('importGitRepository', { path: space, body: { url, ref: env.contentGit.ref } }, { refusable: 'the Git import of the content was refused' });
          if (started.ok) break;
        }
        const after = started.ok
          ? await s.poll('getSpace', { path: space, query: {} }, (current) => current.revision !== before.revision, 'Git import of the content')
          : undefined;
        if (after && after.revision !== before.revision) {
          s.contentSource = 'git';
          // The Git group waits for its export by the space's gitSync.updatedAt: start it from none again.
          await s.call('deleteGitLegacyInstallation', { path: space });
        }
      }
      s.note(
        `content: the website import did not succeed (${imported.status ? `status ${imported.status}` : 'no answer'}): ` +
          (s.contentSource === 'git' ? `the content comes from ${env.contentGit!.ref} of the Git repository` : `the content comes from the template ${env.template}`),
      );
    }
    if (imported.ok) await s.call('applySpaceTemplate', { path: space, body: { id: env.template } });
    else await s.must('applySpaceTemplate', { path: space, body: { id: env.template } });
    await s.call('getSpaceContent', { path: space, query: {} });
    const pages = await s.must('listSpacePages', { path: space, query: {} });
    const page = pickPage(pages.pages, 'Guide');
    sc.mainPage = await s.must('getSpacePage', { path: { spaceId, pageId: page.id }, query: { format: 'markdown' } });
    await s.call('listSpacePageLinks', { path: { spaceId, pageId: page.id }, query: {} });
    await s.call('listSpacePageBacklinks', { path: { spaceId, pageId: page.id }, query: {} });
    await s.call('listSpaceLinks', { path: space, query: {} });
    await s.call('searchSpaceContent', { path: space, query: { query: SEARCH_WORD } });
    const files = await s.must('listSpaceFiles', { path: space, query: {} });
    const file = files.items[0];
    if (!file && s.contentSource !== 'website') return s.unexercisable(['getSpaceFile', 'listSpaceFileBacklinks'], NEEDS_FILE);
    if (!file) throw new StepFailed('the website import brought no file (the image)');
    await s.call('getSpaceFile', { path: { spaceId, fileId: file.id }, query: {} });
    await s.call('listSpaceFileBacklinks', { path: { spaceId, fileId: file.id }, query: {} });
  });
}

/** A change request of the main space: its content, its comments, update from main and merge. */
export function changeRequests(sc: Scenario): Promise<void> {
  const { s, env, named, main } = sc;
  const { fixtures } = env;
  return s.group('change requests', async (defer) => {
    if (!main) throw new StepFailed('no space to work in');
    const spaceId = main.id;
    const changeRequest = await s.must('createChangeRequest', { path: { spaceId }, body: { subject: named('change request') } });
    sc.self ??= changeRequest.createdBy;
    const cr = { spaceId, changeRequestId: changeRequest.id };
    let open = true;
    // A change request cannot be deleted: one left open is archived.
    defer(async () => {
      if (open) await s.call('updateChangeRequest', { path: cr, body: { status: 'archived' } }, { step: 'clean-up: archive the change request' });
    });
    await s.call('listChangeRequests', { path: { spaceId }, query: { status: 'open' } });
    await s.call('getChangeRequest', { path: cr });
    await s.call('updateChangeRequest', { path: cr, body: { subject: named('change request (edited)') } });
    // Refused (the runner's address): the change request keeps the main space's content.
    const proposal = await s.call(
      'importChangeRequestContent',
      { path: cr, body: { url: fixtures.proposalUrl, source: 'website' } },
      { refusable: NEEDS_ADDRESS },
    );
    if (!proposal.ok && !s.reasons.has('importChangeRequestContent')) throw new StepFailed('importChangeRequestContent did not succeed');
    await s.call('getChangeRequestContent', { path: cr, query: {} });
    const pages = await s.must('listChangeRequestPages', { path: cr, query: {} });
    const page = pickPage(pages.pages, 'Proposal');
    await s.call('getChangeRequestPage', { path: { ...cr, pageId: page.id }, query: { format: 'document' } });
    await s.call('listChangeRequestPageLinks', { path: { ...cr, pageId: page.id }, query: {} });
    await s.call('getChangeRequestPdf', { path: cr, query: {} });

    const comment = await s.must(
      'createChangeRequestComment',
      { path: cr, body: { page: page.id, body: { markdown: 'Does this read well?' } } },
      { undo: (created) => s.cleanup('deleteChangeRequestComment', { path: { ...cr, commentId: created.id } }) },
    );
    sc.self ??= comment.postedBy;
    const onComment = { ...cr, commentId: comment.id };
    let commentAlive = true;
    defer(async () => {
      if (commentAlive) await s.cleanup('deleteChangeRequestComment', { path: onComment });
    });
    await s.call('listChangeRequestComments', { path: cr, query: { status: 'all' } });
    await s.call('getChangeRequestComment', { path: onComment, query: {} });
    await s.call('updateChangeRequestComment', { path: onComment, body: { addedReactions: ['👍'] } });
    const reply = await s.must(
      'createChangeRequestCommentReply',
      { path: onComment, body: { body: { markdown: 'It does.' } } },
      { undo: (created) => s.cleanup('deleteChangeRequestCommentReply', { path: { ...onComment, commentReplyId: created.id } }) },
    );
    const onReply = { ...onComment, commentReplyId: reply.id };
    await s.call('listChangeRequestCommentReplies', { path: onComment, query: {} });
    await s.call('getChangeRequestCommentReply', { path: onReply, query: {} });
    await s.call('updateChangeRequestCommentReply', { path: onReply, body: { resolved: true } });
    await s.call('listChangeRequestCommenters', { path: cr, query: {} });
    await s.call('deleteChangeRequestCommentReply', { path: onReply });
    await s.call('deleteChangeRequestComment', { path: onComment });
    commentAlive = false;

    await s.call('updateChangeRequestFromMain', { path: cr });
    const merged = await s.call('mergeChangeRequest', { path: cr });
    if (merged.ok) open = false;

    // Files last: an import that brought no image stops only these.
    const files = await s.must('listChangeRequestFiles', { path: cr, query: {} });
    const file = files.items[0];
    if (!file && (!proposal.ok || s.contentSource !== 'website')) {
      return s.unexercisable(['getChangeRequestFile', 'listChangeRequestFileBacklinks'], NEEDS_FILE);
    }
    if (!file) throw new StepFailed('the change request has no file');
    await s.call('getChangeRequestFile', { path: { ...cr, fileId: file.id }, query: {} });
    await s.call('listChangeRequestFileBacklinks', { path: { ...cr, fileId: file.id }, query: {} });
  });
}

/** Comments on the main space. */
export function spaceComments(sc: Scenario): Promise<void> {
  const { s, main, mainPage } = sc;
  return s.group('space comments', async (defer) => {
    if (!main || !mainPage) throw new StepFailed('no page to comment on');
    const spaceId = main.id;
    const comment = await s.must(
      'createSpaceComment',
      { path: { spaceId }, body: { page: mainPage.id, body: { markdown: 'Is the kettle electric?' } } },
      { undo: (created) => s.cleanup('deleteSpaceComment', { path: { spaceId, commentId: created.id } }) },
    );
    sc.self ??= comment.postedBy;
    const onComment = { spaceId, commentId: comment.id };
    let alive = true;
    defer(async () => {
      if (alive) await s.cleanup('deleteSpaceComment', { path: onComment });
    });
    await s.call('listSpaceComments', { path: { spaceId }, query: {} });
    await s.call('getSpaceComment', { path: onComment, query: { format: 'document' } });
    await s.call('updateSpaceComment', { path: onComment, body: { resolved: true, addedReactions: ['👀'] } });
    const reply = await s.must(
      'createSpaceCommentReply',
      { path: onComment, body: { body: { markdown: 'Either will do.' } } },
      { undo: (created) => s.cleanup('deleteSpaceCommentReply', { path: { ...onComment, commentReplyId: created.id } }) },
    );
    const onReply = { ...onComment, commentReplyId: reply.id };
    await s.call('listSpaceCommentReplies', { path: onComment, query: {} });
    await s.call('getSpaceCommentReply', { path: onReply, query: {} });
    await s.call('updateSpaceCommentReply', { path: onReply, body: { body: { markdown: 'Either will do, really.' } } });
    await s.call('listSpaceCommenters', { path: { spaceId }, query: {} });
    await s.call('deleteSpaceCommentReply', { path: onReply });
    await s.call('deleteSpaceComment', { path: onComment });
    alive = false;
  });
}

/** The organization's search, once the content is there. */
export function search(sc: Scenario): Promise<void> {
  const { s, inOrg } = sc;
  return s.group('search', async () => {
    await s.call('searchOrganizationContent', { path: inOrg, query: { query: SEARCH_WORD } });
  });
}
