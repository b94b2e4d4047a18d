// The `permissions` booleans say what the server does: for every role (guests included), every boolean of the
// organization, of a space (live and locked) and of a collection (without and with a default level) is compared
// with the outcome of each operation it claims to predict: true must be a success, false a 403 or a 404.
import { beforeAll, describe, expect, test } from 'vitest';
import type { DocsClient } from '../../client/index.ts';
import { ACME, extendFixture, GLOBEX, ROLE_USERS, type RoleUser } from '../support/fixture.ts';
import { ok } from '../support/expect.ts';
import { useTestServer } from '../support/server.ts';
import { timeout } from '../support/timeouts.ts';

type Role = (typeof ROLE_USERS)[number];
type Answer = { response: Response; data?: unknown; error?: unknown };
/** An operation, as `role`: its answer, or directly whether it was allowed. */
type Probe = { operation: string; run: (client: DocsClient, role: Role) => Promise<Answer | boolean> };
type Permissions = Record<string, boolean>;

interface Subject {
  name: string;
  /** The booleans as the caller sees them; undefined when the caller cannot see the resource at all. */
  shown(client: DocsClient): Promise<Permissions | undefined>;
  /** For each boolean, the operations whose outcome it predicts ([] when no operation of the API depends on it). */
  probes: Record<string, Probe[]>;
}

const SPEC = 'openapi: 3.0.3\ninfo:\n  title: Pets\n  version: "1"\npaths:\n  /pets:\n    get:\n      responses:\n        "200":\n          description: Pets\n';

const fixture = extendFixture({
  users: ROLE_USERS.map((role) => ({ id: `spare-${role}`, displayName: `Spare ${role}`, email: `spare-${role}@acme.test`, tokens: [] })),
  acme: {
    members: ROLE_USERS.map((role) => ({ user: `spare-${role}`, role: 'read' as const })),
    collections: [
      { id: 'perm-collection', title: 'Closed collection' },
      { id: 'perm-open', title: 'Open collection' },
      // Collections every member administers (default level admin), to move into the collections walked.
      ...ROLE_USERS.map((role) => ({ id: `perm-movable-${role}`, title: `Movable ${role}` })),
    ],
    spaces: [
      { id: 'perm-space', title: 'Permissions', pages: [{ id: 'perm-page', title: 'Page', markdown: 'Hello permissions.\n' }] },
      { id: 'perm-locked', title: 'Locked', pages: [{ id: 'locked-page', title: 'Page', markdown: 'Locked.\n' }] },
      ...ROLE_USERS.flatMap((role) => [
        { id: `perm-delete-${role}`, title: `Delete ${role}` },
        { id: `perm-restore-${role}`, title: `Restore ${role}` },
        { id: `perm-movable-${role}`, title: `Movable ${role}` }, // every member administers it (default level admin)
      ]),
    ],
    teams: [{ id: 'perm-team', title: 'Admins only', members: [{ user: 'admin', role: 'owner' as const }] }],
  },
});

const ctx = useTestServer({ fixture, env: { OUTBOUND_TIMEOUT_MS: '500' } });
const as = (user: RoleUser) => ctx.server.as(user);

const org = { params: { path: { organizationId: ACME } } };
const orgAnd = <T extends object>(path: T) => ({ params: { path: { organizationId: ACME, ...path } } });
const spacePath = (spaceId: string) => ({ params: { path: { spaceId } } });
const integration = (integrationName: string) => ({ params: { path: { integrationName } } });

// Records made by the admin (or by globex's admin) before the walk.
const made = {
  saml: {} as Record<Role, string>,
  changeRequests: {} as Record<string, string>,
  site: '',
  translation: '',
};

