// npm run fixture:release -- <version> [--ref REF]: writes test/fixtures/releases/<version>/, the database of a
// released server that test/server/upgrade.test.ts opens with this tree's server: that release's server, run from its
// sources in a temporary git worktree, is seeded with values it stored unchecked, given a rich set of records through
// its API, and read back through every GET (`reads.json`). The steps: release/README.md ("Upgrade fixtures").
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { createDocsClient } from '../client/index.ts';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
export const FIXTURES = path.join(ROOT, 'test/fixtures/releases');

/** One GET the release answered: the request as sent and the answer as received. */
export interface RecordedRead {
  operationId: string;
  path: string;
  query?: Record<string, string>;
  status: number;
  body: unknown;
}

/** What the upgrade test needs besides the database. */
export interface FixtureManifest {
  version: string;
  ref: string;
  /** The base address the release answered from (its `urls` start with it). */
  baseUrl: string;
  token: string;
  /** Values the seed gave that the contract refuses, as `table.column` of id, and the form they are migrated to. */
  repaired: { table: string; column: string; id: string; from: string; to: string | null }[];
  reads: RecordedRead[];
}

export const TOKEN = 'release-fixture-admin';

/** Stored values the release took from its seed file without checking them; the repair each must get. */
const OUT_OF_BOUNDS: FixtureManifest['repaired'] = [
  { table: 'organizations', column: 'title', id: 'o', from: 'O', to: 'O (o)' },
  { table: 'spaces', column: 'title', id: 'untitled', from: '', to: 'Untitled' },
  { table: 'teams', column: 'title', id: 'long-title', from: 'T'.repeat(300), to: 'T'.repeat(255) },
  { table: 'users', column: 'email', id: 'dave', from: 'dave-at-example', to: null },
];

const SEED = {
  users: [
    { id: 'alice', displayName: 'Alice Admin', email: 'alice@acme.test' },
    { id: 'bob', displayName: 'Bob Editor', email: 'bob@acme.test', tokens: ['bob-token'] },
    { id: 'carol', displayName: 'Carol Reader', email: 'carol@acme.test', tokens: ['carol-token'] },
    { id: 'dave', displayName: 'Dave', email: 'dave-at-example' },
  ],
  organizations: [
    {
      id: 'acme',
      title: 'Acme',
      emailDomains: ['acme.test'],
      members: [
        { user: 'alice', role: 'admin' },
        { user: 'bob', role: 'edit' },
        { user: 'carol', role: 'read' },
        { user: 'dave', role: 'comment' },
      ],
      collections: [
        { id: 'guides', title: 'Guides' },
        { id: 'reference', title: 'Reference', parent: 'guides' },
      ],
      spaces: [
        {
          id: 'handbook',
          title: 'Handbook',
          parent: 'guides',
          pages: [
            { title: 'Welcome', markdown: '# Welcome\n\nSee [Setup](setup) and the **glossary**.\n' },
            { title: 'Setup', slug: 'setup', markdown: '## Install\n\n```sh\nnpm ci\n```\n', pages: [{ title: 'Advanced', markdown: 'More.' }] },
          ],
        },
        { id: 'shared', title: 'Shared', visibility: 'share-link' },
        { id: 'untitled', title: '' },
      ],
      teams: [{ id: 'long-title', title: 'T'.repeat(300), members: [{ user: 'bob', role: 'owner' }], spaces: ['handbook'] }],
    },
    { id: 'o', title: 'O', members: [{ user: 'alice', role: 'admin' }, { user: 'carol', role: 'read' }] },
  ],
};

const OPENAPI_TEXT = JSON.stringify({
  openapi: '3.1.0',
  info: { title: 'Pets', version: '1.0.0' },
  paths: { '/pets': { get: { operationId: 'listPets', responses: { '200': { description: 'The pets.' } } } } },
});

function git(args: string[], cwd = ROOT): string {
  const result = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.trim();
}

