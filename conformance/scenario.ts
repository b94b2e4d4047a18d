// The scenario: every operation of the contract, in an order where each step has what it needs, with only a token
// that is admin of one organization. Each step names an operationId and gives that operation's typed parameters;
// the runner builds the request from the contract. Groups of steps stop at the first failure their later steps
// depend on, and always delete what they created (the runner's `group`, try/finally); the resources shared by several
// groups are deleted at the very end.
import { randomBytes } from 'node:crypto';
import LZString from 'lz-string';
import type { LocalFixtures } from './fixtures.ts';
import { SEARCH_WORD } from './fixtures.ts';
import { type Session, StepFailed } from './session.ts';
import type { SuccessBody } from './types.ts';

export interface ScenarioEnvironment {
  fixtures: LocalFixtures;
  /**
   * The Git repository the export writes to and the import reads from, as the addresses to try in turn: the
   * runner's own over smart HTTP, then its local path; or `--git-url` alone.
   */
  gitUrls: string[];
  /** The template applySpaceTemplate applies. */
  template: string;
  /** Where a Git import takes content from when the website import does not succeed (none: the template only). */
  contentGit?: { urls: string[]; ref: string };
  /** Filled in: the organizations the run used. */
  chosen: { organization?: string; targetOrganization?: string };
}

type Organization = SuccessBody<'getOrganization'>;
type Space = SuccessBody<'getSpace'>;
type Page = SuccessBody<'getSpacePage'>;
type User = SuccessBody<'createChangeRequest'>['createdBy'];

/** An OpenAPI document given as text to createOpenAPISpec, and its second version for putOpenAPISpec. */
const openApiText = (version: string) =>
  [
    'openapi: 3.1.0',
    'info:',
    '  title: Conformance pets',
    `  version: ${version}`,
    'paths:',
    '  /pets:',
    '    get:',
    '      operationId: listPets',
    '      responses:',
    "        '200':",
    '          description: The pets.',
    '          content:',
    '            application/json:',
    '              schema:',
    '                type: array',
    '                items:',
    "                  $ref: '#/components/schemas/Pet'",
    'components:',
    '  schemas:',
    '    Pet:',
    '      type: object',
    '      required: [name]',
    '      properties:',
    '        name:',
    '          type: string',
    '',
  ].join('\n');

/** Every page of a tree, depth first. */
function flatten<T extends { pages?: T[] }>(pages: T[] | undefined): T[] {
  return (pages ?? []).flatMap((page) => [page, ...flatten(page.pages)]);
}

/** A document page titled `title`, else the first document page. */
function pickPage<T extends { title: string; type: string; id: string; pages?: T[] }>(pages: T[] | undefined, title: string): T {
  const all = flatten(pages);
  const page = all.find((candidate) => candidate.title === title && candidate.type === 'document') ?? all.find((candidate) => candidate.type === 'document');
  if (!page) throw new StepFailed('the content has no document page');
  return page;
}

/** Why an operation that needs the implementation to reach the runner's own HTTP server may stay unexercised. */
const NEEDS_ADDRESS = "needs the implementation to reach the runner's address (--serve-host)";
const NEEDS_FILE =
  "needs a file in the content, which only the website import (the runner's address) or the Git import of the content brings";
const NEEDS_GIT =
  "needs a Git repository the implementation accepts: the runner's own over HTTP (--serve-host; the reference server: " +
  'ALLOW_PRIVATE_ADDRESSES with its address), its local path (only for an implementation on the same machine that ' +
  'accepts local repositories; the reference server: ALLOW_LOCAL_GIT=true), or --git-url';

/** One line saying what to change when the implementation refused the runner's address. */
export const addressHint = (url: string) =>
  `the implementation refused to fetch from the runner at ${url}: give an address it can reach with --serve-host ` +
  `(and --serve-bind), or let it reach private addresses (the reference server: ALLOW_PRIVATE_NETWORKS=true, or ` +
  `ALLOW_PRIVATE_ADDRESSES=${new URL(url).hostname.replace(/^\[|\]$/g, '')})`;

