import { describe, expect, test } from 'vitest';
import { sql } from 'kysely';
import { readMigrations, SqliteStore } from '../../server/store/sqlite/store.ts';
import { insertRows } from '../support/store.ts';
import { ACME, GLOBEX, standardFixture } from '../support/fixture.ts';
import { expectError, ok } from '../support/expect.ts';
import { useTestServer } from '../support/server.ts';

const fixture = {
  ...standardFixture,
  organizations: [
    {
      ...standardFixture.organizations![0]!,
      spaces: [
        {
          id: 'handbook',
          title: 'Handbook',
          pages: [
            {
              title: 'Onboarding',
              markdown: '# Onboarding\n\nWelcome aboard.\n\n## Laptop setup\n\nInstall the toolchain with brew.\n',
            },
            { title: 'Holidays', markdown: 'Holidays are booked through the portal.\n' },
          ],
        },
        { id: 'secrets', title: 'Secrets', pages: [{ title: 'Keys', markdown: 'The toolchain signing keys.\n' }] },
      ],
    },
    standardFixture.organizations![1]!,
  ],
};

const ctx = useTestServer({ fixture });
const acme = { params: { path: { organizationId: ACME } } };

describe('GET /v1/orgs', () => {
  test('lists the organizations the caller is a member of, and only those', async () => {
    const list = ok(await ctx.server.as('admin').GET('/v1/orgs'));
    expect(list.items.map((org) => org.id)).toEqual([ACME]);
    expect(list.count).toBe(1);
    expect(list.next).toBeUndefined();
    expect(list.items[0]!.permissions.admin).toBe(true);
    expect(list.items[0]!.urls.location).toBe(`${ctx.server.url}/v1/orgs/${ACME}`);

    const other = ok(await ctx.server.as('outsider').GET('/v1/orgs'));
    expect(other.items.map((org) => org.id)).toEqual([GLOBEX]);
  });

  test('permissions are computed for the caller', async () => {
    const [reader] = ok(await ctx.server.as('reader').GET('/v1/orgs')).items;
    expect(reader!.permissions).toMatchObject({ view: true, admin: false, createContent: false, listMembers: true });
    const [guest] = ok(await ctx.server.as('guest').GET('/v1/orgs')).items;
    expect(guest!.permissions).toMatchObject({ view: true, listMembers: false });
  });

  test('rejects a limit over 1000 and a forged cursor with 400', async () => {
    expectError(await ctx.server.as('admin').GET('/v1/orgs', { params: { query: { limit: 1001 } } }), 400, 'limit');
    expectError(await ctx.server.as('admin').GET('/v1/orgs', { params: { query: { page: 'eyJrIjpbXX0.forged' } } }), 400, 'page');
  });

  test('needs a token', async () => {
    expectError(await ctx.server.as('anonymous').GET('/v1/orgs'), 401);
    expectError(await ctx.server.withToken('not-a-token').GET('/v1/orgs'), 401);
  });
});

describe('GET /v1/orgs/{organizationId}', () => {
  test('returns the organization to a member', async () => {
    const org = ok(await ctx.server.as('reader').GET('/v1/orgs/{organizationId}', acme));
    expect(org).toMatchObject({ object: 'organization', id: ACME, title: 'Acme', emailDomains: ['acme.test'] });
  });

  test('answers 404 to another organization and for an unknown id', async () => {
    expectError(await ctx.server.as('outsider').GET('/v1/orgs/{organizationId}', acme), 404);
    expectError(
      await ctx.server.as('admin').GET('/v1/orgs/{organizationId}', { params: { path: { organizationId: 'nope' } } }),
      404,
    );
  });

  test('needs a token', async () => {
    expectError(await ctx.server.as('anonymous').GET('/v1/orgs/{organizationId}', acme), 401);
  });
});