/** The commit of a release: REF, the tag v<version>, or the commit that recorded generated/releases/<version>/. */
function releaseRef(version: string, ref: string | undefined): string {
  if (ref) return git(['rev-parse', '--verify', `${ref}^{commit}`]);
  const tag = spawnSync('git', ['rev-parse', '--verify', '--quiet', `v${version}^{commit}`], { cwd: ROOT, encoding: 'utf8' });
  if (tag.status === 0) return tag.stdout.trim();
  const recorded = git(['log', '--diff-filter=A', '--format=%H', '--', `generated/releases/${version}/openapi.yaml`]).split('\n').at(-1);
  if (!recorded) throw new Error(`no tag v${version} and no commit recorded generated/releases/${version}/: give --ref`);
  return recorded;
}

/** Whether the release pins the same version of every package this tree also names (its node_modules then serve). */
function sameDependencies(worktree: string): boolean {
  const versions = (file: string) => {
    const json = JSON.parse(readFileSync(file, 'utf8')) as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
    return { ...json.dependencies, ...json.devDependencies };
  };
  const release = versions(path.join(worktree, 'package.json'));
  const ours = versions(path.join(ROOT, 'package.json'));
  return Object.entries(release).every(([name, version]) => ours[name] === version);
}

/** Starts the release's server from its sources; resolves with its address once its log says it listens. */
function startRelease(worktree: string, env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], { cwd: worktree, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = new Promise<string>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk;
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) => reject(new Error(`the release's server exited with ${code}:\n${output}`)));
  });
  return { child, url, exited: new Promise((resolve) => child.once('exit', resolve)) };
}

