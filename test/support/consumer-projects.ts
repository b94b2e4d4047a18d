// The three consumer projects consumers.test.ts installs the packages into, each with its own suite (node's test
// runner): one on the server's test harness, one through the validating proxy with its own HTTP client (fetch), one
// with the typed client in recording mode; and the contract changes the gate then judges against their records.
import type { OpenApiDocument } from '../../conformance/contract/contract.ts';

/** A project's files, by path. */
export type ProjectFiles = Record<string, string>;

const manifest = (name: string) => JSON.stringify({ name, version: '1.0.0', private: true, type: 'module' });

/** Teams, in two files (two processes of node's test runner: two servers, two records to merge). */
export const harnessConsumer: ProjectFiles = {
  'package.json': manifest('harness-consumer'),
  'test/create-team.test.mjs': `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startDocsServer } from 'docs-platform-server/testing';

const seed = { users: [{ id: 'ann', displayName: 'Ann' }], organizations: [{ id: 'acme', title: 'Acme', members: [{ user: 'ann', role: 'admin' }] }] };

test('a team created is read back', async () => {
  const server = await startDocsServer({ seed });
  try {
    const organization = { params: { path: { organizationId: 'acme' } } };
    const created = await server.client.PUT('/v1/orgs/{organizationId}/teams', { ...organization, body: { title: 'Writers' } });
    assert.equal(created.response.status, 201);
    const read = await server.client.GET('/v1/orgs/{organizationId}/teams/{teamId}', { params: { path: { organizationId: 'acme', teamId: created.data.id } } });
    assert.equal(read.data.title, 'Writers');
  } finally {
    await server.stop();
  }
});
`,
  'test/list-teams.test.mjs': `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startDocsServer } from 'docs-platform-server/testing';

const seed = { users: [{ id: 'ann', displayName: 'Ann' }], organizations: [{ id: 'acme', title: 'Acme', members: [{ user: 'ann', role: 'admin' }] }] };

test('a new organization has no team', async () => {
  const server = await startDocsServer({ seed });
  try {
    const listed = await server.client.GET('/v1/orgs/{organizationId}/teams', { params: { path: { organizationId: 'acme' } } });
    assert.deepEqual(listed.data.items, []);
  } finally {
    await server.stop();
  }
});
`,
  'report.mjs': `import { reportUsage } from 'docs-platform-server/testing';
reportUsage();
`,
};

/** A space read with fetch: its own HTTP client, every field of the answer taken as it comes. */
export const proxyConsumer = (spaceId: string): ProjectFiles => ({
  'package.json': manifest('proxy-consumer'),
  'test/space.test.mjs': `import assert from 'node:assert/strict';
import { test } from 'node:test';

test('the space shows with its address', async () => {
  const answer = await fetch(\`\${process.env.DOCS_API_URL}/v1/spaces/${spaceId}\`, { headers: { authorization: \`Bearer \${process.env.DOCS_API_TOKEN}\` } });
  assert.equal(answer.status, 200);
  const space = await answer.json();
  assert.match(space.urls.app, /^https?:/);
});
`,
});

/** A space's title and the organization's type, read through the typed client in recording mode. */
export const clientConsumer = (spaceId: string): ProjectFiles => ({
  'package.json': manifest('client-consumer'),
  'test/client.test.mjs': `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createDocsClient } from 'docs-platform-contract';
import { recordingClient } from 'docs-platform-conformance/recording';

const docs = recordingClient(createDocsClient({ baseUrl: process.env.DOCS_API_URL, token: process.env.DOCS_API_TOKEN, retry: false }));

test("the space's title, and the kind of organization it belongs to", async () => {
  const space = await docs.GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: '${spaceId}' } } });
  assert.equal(space.data.title, 'Handbook');
  const organization = await docs.GET('/v1/orgs/{organizationId}', { params: { path: { organizationId: 'acme' } } });
  assert.ok(['business', 'community'].includes(organization.data.type));
});
`,
  'merge.mjs': `import { mergeUsageRecords } from 'docs-platform-conformance/recording';
mergeUsageRecords();
`,
});

type Document = OpenApiDocument & { components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[]; enum?: unknown[] }> } };

/** The three changes: a response field only the proxy's consumer uses removed, an operation none calls removed, a value added to a response enumeration only the client's consumer read. */
export function contractChanges(base: OpenApiDocument): Record<'fieldRemoved' | 'operationRemoved' | 'enumValueAdded', OpenApiDocument> {
  const copy = () => structuredClone(base) as Document;
  const fieldRemoved = copy();
  const space = fieldRemoved.components.schemas.Space!;
  delete space.properties!.urls;
  space.required = space.required?.filter((name) => name !== 'urls');
  const operationRemoved = copy();
  const teams = Object.entries(operationRemoved.paths).find(([, item]) => (item as { delete?: { operationId?: string } }).delete?.operationId === 'deleteTeam')!;
  delete (teams[1] as { delete?: unknown }).delete;
  const enumValueAdded = copy();
  enumValueAdded.components.schemas.OrganizationType!.enum!.push('nonprofit');
  return { fieldRemoved, operationRemoved, enumValueAdded };
}