beforeAll(async () => {
  const admin = as('admin');
  for (const role of ROLE_USERS) {
    made.saml[role] = ok(await admin.POST('/v1/orgs/{organizationId}/saml', { ...org, body: { label: `Provider ${role}` } }), 201).id;
    for (const spaceId of ['perm-space', 'perm-locked']) {
      const cr = ok(await admin.POST('/v1/spaces/{spaceId}/change-requests', { ...spacePath(spaceId), body: { subject: role } }), 201);
      made.changeRequests[`${spaceId}/${role}`] = cr.id;
    }
    expect((await admin.DELETE('/v1/spaces/{spaceId}', spacePath(`perm-restore-${role}`))).response.status).toBe(204);
    ok(await admin.PATCH('/v1/spaces/{spaceId}', { ...spacePath(`perm-movable-${role}`), body: { defaultLevel: 'admin' } }));
    ok(await admin.PATCH('/v1/collections/{collectionId}', { params: { path: { collectionId: `perm-movable-${role}` } }, body: { defaultLevel: 'admin' } }));
    // Integrations of globex, public: one to install per role.
    ok(await as('outsider').POST('/v1/integrations/{integrationName}', { ...integration(`perm-install-${role}`), body: { organization: GLOBEX } }));
  }
  ok(await admin.PATCH('/v1/spaces/{spaceId}', { ...spacePath('perm-locked'), body: { editMode: 'locked' } }));
  ok(await admin.PATCH('/v1/collections/{collectionId}', { params: { path: { collectionId: 'perm-open' } }, body: { defaultLevel: 'create' } }));
  made.site = ok(await admin.POST('/v1/orgs/{organizationId}/sites', { ...org, body: { title: 'Permissions site' } }), 201).id;
  ok(await admin.POST('/v1/orgs/{organizationId}/openapi', { ...org, body: { slug: 'perm-spec', source: { text: SPEC } } }), 201);
  made.translation = ok(await admin.POST('/v1/orgs/{organizationId}/translations', { ...org, body: { language: 'fr' } }), 201).id;
  ok(await admin.POST('/v1/integrations/{integrationName}', { ...integration('perm-private'), body: { organization: ACME, visibility: 'private' } }));
  ok(await as('outsider').POST('/v1/integrations/{integrationName}', { ...integration('perm-globex'), body: { organization: GLOBEX } }));
  ok(await as('outsider').POST('/v1/integrations/{integrationName}/installations', { ...integration('perm-globex'), body: { organization: GLOBEX } }), 201);
  ok(await admin.POST('/v1/integrations/{integrationName}/installations', { ...integration('perm-globex'), body: { organization: ACME } }), 201);
  await ctx.server.running.ctx.jobs.idle();
}, 60_000);

const probe = (operation: string, run: Probe['run']): Probe => ({ operation, run });