export async function runScenario(s: Session, env: ScenarioEnvironment): Promise<void> {
  const runId = randomBytes(4).toString('hex');
  const named = (what: string) => `Conformance ${what} ${runId}`;
  const { fixtures } = env;

  // ---- The organization: the only thing the runner is given is a token.
  let org: Organization | undefined;
  let target: string | undefined;
  await s.group('setup', async () => {
    const list = await s.must('listOrganizations', { query: { limit: 1000 } });
    const wanted = s.options.organization;
    org = wanted
      ? list.items.find((candidate) => candidate.id === wanted)
      : list.items.find((candidate) => candidate.permissions.admin);
    if (!org) {
      throw new StepFailed(
        wanted ? `organization ${wanted} is not one of the token's organizations` : 'the token is admin of no organization',
      );
    }
    const main = org.id;
    target = s.options.targetOrganization ?? list.items.find((candidate) => candidate.id !== main && candidate.permissions.createContent)?.id;
    env.chosen.organization = org.id;
    if (target) env.chosen.targetOrganization = target;
    s.log(`organization ${org.id}${target ? `, transfers to ${target}` : ', no second organization: transfers expect 409'}`);
  });
  if (!org) return;
  const organizationId = org.id;
  const inOrg = { organizationId };

  /** The caller's user, learnt from what they create (a change request's createdBy, a comment's postedBy). */
  let self: User | undefined;

  // ---- Resources shared by several groups, deleted at the very end.
  await s.group('shared resources', async (deferToEnd) => {
    let collectionA: SuccessBody<'createCollection'> | undefined;
    let collectionB: SuccessBody<'createCollection'> | undefined;
    let main: Space | undefined;
    let aux: Space | undefined;
    let site: SuccessBody<'createSite'> | undefined;

    await s.group('collections', async () => {
      collectionA = await s.must(
        'createCollection',
        { path: inOrg, body: { title: named('collection A') } },
        { undo: (created) => s.cleanup('deleteCollection', { path: { collectionId: created.id } }) },
      );
      const a = collectionA.id;
      deferToEnd(() => s.cleanup('deleteCollection', { path: { collectionId: a } }));
      collectionB = await s.must('createCollection', { path: inOrg, body: { title: named('collection B') } }, { invalid: false });
      const b = collectionB.id;
      deferToEnd(() => s.cleanup('deleteCollection', { path: { collectionId: b } }));
    });

    await s.group('spaces', async () => {
      main = await s.must(
        'createSpace',
        { path: inOrg, body: { title: named('space'), language: 'en' } },
        { undo: (created) => s.cleanup('deleteSpace', { path: { spaceId: created.id } }) },
      );
      const mainId = main.id;
      deferToEnd(() => s.cleanup('deleteSpace', { path: { spaceId: mainId } }));
      aux = await s.must('createSpace', { path: inOrg, body: { title: named('second space'), ...(collectionA ? { parent: collectionA.id } : {}) } });
      const auxId = aux.id;
      deferToEnd(() => s.cleanup('deleteSpace', { path: { spaceId: auxId } }));
    });

    await s.group('organization', async () => {
      await s.call('getOrganization', { path: inOrg });
      // A PATCH that sets the title it already has: the organization is left as it was.
      const restore = { title: org!.title, ...(org!.hostname ? { hostname: org!.hostname } : {}) };
      await s.call('updateOrganization', { path: inOrg, body: { title: org!.title } }, {
        // An invalid input wrongly accepted may have changed the title or hostname: set them back.
        undo: () => s.call('updateOrganization', { path: inOrg, body: restore }, { invalid: false, step: 'undo: restore the organization' }),
      });
      await s.call('pingOrganization', { path: inOrg });
      await s.call('listMembers', { path: inOrg, query: { limit: 50 } });
      await s.call('deleteOrganizationInvite', { path: { organizationId, inviteId: `docs-conformance-${runId}` } });
      // The runner cannot create users: a user who is not a member (204 also then).
      await s.call('removeMember', { path: { organizationId, userId: `docs-conformance-nobody-${runId}` } });
    });

    // ---- Content of the main space: imported from the runner's website, plus a template.
    let mainPage: Page | undefined;
    await s.group('content', async () => {
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
      mainPage = await s.must('getSpacePage', { path: { spaceId, pageId: page.id }, query: { format: 'markdown' } });
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

    // ---- A change request of the main space: its content, its comments, update from main and merge.
    await s.group('change requests', async (defer) => {
      if (!main) throw new StepFailed('no space to work in');
      const spaceId = main.id;
      const changeRequest = await s.must('createChangeRequest', { path: { spaceId }, body: { subject: named('change request') } });
      self ??= changeRequest.createdBy;
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
      self ??= comment.postedBy;
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

    // ---- Comments on the main space.
    await s.group('space comments', async (defer) => {
      if (!main || !mainPage) throw new StepFailed('no page to comment on');
      const spaceId = main.id;
      const comment = await s.must(
        'createSpaceComment',
        { path: { spaceId }, body: { page: mainPage.id, body: { markdown: 'Is the kettle electric?' } } },
        { undo: (created) => s.cleanup('deleteSpaceComment', { path: { spaceId, commentId: created.id } }) },
      );
      self ??= comment.postedBy;
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

    await s.group('search', async () => {
      await s.call('searchOrganizationContent', { path: inOrg, query: { query: SEARCH_WORD } });
    });

    // ---- Teams.
    await s.group('teams', async (defer) => {
      const team = await s.must(
        'createTeam',
        { path: inOrg, body: { title: named('team') } },
        { undo: (created) => s.cleanup('deleteTeam', { path: { organizationId, teamId: created.id } }) },
      );
      const onTeam = { organizationId, teamId: team.id };
      let alive = true;
      defer(async () => {
        if (alive) await s.cleanup('deleteTeam', { path: onTeam });
      });
      await s.call('listTeams', { path: inOrg, query: { title: 'Conformance' } });
      await s.call('getTeam', { path: onTeam });
      await s.call('updateTeam', { path: onTeam, body: { title: named('team (renamed)') } });
      if (self) await s.call('listMemberTeams', { path: { organizationId, userId: self.id }, query: {} });
      await s.call('deleteTeam', { path: onTeam });
      alive = false;
    });

    // ---- The caller as a member: read, keep their role (admin), SSO.
    await s.group('members', async () => {
      if (!self) throw new StepFailed("the caller's user id is unknown (no change request or comment was created)");
      const me = { organizationId, userId: self.id };
      await s.call('getMember', { path: me });
      await s.call('updateMember', { path: me, body: { role: 'admin' } });
      await s.call('listMemberSpaces', { path: me, query: {} });
      if (!s.operations.get('listMemberTeams')?.exercised) await s.call('listMemberTeams', { path: me, query: {} });
      await s.call('makeMemberSso', { path: me });
      const domain = self.email?.split('@')[1] ?? org!.emailDomains[0] ?? 'docs-conformance.example';
      await s.call('listOrganizationsByEmailDomain', { path: { emailDomain: domain } });
    });

    // ---- SAML providers.
    await s.group('saml', async (defer) => {
      const provider = await s.must(
        'createSamlProvider',
        { path: inOrg, body: { label: 'Conformance', defaultRole: 'read' } },
        { undo: (created) => s.cleanup('deleteSamlProvider', { path: { organizationId, samlProviderId: created.id } }) },
      );
      const onProvider = { organizationId, samlProviderId: provider.id };
      let alive = true;
      defer(async () => {
        if (alive) await s.cleanup('deleteSamlProvider', { path: onProvider });
      });
      await s.call('getSamlProvider', { path: onProvider });
      await s.call('updateSamlProvider', { path: onProvider, body: { label: 'Conformance (edited)'.slice(0, 30) } });
      await s.call('listSamlProviders', { path: inOrg, query: {} });
      await s.call('listSsoLoginInfo', { path: inOrg });
      await s.call('deleteSamlProvider', { path: onProvider });
      alive = false;
    });

    // ---- A site and its structure: sections, section groups, site spaces, moves. The site stays until the end (the
    // integration's site list shows it).
    await s.group('sites', async (defer) => {
      if (!main || !aux) throw new StepFailed('no spaces to publish');
      site = await s.must(
        'createSite',
        { path: inOrg, body: { title: named('site'), spaces: [main.id] } },
        { undo: (created) => s.cleanup('deleteSite', { path: { organizationId, siteId: created.id } }) },
      );
      const siteId = site.id;
      deferToEnd(() => s.cleanup('deleteSite', { path: { organizationId, siteId } }));
      const onSite = { organizationId, siteId };
      await s.call('listSites', { path: inOrg, query: {} });
      await s.call('getSite', { path: onSite });
      await s.call('updateSite', { path: onSite, body: { title: named('site (renamed)') } });
      await s.call('getSiteAdaptiveSchema', { path: onSite });
      await s.call('updateSiteAdaptiveSchema', {
        path: onSite,
        body: {
          jsonSchema: {
            type: 'object',
            properties: { isBeta: { type: 'boolean', description: 'The visitor is in the beta programme' } },
            additionalProperties: false,
          },
        },
      });
      await s.call('listSiteAdaptiveConditionTemplates', { path: onSite });
      await s.call('getPublishedSite', { path: onSite, query: {} });

      // Sections: the first one takes in the root site space (the main space's).
      const first = await s.must('createSiteSection', { path: onSite, body: { spaceId: main.id, title: 'Guides' } });
      const second = await s.must('createSiteSection', { path: onSite, body: { spaceId: main.id, title: 'Reference' } }, { invalid: false });
      defer(() => s.cleanup('deleteSiteSection', { path: { ...onSite, siteSectionId: second.id } }));
      const third = await s.must('createSiteSection', { path: onSite, body: { spaceId: aux.id, title: 'Extras' } }, { invalid: false });
      await s.call('listSiteSections', { path: onSite, query: {} });
      await s.call('updateSiteSection', { path: { ...onSite, siteSectionId: second.id }, body: { description: 'The reference pages' } });
      // Top level: first, second, third -> third, first, second.
      await s.call('moveSiteSection', {
        path: { ...onSite, siteSectionId: third.id },
        body: { position: { before: { type: 'site-section', siteSection: first.id } } },
      });

      // A section group: third, group[first], second -> third, group[first, second] -> group, third -> third, group.
      const group = await s.must('createSiteSectionGroup', { path: onSite, body: { title: 'Handbook', sections: [first.id] } });
      const onGroup = { ...onSite, siteSectionGroupId: group.id };
      let groupAlive = true;
      defer(async () => {
        if (groupAlive) await s.cleanup('deleteSiteSectionGroup', { path: onGroup });
      });
      await s.call('listSiteSectionGroups', { path: onSite, query: {} });
      await s.call('updateSiteSectionGroup', { path: onGroup, body: { title: 'Handbook (renamed)' } });
      await s.call('addSiteSectionToGroup', { path: onGroup, body: { sectionId: second.id } });
      await s.call('moveSiteSectionGroup', { path: onGroup, body: { position: { before: { type: 'site-section', id: third.id } } } });
      await s.call('sortSiteStructure', {
        path: onSite,
        body: { item: { type: 'site-section', id: third.id }, position: { before: { type: 'site-section-group', id: group.id } } },
      });
      await s.call('removeSiteSectionFromGroup', { path: { ...onGroup, siteSectionId: second.id } });
      await s.call('deleteSiteSectionGroup', { path: onGroup });
      groupAlive = false;

      // Site spaces of the first section: [main] -> [main, aux] -> [aux, main].
      const siteSpace = await s.must('createSiteSpace', { path: onSite, body: { spaceId: aux.id, sectionId: first.id } });
      const onSiteSpace = { ...onSite, siteSpaceId: siteSpace.id };
      let siteSpaceAlive = true;
      defer(async () => {
        if (siteSpaceAlive) await s.cleanup('deleteSiteSpace', { path: onSiteSpace });
      });
      const siteSpaces = await s.must('listSiteSpaces', { path: onSite, query: {} });
      await s.call('updateSiteSpace', { path: onSiteSpace, body: { path: `extras-${runId}` } });
      const sibling =
        first.siteSpaces.find((candidate) => candidate.id !== siteSpace.id) ??
        siteSpaces.items.find((candidate) => candidate.section === first.id && candidate.id !== siteSpace.id);
      if (!sibling) throw new StepFailed('the first section has no other site space to move before');
      await s.call('moveSiteSpace', { path: onSiteSpace, body: { position: { before: { type: 'site-space', siteSpace: sibling.id } } } });
      await s.call('deleteSiteSpace', { path: onSiteSpace });
      siteSpaceAlive = false;
      await s.call('deleteSiteSection', { path: { ...onSite, siteSectionId: second.id } });
    });

    // ---- An integration of the organization: publish, development mode (events to the runner's tunnel), install,
    // events, render, unpublish.
    await s.group('integrations', async (defer) => {
      const integrationName = `docs-conformance-${runId}`;
      const onIntegration = { integrationName };
      const blockId = 'status';
      await s.must('publishIntegration', {
        path: onIntegration,
        body: {
          title: 'Docs conformance',
          description: 'Published by the conformance runner; unpublished when it ends.',
          organization: organizationId,
          visibility: 'private',
          target: 'all',
          blocks: [{ id: blockId, title: 'Status', markdown: { codeblock: 'status', body: 'Status: {{props.state}}' } }],
        },
      });
      defer(() => s.cleanup('unpublishIntegration', { path: onIntegration }));
      await s.call('getIntegration', { path: onIntegration });
      await s.call('listIntegrations', { path: undefined, query: { search: integrationName } });
      const tunnel = await s.call(
        'enableIntegrationDevMode',
        { path: onIntegration, body: { tunnelUrl: fixtures.tunnelUrl, all: false } },
        { refusable: NEEDS_ADDRESS },
      );
      if (!tunnel.ok && tunnel.status >= 400 && tunnel.status < 500) s.addressHint ??= addressHint(fixtures.url);
      let devMode = tunnel.ok;
      defer(async () => {
        if (devMode) await s.cleanup('disableIntegrationDevMode', { path: onIntegration });
      });
      const delivered = fixtures.deliveries.length;
      await s.must('installIntegration', { path: onIntegration, body: { organization: organizationId } });
      if (tunnel.ok) await s.waitFor(() => fixtures.deliveries.length > delivered, 'delivery of the installation event to the tunnel');
      const events = await s.poll('listIntegrationEvents', { path: onIntegration, query: {} }, (list) => list.items.length > 0, 'integration events');
      const event = events?.items[0];
      if (!event) throw new StepFailed('the installation recorded no event');
      await s.call('getIntegrationEvent', { path: { integrationName, eventId: event.id } });
      await s.call('listIntegrationInstallations', { path: onIntegration, query: {} });
      await s.call('listIntegrationSpaces', { path: onIntegration, query: { extended: true } });
      await s.call('listIntegrationSites', { path: onIntegration, query: { extended: true } });
      const request = LZString.compressToEncodedURIComponent(JSON.stringify({ blockId, props: { state: 'operational' } }));
      await s.call('renderIntegrationBlock', { path: onIntegration, query: { request } });
      await s.call('disableIntegrationDevMode', { path: onIntegration });
      devMode = false;
      await s.call('unpublishIntegration', { path: onIntegration });
    });

    // ---- An OpenAPI specification given as text: processing, versions, a new source, visibility.
    await s.group('openapi', async (defer) => {
      const specSlug = `conformance-${runId}`;
      const onSpec = { organizationId, specSlug };
      await s.must(
        'createOpenAPISpec',
        { path: inOrg, body: { slug: specSlug, source: { text: openApiText('1.0.0') } } },
        { undo: (created) => s.cleanup('deleteOpenAPISpec', { path: { organizationId, specSlug: created.slug } }) },
      );
      let alive = true;
      defer(async () => {
        if (alive) await s.cleanup('deleteOpenAPISpec', { path: onSpec });
      });
      const processed = await s.poll(
        'getOpenAPISpec',
        { path: onSpec },
        (spec) => spec.processingState === 'complete' && spec.lastVersion !== undefined,
        'processing of the OpenAPI specification',
      );
      await s.call('listOpenAPISpecs', { path: inOrg, query: {} });
      await s.call('updateOpenAPISpec', { path: onSpec, body: { visibility: 'public' } });
      await s.call('listOpenAPISpecVersions', { path: onSpec, query: {} });
      const latest = await s.must('getLatestOpenAPISpecVersion', { path: onSpec });
      await s.call('getLatestOpenAPISpecVersionContent', { path: onSpec });
      await s.call('getOpenAPISpecVersion', { path: { ...onSpec, versionId: latest.id } });
      await s.call('getOpenAPISpecVersionContent', { path: { ...onSpec, versionId: latest.id } });
      await s.call('putOpenAPISpec', { path: onSpec, body: { source: { text: openApiText('1.1.0') } } });
      await s.poll(
        'getOpenAPISpec',
        { path: onSpec },
        (spec) => spec.processingState === 'complete' && spec.lastVersion !== (processed?.lastVersion ?? latest.id),
        'processing of the new source of the OpenAPI specification',
      );
      await s.call('deleteOpenAPISpec', { path: onSpec });
      alive = false;
    });

    // ---- A translation of the main space: runs in the background; its result space is deleted at the end.
    await s.group('translations', async (defer) => {
      if (!main) throw new StepFailed('no space to translate');
      const translation = await s.must(
        'createTranslation',
        { path: inOrg, body: { language: 'fr', source: { space: main.id, language: 'en' } } },
        { undo: (created) => s.cleanup('deleteTranslation', { path: { organizationId, translationId: created.id } }) },
      );
      const onTranslation = { organizationId, translationId: translation.id };
      let alive = true;
      const results = new Set<string>();
      defer(async () => {
        if (alive) await s.cleanup('deleteTranslation', { path: onTranslation });
        for (const spaceId of results) await s.cleanup('deleteSpace', { path: { spaceId } });
      });
      const done = (runs: number) => (current: SuccessBody<'getTranslation'>) => {
        if (current.result?.space) results.add(current.result.space);
        return current.status === 'completed' && current.stats.runs > runs;
      };
      const first = await s.poll('getTranslation', { path: onTranslation }, done(0), 'first run of the translation');
      await s.call('listTranslations', { path: inOrg, query: {} });
      await s.call('updateTranslation', {
        path: onTranslation,
        body: { instructions: { object: 'document', data: {}, nodes: [] } },
      });
      await s.call('runTranslation', { path: onTranslation });
      await s.poll('getTranslation', { path: onTranslation }, done(first?.stats.runs ?? 1), 'second run of the translation');
      await s.call('deleteTranslation', { path: onTranslation });
      alive = false;
    });

    // ---- Git: export the main space to the repository, import it into the second space, legacy installation.
    await s.group('git', async () => {
      if (!main || !aux) throw new StepFailed('no spaces to synchronise');
      const ref = `refs/heads/docs-conformance-${runId}`;
      // The first address the implementation accepts: the runner's over HTTP, else its local path.
      let gitUrl: string | undefined;
      for (const url of env.gitUrls) {
        const started = await s.call(
          'exportGitRepository',
          { path: { spaceId: main.id }, body: { url, ref, commitMessage: 'Export by the conformance runner' } },
          { refusable: NEEDS_GIT },
        );
        if (started.ok) {
          gitUrl = url;
          break;
        }
      }
      if (gitUrl === undefined) {
        if (!s.reasons.has('exportGitRepository')) throw new StepFailed('exportGitRepository did not succeed');
        // Refused: what needs no repository is still exercised.
        s.unexercisable(['importGitRepository'], NEEDS_GIT);
        await s.call('getGitInfo', { path: { spaceId: main.id } });
        await s.call('deleteGitLegacyInstallation', { path: { spaceId: main.id } });
        return;
      }
      const exported = await s.poll('getGitInfo', { path: { spaceId: main.id } }, (info) => info.updatedAt !== undefined, 'Git export');
      if (!exported?.updatedAt) throw new StepFailed('the Git export did not complete');
      const before = await s.must('getSpace', { path: { spaceId: aux.id }, query: {} });
      await s.must('importGitRepository', { path: { spaceId: aux.id }, body: { url: gitUrl, ref } });
      await s.poll('getSpace', { path: { spaceId: aux.id }, query: {} }, (space) => space.revision !== before.revision, 'Git import');
      await s.call('deleteGitLegacyInstallation', { path: { spaceId: main.id } });
    });

    // ---- Spaces and collections: read, update, move, duplicate, delete and restore, transfer.
    await s.group('spaces and collections', async (defer) => {
      if (!main || !aux || !collectionA || !collectionB) throw new StepFailed('no spaces or collections to work with');
      await s.call('listSpaces', { path: inOrg, query: {} });
      await s.call('getSpace', { path: { spaceId: main.id }, query: {} });
      await s.call('updateSpace', { path: { spaceId: main.id }, body: { title: named('space (renamed)'), emoji: '📘' } });
      await s.call('listCollections', { path: inOrg, query: {} });
      await s.call('getCollection', { path: { collectionId: collectionA.id } });
      await s.call('updateCollection', { path: { collectionId: collectionA.id }, body: { description: 'Created by the conformance runner.' } });
      await s.call('listCollectionSpaces', { path: { collectionId: collectionA.id }, query: {} });
      await s.call('moveSpace', { path: { spaceId: aux.id }, body: { parent: collectionB.id } });
      await s.call('moveCollection', { path: { collectionId: collectionB.id }, body: { parent: collectionA.id } });

      const copy = await s.must('duplicateSpace', { path: { spaceId: main.id } });
      defer(() => s.cleanup('deleteSpace', { path: { spaceId: copy.id } }));
      await s.call('deleteSpace', { path: { spaceId: copy.id } });
      await s.call('restoreSpace', { path: { spaceId: copy.id } });

      // Transfers: to a second organization when there is one; otherwise to the same one, which must be a 409.
      const moving = await s.must('createSpace', { path: inOrg, body: { title: named('transferred space') } }, { invalid: false });
      const movingCollection = await s.must('createCollection', { path: inOrg, body: { title: named('transferred collection') } }, { invalid: false });
      // In another organization the caller may lack the admin role on what they moved there: 403 is an answer too.
      const gone = target ? [204, 403] : [204];
      defer(() => s.cleanup('deleteSpace', { path: { spaceId: moving.id } }, gone));
      defer(() => s.cleanup('deleteCollection', { path: { collectionId: movingCollection.id } }, gone));
      const to = target ?? organizationId;
      const expectation = target ? {} : { expect: 409, exercises: true };
      await s.call('transferSpace', { path: { spaceId: moving.id }, body: { organization: to } }, expectation);
      await s.call('transferCollection', { path: { collectionId: movingCollection.id }, body: { organization: to } }, expectation);
    });
  });
}