async function writeRecords(baseUrl: string): Promise<{ deletedSpaces: string[] }> {
  const as = (token: string) => createDocsClient({ baseUrl, token, throwOnError: true, retry: false });
  const alice = as(TOKEN);
  const bob = as('bob-token');
  const inAcme = { params: { path: { organizationId: 'acme' } } };
  const wait = async <T>(what: string, read: () => Promise<T>, done: (value: T) => boolean) => {
    for (let attempt = 0; attempt < 300; attempt++) {
      const value = await read();
      if (done(value)) return value;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${what} did not finish`);
  };

  // Spaces and collections.
  const archive = (await alice.POST('/v1/orgs/{organizationId}/collections', { ...inAcme, body: { title: 'Archive' } })).data;
  const product = (await alice.POST('/v1/orgs/{organizationId}/spaces', { ...inAcme, body: { title: 'Product docs', emoji: '📘', language: 'en' } })).data;
  await alice.POST('/v1/spaces/{spaceId}/content/template', { params: { path: { spaceId: product.id } }, body: { id: 'getting-started' } });
  const frozen = (await alice.POST('/v1/orgs/{organizationId}/spaces', { ...inAcme, body: { title: 'Frozen', parent: archive.id } })).data;
  await alice.PATCH('/v1/spaces/{spaceId}', { params: { path: { spaceId: frozen.id } }, body: { editMode: 'locked', defaultLevel: 'read' } });
  const trashed = (await alice.POST('/v1/orgs/{organizationId}/spaces', { ...inAcme, body: { title: 'Trashed' } })).data;
  await alice.DELETE('/v1/spaces/{spaceId}', { params: { path: { spaceId: trashed.id } } });
  await alice.POST('/v1/spaces/{spaceId}/move', { params: { path: { spaceId: 'shared' } }, body: { parent: archive.id } });
  await alice.POST('/v1/orgs/{organizationId}/ping', inAcme);
  await alice.PATCH('/v1/orgs/{organizationId}/members/{userId}', { params: { path: { organizationId: 'acme', userId: 'carol' } }, body: { role: 'comment' } });

  // A change request: edited, commented, merged.
  const onProduct = { params: { path: { spaceId: product.id } } };
  const cr = (await bob.POST('/v1/spaces/{spaceId}/change-requests', { ...onProduct, body: { subject: 'Rework the introduction' } })).data;
  const onCr = { spaceId: product.id, changeRequestId: cr.id };
  await bob.PATCH('/v1/spaces/{spaceId}/change-requests/{changeRequestId}', { params: { path: onCr }, body: { subject: 'Rework the introduction (v2)' } });
  const crPages = (await bob.GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/pages', { params: { path: onCr, query: {} } })).data;
  const crComment = (
    await bob.POST('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments', {
      params: { path: onCr },
      body: { page: crPages.pages[0]!.id, body: { markdown: 'Is this **clear**?' } },
    })
  ).data;
  await alice.POST('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies', {
    params: { path: { ...onCr, commentId: crComment.id } },
    body: { body: { markdown: 'Yes.' } },
  });
  await alice.POST('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/merge', { params: { path: onCr } });
  const open = (await bob.POST('/v1/spaces/{spaceId}/change-requests', { ...onProduct, body: { subject: 'Still open' } })).data;
  expectDefined(open.id);

  // Space comments, replies, reactions, one resolved.
  const pages = (await alice.GET('/v1/spaces/{spaceId}/content/pages', { params: { path: { spaceId: 'handbook' }, query: {} } })).data;
  const comment = (
    await bob.POST('/v1/spaces/{spaceId}/comments', { params: { path: { spaceId: 'handbook' } }, body: { page: pages.pages[0]!.id, body: { markdown: 'Typo in the title?' } } })
  ).data;
  await alice.PUT('/v1/spaces/{spaceId}/comments/{commentId}', { params: { path: { spaceId: 'handbook', commentId: comment.id } }, body: { addedReactions: ['👍', '🎉'] } });
  await alice.POST('/v1/spaces/{spaceId}/comments/{commentId}/replies', { params: { path: { spaceId: 'handbook', commentId: comment.id } }, body: { body: { markdown: 'Fixed.' } } });
  const resolved = (await bob.POST('/v1/spaces/{spaceId}/comments', { params: { path: { spaceId: 'handbook' } }, body: { body: { markdown: 'Whole-space remark.' } } })).data;
  await alice.PUT('/v1/spaces/{spaceId}/comments/{commentId}', { params: { path: { spaceId: 'handbook', commentId: resolved.id } }, body: { resolved: true } });

  // Teams, SAML.
  await alice.PUT('/v1/orgs/{organizationId}/teams', { ...inAcme, body: { title: 'Writers', members: ['bob', 'carol'] } });
  await alice.POST('/v1/orgs/{organizationId}/saml', { ...inAcme, body: { label: 'Okta', defaultRole: 'read' } });

  // A site and its structure.
  const site = (await alice.POST('/v1/orgs/{organizationId}/sites', { ...inAcme, body: { title: 'Help center', spaces: [product.id] } })).data;
  const onSite = { organizationId: 'acme', siteId: site.id };
  const guides = (await alice.POST('/v1/orgs/{organizationId}/sites/{siteId}/sections', { params: { path: onSite }, body: { spaceId: 'handbook', title: 'Guides' } })).data;
  const api = (await alice.POST('/v1/orgs/{organizationId}/sites/{siteId}/sections', { params: { path: onSite }, body: { spaceId: product.id, title: 'API' } })).data;
  await alice.POST('/v1/orgs/{organizationId}/sites/{siteId}/section-groups', { params: { path: onSite }, body: { title: 'Docs', sections: [guides.id] } });
  await alice.PATCH('/v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}', {
    params: { path: { ...onSite, siteSectionId: api.id } },
    body: { description: 'The reference.' },
  });
  await alice.POST('/v1/orgs/{organizationId}/sites/{siteId}/site-spaces', { params: { path: onSite }, body: { spaceId: 'shared', sectionId: guides.id } });
  await alice.PATCH('/v1/orgs/{organizationId}/sites/{siteId}', { params: { path: onSite }, body: { title: 'Help centre' } });

  // An OpenAPI specification, processed; a translation, run.
  await alice.POST('/v1/orgs/{organizationId}/openapi', { ...inAcme, body: { slug: 'pets', source: { text: OPENAPI_TEXT } } });
  await wait(
    'OpenAPI processing',
    async () => (await alice.GET('/v1/orgs/{organizationId}/openapi/{specSlug}', { params: { path: { organizationId: 'acme', specSlug: 'pets' } } })).data,
    (spec) => spec.processingState === 'complete' && spec.lastVersion !== undefined,
  );
  const translation = (await alice.POST('/v1/orgs/{organizationId}/translations', { ...inAcme, body: { language: 'fr', source: { space: 'handbook', language: 'en' } } })).data;
  await wait(
    'the translation',
    async () => (await alice.GET('/v1/orgs/{organizationId}/translations/{translationId}', { params: { path: { organizationId: 'acme', translationId: translation.id } } })).data,
    (current) => current.status === 'completed' && current.stats.runs > 0,
  );

  // An integration, published and installed.
  await alice.POST('/v1/integrations/{integrationName}', {
    params: { path: { integrationName: 'status-board' } },
    body: {
      title: 'Status board',
      description: 'Shows the status of services.',
      organization: 'acme',
      visibility: 'private',
      target: 'all',
      blocks: [{ id: 'status', title: 'Status', markdown: { codeblock: 'status', body: 'Status: {{props.state}}' } }],
    },
  });
  await alice.POST('/v1/integrations/{integrationName}/installations', { params: { path: { integrationName: 'status-board' } }, body: { organization: 'acme' } });
  return { deletedSpaces: [trashed.id] };
}

function expectDefined(value: unknown): void {
  if (value === undefined) throw new Error('expected a value');
}

/** Every GET of the contract on what the organizations hold, walked from `GET /v1/orgs` down, with its answer. */
async function readEverything(baseUrl: string, deletedSpaces: string[]): Promise<RecordedRead[]> {
  const reads: RecordedRead[] = [];
  const get = async (operationId: string, template: string, params: Record<string, string> = {}, query: Record<string, string> = {}) => {
    const filled = template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(params[name]!));
    const search = new URLSearchParams(query).toString();
    const response = await fetch(`${baseUrl}${filled}${search ? `?${search}` : ''}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const body = response.headers.get('content-type')?.includes('json') ? await response.json() : await response.text();
    reads.push({ operationId, path: filled, ...(search ? { query } : {}), status: response.status, body });
    if (response.status !== 200) throw new Error(`${operationId} ${filled} answered ${response.status}: ${JSON.stringify(body)}`);
    return body as Record<string, unknown> & { items: Record<string, unknown>[] };
  };
  const all = { limit: '1000' };
  const ids = (list: { items: Record<string, unknown>[] }) => list.items.map((item) => String(item.id));

  const organizations = await get('listOrganizations', '/v1/orgs', {}, all);
  const spaceIds = new Set<string>(deletedSpaces);
  for (const organizationId of ids(organizations)) {
    const org = { organizationId };
    await get('getOrganization', '/v1/orgs/{organizationId}', org);
    await get('listSsoLoginInfo', '/v1/orgs/{organizationId}/sso', org);
    for (const userId of ids(await get('listMembers', '/v1/orgs/{organizationId}/members', org, all))) {
      await get('getMember', '/v1/orgs/{organizationId}/members/{userId}', { ...org, userId });
      await get('listMemberSpaces', '/v1/orgs/{organizationId}/members/{userId}/spaces', { ...org, userId }, all);
      await get('listMemberTeams', '/v1/orgs/{organizationId}/members/{userId}/teams', { ...org, userId }, all);
    }
    for (const teamId of ids(await get('listTeams', '/v1/orgs/{organizationId}/teams', org, all))) {
      await get('getTeam', '/v1/orgs/{organizationId}/teams/{teamId}', { ...org, teamId });
    }
    for (const collectionId of ids(await get('listCollections', '/v1/orgs/{organizationId}/collections', org, all))) {
      await get('getCollection', '/v1/collections/{collectionId}', { collectionId });
      await get('listCollectionSpaces', '/v1/collections/{collectionId}/spaces', { collectionId }, all);
    }
    for (const spaceId of ids(await get('listSpaces', '/v1/orgs/{organizationId}/spaces', org, all))) spaceIds.add(spaceId);
    for (const samlProviderId of ids(await get('listSamlProviders', '/v1/orgs/{organizationId}/saml', org, all))) {
      await get('getSamlProvider', '/v1/orgs/{organizationId}/saml/{samlProviderId}', { ...org, samlProviderId });
    }
    for (const siteId of ids(await get('listSites', '/v1/orgs/{organizationId}/sites', org, all))) {
      const site = { ...org, siteId };
      await get('getSite', '/v1/orgs/{organizationId}/sites/{siteId}', site);
      await get('getSiteAdaptiveSchema', '/v1/orgs/{organizationId}/sites/{siteId}/adaptive-schema', site);
      await get('listSiteAdaptiveConditionTemplates', '/v1/orgs/{organizationId}/sites/{siteId}/adaptive-schema/template-conditions', site);
      await get('getPublishedSite', '/v1/orgs/{organizationId}/sites/{siteId}/published', site);
      await get('listSiteSections', '/v1/orgs/{organizationId}/sites/{siteId}/sections', site, all);
      await get('listSiteSectionGroups', '/v1/orgs/{organizationId}/sites/{siteId}/section-groups', site, all);
      await get('listSiteSpaces', '/v1/orgs/{organizationId}/sites/{siteId}/site-spaces', site, all);
    }
    for (const spec of (await get('listOpenAPISpecs', '/v1/orgs/{organizationId}/openapi', org, all)).items) {
      const onSpec = { ...org, specSlug: String(spec.slug) };
      await get('getOpenAPISpec', '/v1/orgs/{organizationId}/openapi/{specSlug}', onSpec);
      await get('getLatestOpenAPISpecVersion', '/v1/orgs/{organizationId}/openapi/{specSlug}/versions/latest', onSpec);
      await get('getLatestOpenAPISpecVersionContent', '/v1/orgs/{organizationId}/openapi/{specSlug}/versions/latest/content', onSpec);
      for (const versionId of ids(await get('listOpenAPISpecVersions', '/v1/orgs/{organizationId}/openapi/{specSlug}/versions', onSpec, all))) {
        await get('getOpenAPISpecVersion', '/v1/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}', { ...onSpec, versionId });
        await get('getOpenAPISpecVersionContent', '/v1/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}/content', { ...onSpec, versionId });
      }
    }
    for (const translationId of ids(await get('listTranslations', '/v1/orgs/{organizationId}/translations', org, all))) {
      await get('getTranslation', '/v1/orgs/{organizationId}/translations/{translationId}', { ...org, translationId });
    }
  }
  for (const spaceId of spaceIds) {
    const space = { spaceId };
    const row = await get('getSpace', '/v1/spaces/{spaceId}', space);
    if (row.deletedAt !== undefined) continue; // a deleted space's content is not readable until it is restored
    await get('getSpaceContent', '/v1/spaces/{spaceId}/content', space);
    await get('listSpaceLinks', '/v1/spaces/{spaceId}/links', space, all);
    await get('getGitInfo', '/v1/spaces/{spaceId}/git/info', space);
    const pages: string[] = [];
    const walk = (list: unknown) => {
      for (const page of (list as { id: string; pages?: unknown[] }[]) ?? []) {
        pages.push(page.id);
        walk(page.pages);
      }
    };
    walk((await get('listSpacePages', '/v1/spaces/{spaceId}/content/pages', space)).pages);
    for (const pageId of pages) {
      await get('getSpacePage', '/v1/spaces/{spaceId}/content/page/{pageId}', { ...space, pageId }, { format: 'markdown' });
      await get('listSpacePageLinks', '/v1/spaces/{spaceId}/content/page/{pageId}/links', { ...space, pageId }, all);
      await get('listSpacePageBacklinks', '/v1/spaces/{spaceId}/content/page/{pageId}/backlinks', { ...space, pageId }, all);
    }
    for (const fileId of ids(await get('listSpaceFiles', '/v1/spaces/{spaceId}/content/files', space, all))) {
      await get('listSpaceFileBacklinks', '/v1/spaces/{spaceId}/content/files/{fileId}/backlinks', { ...space, fileId }, all);
    }
    for (const commentId of ids(await get('listSpaceComments', '/v1/spaces/{spaceId}/comments', space, { ...all, status: 'all' }))) {
      await get('getSpaceComment', '/v1/spaces/{spaceId}/comments/{commentId}', { ...space, commentId });
      for (const commentReplyId of ids(await get('listSpaceCommentReplies', '/v1/spaces/{spaceId}/comments/{commentId}/replies', { ...space, commentId }, all))) {
        await get('getSpaceCommentReply', '/v1/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}', { ...space, commentId, commentReplyId });
      }
    }
    await get('listSpaceCommenters', '/v1/spaces/{spaceId}/commenters', space, all);
    for (const status of ['open', 'merged']) {
      for (const changeRequestId of ids(await get('listChangeRequests', '/v1/spaces/{spaceId}/change-requests', space, { ...all, status }))) {
        const cr = { ...space, changeRequestId };
        await get('getChangeRequest', '/v1/spaces/{spaceId}/change-requests/{changeRequestId}', cr);
        await get('getChangeRequestContent', '/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content', cr);
        await get('listChangeRequestPages', '/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/pages', cr);
        await get('listChangeRequestFiles', '/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/files', cr, all);
        await get('listChangeRequestCommenters', '/v1/spaces/{spaceId}/change-requests/{changeRequestId}/commenters', cr, all);
        for (const commentId of ids(await get('listChangeRequestComments', '/v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments', cr, { ...all, status: 'all' }))) {
          await get('getChangeRequestComment', '/v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}', { ...cr, commentId });
          await get('listChangeRequestCommentReplies', '/v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies', { ...cr, commentId }, all);
        }
      }
    }
  }
  const integrations = await get('listIntegrations', '/v1/integrations', {}, all);
  for (const item of integrations.items) {
    const integrationName = String(item.name);
    await get('getIntegration', '/v1/integrations/{integrationName}', { integrationName });
    await get('listIntegrationInstallations', '/v1/integrations/{integrationName}/installations', { integrationName }, all);
    await get('listIntegrationSpaces', '/v1/integrations/{integrationName}/spaces', { integrationName }, all);
    await get('listIntegrationSites', '/v1/integrations/{integrationName}/sites', { integrationName }, all);
    for (const eventId of ids(await get('listIntegrationEvents', '/v1/integrations/{integrationName}/events', { integrationName }, all))) {
      await get('getIntegrationEvent', '/v1/integrations/{integrationName}/events/{eventId}', { integrationName, eventId });
    }
  }
  return reads;
}

async function main() {
  const { values, positionals } = parseArgs({ options: { ref: { type: 'string' } }, allowPositionals: true });
  const version = positionals[0];
  if (!version || !/^\d+\.\d+\.\d+$/.test(version)) throw new Error('usage: npm run fixture:release -- <version> [--ref REF]');
  const ref = releaseRef(version, values.ref);
  const scratch = mkdtempSync(path.join(tmpdir(), `release-fixture-${version}-`));
  const worktree = path.join(scratch, 'source');
  git(['worktree', 'add', '--detach', worktree, ref]);
  try {
    if (sameDependencies(worktree)) symlinkSync(path.join(ROOT, 'node_modules'), path.join(worktree, 'node_modules'), 'dir');
    else if (spawnSync('npm', ['ci'], { cwd: worktree, stdio: 'inherit' }).status !== 0) throw new Error('npm ci of the release failed');
    const dataDir = path.join(scratch, 'data');
    const seedFile = path.join(scratch, 'seed.json');
    writeFileSync(seedFile, JSON.stringify(SEED));
    const server = startRelease(worktree, {
      PORT: '0',
      DATA_DIR: dataDir,
      SEED_FILE: seedFile,
      DOCS_API_TOKEN: TOKEN,
      LOG_LEVEL: 'info',
      VALIDATE_RESPONSES: 'false', // the seed's out-of-bound values are what the release stored and answered
    });
    let manifest: FixtureManifest;
    try {
      const baseUrl = await server.url;
      const { deletedSpaces } = await writeRecords(baseUrl);
      const reads = await readEverything(baseUrl, deletedSpaces);
      manifest = { version, ref, baseUrl, token: TOKEN, repaired: OUT_OF_BOUNDS, reads };
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    const database = new Database(path.join(dataDir, 'data.sqlite'));
    database.pragma('wal_checkpoint(TRUNCATE)');
    database.close();
    const out = path.join(FIXTURES, version);
    mkdirSync(out, { recursive: true });
    copyFileSync(path.join(dataDir, 'data.sqlite'), path.join(out, 'data.sqlite'));
    writeFileSync(path.join(out, 'reads.json'), `${JSON.stringify(manifest, null, 1)}\n`);
    console.log(`release-fixture: ${path.relative(ROOT, out)}: data.sqlite and reads.json (${manifest.reads.length} reads) from ${ref}`);
  } finally {
    git(['worktree', 'remove', '--force', worktree]);
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  main().catch((error) => {
    console.error(`release-fixture: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