const organization: Subject = {
  name: 'organization acme',
  async shown(client) {
    const answer = await client.GET('/v1/orgs/{organizationId}', org);
    return answer.data?.permissions;
  },
  probes: {
    view: [
      probe('getOrganization', (c) => c.GET('/v1/orgs/{organizationId}', org)),
      probe('pingOrganization', (c) => c.POST('/v1/orgs/{organizationId}/ping', org)),
      probe('listSsoLoginInfo', (c) => c.GET('/v1/orgs/{organizationId}/sso', org)),
    ],
    admin: [
      probe('updateOrganization', (c) => c.PATCH('/v1/orgs/{organizationId}', { ...org, body: { title: 'Acme' } })),
      probe('deleteOrganizationInvite', (c) => c.DELETE('/v1/orgs/{organizationId}/link-invites/{inviteId}', orgAnd({ inviteId: 'none' }))),
      probe('updateMember', (c) => c.PATCH('/v1/orgs/{organizationId}/members/{userId}', { ...orgAnd({ userId: 'reader' }), body: { role: 'read' } })),
      probe('removeMember', (c, role) => c.DELETE('/v1/orgs/{organizationId}/members/{userId}', orgAnd({ userId: `spare-${role}` }))),
      probe('makeMemberSso', (c) => c.POST('/v1/orgs/{organizationId}/members/{userId}/sso', orgAnd({ userId: 'reader' }))),
      probe('listSamlProviders', (c) => c.GET('/v1/orgs/{organizationId}/saml', org)),
      probe('createSamlProvider', (c) => c.POST('/v1/orgs/{organizationId}/saml', { ...org, body: { label: 'Another' } })),
      probe('getSamlProvider', (c, role) => c.GET('/v1/orgs/{organizationId}/saml/{samlProviderId}', orgAnd({ samlProviderId: made.saml[role] }))),
      probe('updateSamlProvider', (c, role) =>
        c.PATCH('/v1/orgs/{organizationId}/saml/{samlProviderId}', { ...orgAnd({ samlProviderId: made.saml[role] }), body: { label: 'Renamed' } }),
      ),
      probe('deleteSamlProvider', (c, role) => c.DELETE('/v1/orgs/{organizationId}/saml/{samlProviderId}', orgAnd({ samlProviderId: made.saml[role] }))),
    ],
    ownTeam: [probe('createTeam', (c, role) => c.PUT('/v1/orgs/{organizationId}/teams', { ...org, body: { title: `Team of ${role}` } }))],
    createContent: [
      probe('createSpace', (c) => c.POST('/v1/orgs/{organizationId}/spaces', { ...org, body: { title: 'Created' } })),
      probe('createCollection', (c) => c.POST('/v1/orgs/{organizationId}/collections', { ...org, body: { title: 'Created' } })),
      probe('duplicateSpace', (c) => c.POST('/v1/spaces/{spaceId}/duplicate', spacePath('perm-space'))),
      probe('createSite', (c) => c.POST('/v1/orgs/{organizationId}/sites', { ...org, body: { title: 'Created' } })),
      probe('updateSite', (c) => c.PATCH('/v1/orgs/{organizationId}/sites/{siteId}', { ...orgAnd({ siteId: made.site }), body: { title: 'Permissions site' } })),
      probe('deleteSite', (c) => c.DELETE('/v1/orgs/{organizationId}/sites/{siteId}', orgAnd({ siteId: 'no-such-site' }))),
      probe('createTranslation', (c) => c.POST('/v1/orgs/{organizationId}/translations', { ...org, body: { language: 'de' } })),
      probe('updateTranslation', (c) =>
        c.PUT('/v1/orgs/{organizationId}/translations/{translationId}', { ...orgAnd({ translationId: made.translation }), body: { instructions: { object: 'document', data: {}, nodes: [] } } }),
      ),
      probe('publishIntegration', (c, role) =>
        c.POST('/v1/integrations/{integrationName}', { ...integration(`perm-publish-${role}`), body: { organization: ACME } }),
      ),
    ],
    createOpenAPISpec: [
      probe('createOpenAPISpec', (c, role) => c.POST('/v1/orgs/{organizationId}/openapi', { ...org, body: { slug: `spec-${role}`, source: { text: SPEC } } })),
      probe('updateOpenAPISpec', (c) => c.PATCH('/v1/orgs/{organizationId}/openapi/{specSlug}', { ...orgAnd({ specSlug: 'perm-spec' }), body: { visibility: 'private' } })),
    ],
    ingestConversations: [], // no operation of the API
    viewBilling: [], // no operation of the API
    listMembers: [
      probe('listMembers', (c) => c.GET('/v1/orgs/{organizationId}/members', org)),
      probe('getMember (another member)', (c) => c.GET('/v1/orgs/{organizationId}/members/{userId}', orgAnd({ userId: 'admin' }))),
      probe('listMemberSpaces (another member)', (c) => c.GET('/v1/orgs/{organizationId}/members/{userId}/spaces', orgAnd({ userId: 'admin' }))),
      probe('searchOrganizationContent', (c) => c.GET('/v1/orgs/{organizationId}/search', { ...org, params: { ...org.params, query: { query: 'hello' } } })),
    ],
    listTeams: [
      probe('listTeams', (c) => c.GET('/v1/orgs/{organizationId}/teams', org)),
      probe('getTeam (not one of theirs)', (c) => c.GET('/v1/orgs/{organizationId}/teams/{teamId}', orgAnd({ teamId: 'perm-team' }))),
      probe('listMemberTeams (another member)', (c) => c.GET('/v1/orgs/{organizationId}/members/{userId}/teams', orgAnd({ userId: 'admin' }))),
    ],
    listIntegrations: [
      probe('listIntegrations (shows the private one)', async (c) => {
        const items = ok(await c.GET('/v1/integrations', { params: { query: { limit: 1000 } } })).items;
        return items.some((item) => item.name === 'perm-private');
      }),
      probe('getIntegration (private)', (c) => c.GET('/v1/integrations/{integrationName}', integration('perm-private'))),
    ],
    listInstallations: [
      probe('listIntegrationInstallations', (c) => c.GET('/v1/integrations/{integrationName}/installations', integration('perm-globex'))),
      probe('listIntegrationEvents', (c) => c.GET('/v1/integrations/{integrationName}/events', integration('perm-globex'))),
      probe('listIntegrationSpaces', (c) => c.GET('/v1/integrations/{integrationName}/spaces', integration('perm-globex'))),
      probe('listIntegrationSites', (c) => c.GET('/v1/integrations/{integrationName}/sites', integration('perm-globex'))),
    ],
    installIntegration: [
      probe('installIntegration', (c, role) =>
        c.POST('/v1/integrations/{integrationName}/installations', { ...integration(`perm-install-${role}`), body: { organization: ACME } }),
      ),
    ],
  },
};

