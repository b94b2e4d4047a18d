// Type-level checks of the client, compiled by `tsc` (npm run typecheck) and never run: each `@ts-expect-error`
// fails the type check if the line below it stops being an error.
import { createDocsClient, paginate } from '../../client/index.ts';

export async function typeChecks() {
  const client = createDocsClient({ baseUrl: 'http://localhost:3000', token: 't' });
  const strict = createDocsClient({ baseUrl: 'http://localhost:3000', token: 't', throwOnError: true });
  const acme = { params: { path: { organizationId: 'acme' } } };

  // @ts-expect-error an unknown path
  await client.GET('/v1/organizations');

  // @ts-expect-error a missing path parameter
  await client.GET('/v1/spaces/{spaceId}', { params: { path: {} } });

  // @ts-expect-error a body field that does not exist
  await client.PATCH('/v1/orgs/{organizationId}', { ...acme, body: { title: 'Acme', nickname: 'ac' } });
  // @ts-expect-error a body field that does not exist, in a body the operation makes optional
  await client.POST('/v1/orgs/{organizationId}/spaces', { ...acme, body: { titel: 'Handbook' } });
  // @ts-expect-error a body field that does not exist, with a value typed `any`
  await client.POST('/v1/orgs/{organizationId}/spaces', { ...acme, body: { titel: JSON.parse('"Handbook"') } });
  // @ts-expect-error a nested body field that does not exist
  await client.POST('/v1/spaces/{spaceId}/comments', { params: { path: { spaceId: 's' } }, body: { page: 'p', body: { markdown: 'x', html: '<p>' } } });
  // Union bodies accept each of their forms.
  await client.POST('/v1/orgs/{organizationId}/openapi', { ...acme, body: { slug: 'api', source: { url: 'https://x.test/o.yaml' } } });
  await client.POST('/v1/orgs/{organizationId}/openapi', { ...acme, body: { slug: 'api', source: { text: 'openapi: 3.1.0' } } });
  await client.POST('/v1/orgs/{organizationId}/sites', { ...acme, body: { spaces: 'new' } });
  await client.POST('/v1/orgs/{organizationId}/sites', { ...acme, body: { spaces: ['a', 'b'] } });

  await client.PUT('/v1/orgs/{organizationId}/sites/{siteId}/adaptive-schema', {
    params: { path: { organizationId: 'acme', siteId: 's' } },
    body: {
      // @ts-expect-error a read-only field in a body (`object` and `updatedAt` are set by the service)
      object: 'site-adaptive-schema',
      jsonSchema: { type: 'object', properties: {}, additionalProperties: false },
    },
  });

  // Without the read-only field, the same body is fine.
  await client.PUT('/v1/orgs/{organizationId}/sites/{siteId}/adaptive-schema', {
    params: { path: { organizationId: 'acme', siteId: 's' } },
    body: { jsonSchema: { type: 'object', properties: {}, additionalProperties: false } },
  });

  const { data, error } = await client.GET('/v1/orgs');
  // @ts-expect-error reading data without checking error: it may be undefined
  data.items;
  if (!error) data.items.map((org) => org.title);

  // In throwing mode data is always there.
  (await strict.GET('/v1/orgs')).data.items.map((org) => org.permissions.admin);

  // @ts-expect-error a query parameter the operation does not have
  await client.GET('/v1/orgs/{organizationId}/members', { params: { path: { organizationId: 'acme' }, query: { colour: 'red' } } });

  // paginate accepts list operations only, and types their items.
  for await (const member of paginate(client, '/v1/orgs/{organizationId}/members', acme)) member.user.displayName;
  // @ts-expect-error not a list operation
  paginate(client, '/v1/orgs/{organizationId}', acme);
}
