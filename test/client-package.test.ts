// The client as a consumer gets it: imported by the package's name, from the JavaScript built into dist/.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { ACME } from './support/fixture.ts';
import { useTestServer } from './support/server.ts';

const ctx = useTestServer();

test('a consumer imports the client by the package name and calls the API with it', async () => {
  const script = `
    import { createDocsClient, paginate, ApiError } from 'docs-platform-contract';
    const client = createDocsClient({ baseUrl: process.env.BASE_URL, token: 'reader' });
    const { data } = await client.GET('/v1/orgs/{organizationId}', { params: { path: { organizationId: '${ACME}' } } });
    const members = [];
    for await (const member of paginate(client, '/v1/orgs/{organizationId}/members', { params: { path: { organizationId: '${ACME}' }, query: { limit: 2 } } })) members.push(member.id);
    console.log(JSON.stringify({ title: data.title, members: members.length, apiError: typeof ApiError }));
  `;
  // Asynchronously: the server answering the consumer runs in this process.
  const run = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, BASE_URL: ctx.server.url },
    timeout: 20_000,
  });
  expect(run.stderr).toBe('');
  expect(JSON.parse(run.stdout)).toEqual({ title: 'Acme', members: 7, apiError: 'function' });
});