function space(spaceId: string, pageId: string, title: string): Subject {
  const path = spacePath(spaceId);
  const changeRequest = (role: Role) => ({ params: { path: { spaceId, changeRequestId: made.changeRequests[`${spaceId}/${role}`]! } } });
  return {
    name: `space ${spaceId}`,
    async shown(client) {
      return (await client.GET('/v1/spaces/{spaceId}', path)).data?.permissions;
    },
    probes: {
      view: [
        probe('getSpace', (c) => c.GET('/v1/spaces/{spaceId}', path)),
        probe('getSpaceContent', (c) => c.GET('/v1/spaces/{spaceId}/content', path)),
        probe('listSpacePages', (c) => c.GET('/v1/spaces/{spaceId}/content/pages', path)),
        probe('searchSpaceContent', (c) => c.GET('/v1/spaces/{spaceId}/search', { params: { path: { spaceId }, query: { query: 'hello' } } })),
        probe('listChangeRequests', (c) => c.GET('/v1/spaces/{spaceId}/change-requests', path)),
        probe('getChangeRequest', (c, role) => c.GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}', changeRequest(role))),
        probe('listSpaceComments', (c) => c.GET('/v1/spaces/{spaceId}/comments', path)),
        probe('listSpaceCommenters', (c) => c.GET('/v1/spaces/{spaceId}/commenters', path)),
        probe('getGitInfo', (c) => c.GET('/v1/spaces/{spaceId}/git/info', path)),
      ],
      access: [probe('getSpacePage', (c) => c.GET('/v1/spaces/{spaceId}/content/page/{pageId}', { params: { path: { spaceId, pageId } } }))],
      admin: [probe('updateSpace', (c) => c.PATCH('/v1/spaces/{spaceId}', { ...path, body: { title } }))],
      viewInviteLinks: [], // no operation of the API
      edit: [
        probe('applySpaceTemplate', (c) => c.POST('/v1/spaces/{spaceId}/content/template', { ...path, body: { id: 'changelog' } })),
        probe('createChangeRequest', (c) => c.POST('/v1/spaces/{spaceId}/change-requests', { ...path, body: { subject: 'Probe' } })),
        probe('updateChangeRequest', (c, role) =>
          c.PATCH('/v1/spaces/{spaceId}/change-requests/{changeRequestId}', { ...changeRequest(role), body: { subject: role } }),
        ),
      ],
      triggerGitSync: [
        probe('exportGitRepository', (c) =>
          c.POST('/v1/spaces/{spaceId}/git/export', { ...path, body: { url: 'https://127.0.0.1:9/repository.git', ref: 'refs/heads/main', commitMessage: 'Probe' } }),
        ),
        probe('importGitRepository', (c) =>
          c.POST('/v1/spaces/{spaceId}/git/import', { ...path, body: { url: 'https://127.0.0.1:9/repository.git', ref: 'refs/heads/main', standalone: true } }),
        ),
      ],
      comment: [
        probe('createSpaceComment', (c) => c.POST('/v1/spaces/{spaceId}/comments', { ...path, body: { page: pageId, body: { markdown: 'Probe' } } })),
      ],
      merge: [probe('mergeChangeRequest', (c, role) => c.POST('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/merge', changeRequest(role)))],
      review: [], // no operation needs it apart from merging, which also needs a live space (`merge`)
      installIntegration: [probe('deleteGitLegacyInstallation', (c) => c.DELETE('/v1/spaces/{spaceId}/git/legacy-installation', path))],
    },
  };
}