describe('PATCH /v1/orgs/{organizationId}', () => {
  test('updates every field the document lists, and reads back the same', async () => {
    const updated = ok(
      await ctx.server.as('admin').PATCH('/v1/orgs/{organizationId}', {
        ...acme,
        body: {
          title: 'Acme Corporation',
          emailDomains: ['acme.test', 'ACME.example'],
          hostname: 'acme-docs',
          defaultRole: 'read',
          logo: 'https://cdn.acme.test/logo.png',
          sso: true,
          ai: true,
          inviteLinks: false,
        },
      }),
    );
    expect(updated).toMatchObject({
      title: 'Acme Corporation',
      emailDomains: ['acme.test', 'acme.example'],
      hostname: 'acme-docs',
      defaultRole: 'read',
      sso: true,
      ai: true,
      inviteLinks: false,
      urls: { logo: 'https://cdn.acme.test/logo.png' },
    });
    expect(ok(await ctx.server.as('reader').GET('/v1/orgs/{organizationId}', acme))).toEqual({
      ...updated,
      permissions: expect.objectContaining({ admin: false }),
    });
  });

  test('null removes the logo and makes new members guests', async () => {
    const updated = ok(
      await ctx.server.as('admin').PATCH('/v1/orgs/{organizationId}', { ...acme, body: { logo: null, defaultRole: null } }),
    );
    expect(updated.urls.logo).toBeUndefined();
    expect(updated.defaultRole).toBeNull();
  });

  test('rejects invalid input with 400 naming the field, and changes nothing', async () => {
    const before = ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}', acme));
    expectError(await ctx.server.as('admin').PATCH('/v1/orgs/{organizationId}', { ...acme, body: { title: 'A' } }), 400, 'title');
    expectError(
      await ctx.server.as('admin').PATCH('/v1/orgs/{organizationId}', { ...acme, body: { hostname: 'x'.repeat(33) } }),
      400,
      'hostname',
    );
    expectError(
      await ctx.server.as('admin').PATCH('/v1/orgs/{organizationId}', {
        ...acme,
        body: { title: 'Renamed', plan: 'pro' } as never,
      }),
      400,
      'plan',
    );
    expectError(
      await ctx.server.as('admin').PATCH('/v1/orgs/{organizationId}', {
        ...acme,
        body: { title: 'Renamed', defaultContent: { type: 'site', site: 'no-such-site' } },
      }),
      400,
      'defaultContent.site',
    );
    expectError(
      await ctx.server.as('admin').PATCH('/v1/orgs/{organizationId}', { ...acme, body: { emailDomains: ['not a domain'] } }),
      400,
      'emailDomains',
    );
    expect(ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}', acme))).toEqual(before);
  });

  test('answers 409 when the hostname belongs to another organization', async () => {
    ok(
      await ctx.server.as('outsider').PATCH('/v1/orgs/{organizationId}', {
        params: { path: { organizationId: GLOBEX } },
        body: { hostname: 'globex' },
      }),
    );
    expectError(await ctx.server.as('admin').PATCH('/v1/orgs/{organizationId}', { ...acme, body: { hostname: 'globex' } }), 409, 'hostname');
  });

  test('needs the admin role (403), membership (404) and a token (401)', async () => {
    expectError(await ctx.server.as('creator').PATCH('/v1/orgs/{organizationId}', { ...acme, body: { title: 'Nope' } }), 403);
    expectError(await ctx.server.as('outsider').PATCH('/v1/orgs/{organizationId}', { ...acme, body: { title: 'Nope' } }), 404);
    expectError(await ctx.server.as('anonymous').PATCH('/v1/orgs/{organizationId}', { ...acme, body: { title: 'Nope' } }), 401);
  });
});

describe('DELETE /v1/orgs/{organizationId}/link-invites/{inviteId}', () => {
  const invite = (inviteId: string) => ({ params: { path: { organizationId: ACME, inviteId } } });

  test('deletes an invite link, and answers 204 again when it is gone', async () => {
    const app = ctx.server.running.ctx;
    await insertRows(app, 'invite_links', [{ id: 'inv-1', organization_id: ACME, role: 'read', created_at: new Date().toISOString() }]);
    const first = await ctx.server.as('admin').DELETE('/v1/orgs/{organizationId}/link-invites/{inviteId}', invite('inv-1'));
    expect(first.response.status).toBe(204);
    expect(await app.store.reader.all(sql`SELECT id FROM invite_links WHERE id = 'inv-1'`)).toEqual([]);
    const again = await ctx.server.as('admin').DELETE('/v1/orgs/{organizationId}/link-invites/{inviteId}', invite('inv-1'));
    expect(again.response.status).toBe(204);
  });

  test('needs the admin role (403), membership (404) and a token (401)', async () => {
    expectError(await ctx.server.as('reviewer').DELETE('/v1/orgs/{organizationId}/link-invites/{inviteId}', invite('x')), 403);
    expectError(await ctx.server.as('outsider').DELETE('/v1/orgs/{organizationId}/link-invites/{inviteId}', invite('x')), 404);
    expectError(await ctx.server.as('anonymous').DELETE('/v1/orgs/{organizationId}/link-invites/{inviteId}', invite('x')), 401);
  });
});