function collection(collectionId: string, title: string): Subject {
  const path = { params: { path: { collectionId } } };
  return {
    name: `collection ${collectionId}`,
    async shown(client) {
      return (await client.GET('/v1/collections/{collectionId}', path)).data?.permissions;
    },
    probes: {
      view: [
        probe('getCollection', (c) => c.GET('/v1/collections/{collectionId}', path)),
        probe('listCollectionSpaces', (c) => c.GET('/v1/collections/{collectionId}/spaces', path)),
      ],
      admin: [probe('updateCollection', (c) => c.PATCH('/v1/collections/{collectionId}', { ...path, body: { title } }))],
      viewInviteLinks: [], // no operation of the API
      create: [
        probe('createSpace in it', (c) => c.POST('/v1/orgs/{organizationId}/spaces', { ...org, body: { title: 'Inside', parent: collectionId } })),
        probe('createCollection in it', (c) => c.POST('/v1/orgs/{organizationId}/collections', { ...org, body: { title: 'Inside', parent: collectionId } })),
        // Moves of a space and a collection the caller administers, into this collection.
        probe('moveSpace into it', (c, role) => c.POST('/v1/spaces/{spaceId}/move', { ...spacePath(`perm-movable-${role}`), body: { parent: collectionId } })),
        probe('moveCollection into it', (c, role) =>
          c.POST('/v1/collections/{collectionId}/move', { params: { path: { collectionId: `perm-movable-${role}` } }, body: { parent: collectionId } }),
        ),
      ],
    },
  };
}

const SUBJECTS: Subject[] = [
  organization,
  space('perm-space', 'perm-page', 'Permissions'),
  space('perm-locked', 'locked-page', 'Locked'),
  collection('perm-collection', 'Closed collection'),
  collection('perm-open', 'Open collection'),
];

/** Whether an answer is a success (2xx), a refusal (403, 404), or something a permission cannot explain. */
async function outcome(result: Answer | boolean): Promise<boolean | string> {
  if (typeof result === 'boolean') return result;
  const status = result.response.status;
  if (status >= 200 && status < 300) return true;
  if (status === 403 || status === 404) return false;
  return `HTTP ${status}: ${JSON.stringify(result.error)}`;
}

describe('permissions booleans against what the server does', () => {
  test.each(ROLE_USERS)('%s', { timeout: timeout(60_000) }, async (role) => {
    const client = as(role);
    const disagreements: string[] = [];
    let compared = 0;
    for (const subject of SUBJECTS) {
      const shown = (await subject.shown(client)) ?? {};
      for (const [permission, probes] of Object.entries(subject.probes)) {
        const claimed = shown[permission] ?? false;
        for (const { operation, run } of probes) {
          const result = await outcome(await run(client, role));
          compared += 1;
          if (result !== claimed) {
            disagreements.push(`${subject.name}: permissions.${permission} is ${claimed}, ${operation} ${result === true ? 'succeeded' : result === false ? 'was refused' : `answered ${result}`}`);
          }
        }
      }
    }
    // Deleting and restoring a space need `admin` on that space.
    for (const [operation, spaceId, run] of [
      ['deleteSpace', `perm-delete-${role}`, () => client.DELETE('/v1/spaces/{spaceId}', spacePath(`perm-delete-${role}`))],
      ['restoreSpace', `perm-restore-${role}`, () => client.POST('/v1/spaces/{spaceId}/restore', spacePath(`perm-restore-${role}`))],
    ] as const) {
      const claimed = (await client.GET('/v1/spaces/{spaceId}', spacePath(spaceId))).data?.permissions.admin ?? false;
      const result = await outcome(await run());
      compared += 1;
      // DELETE of a space the caller cannot see answers 204 and changes nothing: read the space back instead.
      const deleted = operation === 'deleteSpace' ? (await as('admin').GET('/v1/spaces/{spaceId}', spacePath(spaceId))).data?.deletedAt !== undefined : result;
      if (deleted !== claimed) disagreements.push(`space ${spaceId}: permissions.admin is ${claimed}, ${operation} ${deleted ? 'succeeded' : 'was refused'}`);
    }
    expect(disagreements).toEqual([]);
    expect(compared).toBeGreaterThan(60);
  });
});