describe('GET /v1/orgs/{organizationId}/search', () => {
  const search = (query: string, limit?: number) => ({
    params: { path: { organizationId: ACME }, query: { query, ...(limit ? { limit } : {}) } },
  });

  test('finds pages by their content, grouped by space, with the matching sections', async () => {
    const results = ok(await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/search', search('brew')));
    expect(results.count).toBe(1);
    const [space] = results.items;
    expect(space).toMatchObject({ id: 'handbook', title: 'Handbook' });
    expect(space!.pages).toHaveLength(1);
    expect(space!.pages[0]).toMatchObject({ title: 'Onboarding', path: 'onboarding' });
    expect(space!.pages[0]!.sections[0]).toMatchObject({
      id: 'laptop-setup',
      title: 'Laptop setup',
      path: 'onboarding#laptop-setup',
    });
    expect(space!.pages[0]!.sections[0]!.body).toContain('brew');
  });

  test('pages through spaces with a cursor', async () => {
    const first = ok(await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/search', search('toolchain', 1)));
    expect(first.count).toBe(2);
    expect(first.items).toHaveLength(1);
    const second = ok(
      await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/search', {
        params: { path: { organizationId: ACME }, query: { query: 'toolchain', limit: 1, page: first.next!.page } },
      }),
    );
    expect(second.items).toHaveLength(1);
    expect(second.next).toBeUndefined();
    expect(new Set([...first.items, ...second.items].map((item) => item.id))).toEqual(new Set(['handbook', 'secrets']));
  });

  test('searches an organization of more spaces than SQLite binds parameters', async () => {
    // The organization's spaces were once bound as a list of ids: beyond 32 766 of them, SQLite refused the query.
    const app = ctx.server.running.ctx;
    const many = 33_000;
    const at = '2026-01-01T00:00:00.000Z';
    await insertRows(app, 'spaces', Array.from({ length: many }, (_, i) => ({
      id: `many-${i}`, organization_id: ACME, title: `Space ${i}`, revision_id: 'none', share_key: 'k', position: 1000 + i, created_at: at, updated_at: at,
    })));
    try {
      const results = ok(await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/search', search('brew')));
      expect(results.items.map((item) => item.id)).toEqual(['handbook']);
    } finally {
      await app.store.write((db) => db.run(sql`DELETE FROM spaces WHERE id LIKE 'many-%'`));
    }
  });

  test('treats search syntax in the query as plain words', async () => {
    const results = ok(await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/search', search('"holidays" (portal*')));
    expect(results.items.map((item) => item.id)).toEqual(['handbook']);
  });

  test('rejects a missing or too long query with 400', async () => {
    expectError(
      await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/search', { params: { path: { organizationId: ACME } } } as never),
      400,
      'query',
    );
    expectError(await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/search', search('x'.repeat(513))), 400, 'query');
  });

  test('does not search for guests (403), other organizations (404) or without a token (401)', async () => {
    expectError(await ctx.server.as('guest').GET('/v1/orgs/{organizationId}/search', search('brew')), 403);
    expectError(await ctx.server.as('outsider').GET('/v1/orgs/{organizationId}/search', search('brew')), 404);
    expectError(await ctx.server.as('anonymous').GET('/v1/orgs/{organizationId}/search', search('brew')), 401);
  });
});

describe('GET /v1/email-domains/{emailDomain}/orgs', () => {
  const domain = (emailDomain: string) => ({ params: { path: { emailDomain } } });

  test('lists the organizations of the caller’s own email domain', async () => {
    const { organizations } = ok(await ctx.server.as('reader').GET('/v1/email-domains/{emailDomain}/orgs', domain('acme.test')));
    expect(organizations.map((org) => org.id)).toEqual([ACME]);
  });

  test('reveals nothing about other domains', async () => {
    const { organizations } = ok(await ctx.server.as('outsider').GET('/v1/email-domains/{emailDomain}/orgs', domain('acme.test')));
    expect(organizations).toEqual([]);
  });

  test('needs a token', async () => {
    expectError(await ctx.server.as('anonymous').GET('/v1/email-domains/{emailDomain}/orgs', domain('acme.test')), 401);
  });

  // The organizations of each domain are kept by triggers (migration 140_organization_email_domains).
  test("follows changes of an organization's domains; the migration's backfill finds the same", async () => {
    const found = async () =>
      ok(await ctx.server.as('reader').GET('/v1/email-domains/{emailDomain}/orgs', domain('acme.test'))).organizations.map((org) => org.id);
    const setDomains = async (emailDomains: string[]) =>
      ok(await ctx.server.as('admin').PATCH('/v1/orgs/{organizationId}', { params: { path: { organizationId: ACME } }, body: { emailDomains } }));
    const before = ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}', { params: { path: { organizationId: ACME } } })).emailDomains;
    await setDomains(['acme.example']);
    expect(await found()).toEqual([]);
    await setDomains(['acme.example', 'ACME.test']);
    expect(await found()).toEqual([ACME]);

    const app = ctx.server.running.ctx;
    if (app.store instanceof SqliteStore) {
      // The SQLite migration that made the table fills it from the organizations already there.
      const connection = app.store.connection;
      const migration = readMigrations().find((entry) => entry.name === '140_organization_email_domains.sql')!;
      connection.transaction(() => {
        connection.exec('DROP TRIGGER organization_email_domains_added');
        connection.exec('DROP TRIGGER organization_email_domains_changed');
        connection.exec('DROP TABLE organization_email_domains');
        connection.exec(migration.sql);
      })();
      expect(await found()).toEqual([ACME]);
    }

    // An organization added or removed outside the API: its domains come and go with it.
    const domainsOf = (id: string) => app.store.reader.all(sql`SELECT domain FROM organization_email_domains WHERE organization_id = ${id}`);
    await insertRows(app, 'organizations', [{ id: 'temp', title: 'Temp', created_at: new Date().toISOString(), type: 'other', email_domains: '["acme.test"]' }]);
    expect(await domainsOf('temp')).toEqual([{ domain: 'acme.test' }]);
    await app.store.write((db) => db.run(sql`DELETE FROM organizations WHERE id = 'temp'`));
    expect(await domainsOf('temp')).toEqual([]);
    await setDomains(before);
  });
});
