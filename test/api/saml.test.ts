import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { ACME, GLOBEX, standardFixture } from '../support/fixture.ts';
import { expectError, ok } from '../support/expect.ts';
import { useTestServer } from '../support/server.ts';

const [acmeOrg, globexOrg] = standardFixture.organizations!;

const fixture = {
  ...standardFixture,
  organizations: [
    { ...acmeOrg!, teams: [{ id: 'support', title: 'Support', members: [{ user: 'editor', role: 'owner' as const }] }] },
    { ...globexOrg!, teams: [{ id: 'globex-team', title: 'Globex team' }] },
  ],
};

/** A self-signed X.509 certificate of an identity provider. */
const CERTIFICATE = `-----BEGIN CERTIFICATE-----
MIIDEzCCAfugAwIBAgIUXoQ+aul2Y29Pl5DZiGwaZ/H9xVgwDQYJKoZIhvcNAQEL
BQAwGDEWMBQGA1UEAwwNaWRwLmFjbWUudGVzdDAgFw0yNjExMjEwNTQzMzlaGA8y
MTI2MTAyODA1NDMzOVowGDEWMBQGA1UEAwwNaWRwLmFjbWUudGVzdDCCASIwDQYJ
KoZIhvcNAQEBBQADggEPADCCAQoCggEBAMylf2RSwArfO3O9r22R1QBDWaSsIOLy
THoGkm7eyfRsuTKoIPgKfX3Sxr+TaCkWcjaYuVVj3vBZge8LwA63NaQ9+fbe0Pkm
YqWdPSj5exrhDu8n/C7CUTU34Odw9dKWFCJ3ptVUjqcDASgl5G/musi5FV41K9CB
d6omtU2bgCcioOvd+oIGz0gWdG1PIk5Xsn1OHsfuK4qdc1fzQl4KRAL/GtH9Jdm5
locg2s+yMFD7g+tax4B37jqSJ7vH/rEODhLnMrUGBe1T3QFzm8S6jdIHuAND8O6t
pYWP4NKxrj75ZhMsQp+MMX6fr5ujW2NsMCjYKDegRVrMmga7eqnZ+50CAwEAAaNT
MFEwHQYDVR0OBBYEFGEKpGYbk8PCJuW7wJcjTvmnFIGGMB8GA1UdIwQYMBaAFGEK
pGYbk8PCJuW7wJcjTvmnFIGGMA8GA1UdEwEB/wQFMAMBAf8wDQYJKoZIhvcNAQEL
BQADggEBAKOBzSjSfnLzROLh5HHFtghiGt/8+soyjj2n2jneZtjRqJ3pQuX64TlU
uFpksYUXfGo7Hgiv6qBjxmVvBJFv/ZfPwsJcOVH4q9qV/qkm21w16cL840G7hmlH
r0oNWDdz/XG9GXAQwy+/ve3AJ1CfWxloCnS4ZkNZ+xycDy9SplDW7Ij8PwIoZ+io
/571fdIGxS3vEywnrXsmm1w/RYM6rOlIWNkAiNq+peimfjdbCPqRjNa+ZNuKo/ld
m51BhHtNNoGoOcEafv0PIwSjmpz94ByFl5LaucdXIBws9va0CGm1b7RKwGtggTzX
2OdDmHL6fl2WuFROISF/rkJs3foj750=
-----END CERTIFICATE-----`;
/** The same certificate as bare base64 DER, as identity-provider metadata often gives it. */
const CERTIFICATE_BASE64 = CERTIFICATE.replace(/-----[A-Z ]+-----|\s/g, '');

const IDP = { ssoURL: 'https://idp.acme.test/sso', entityID: 'https://idp.acme.test/metadata', certificate: CERTIFICATE };

const dataDir = mkdtempSync(path.join(tmpdir(), 'saml-test-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const ctx = useTestServer({ fixture, dataDir });
const acme = { params: { path: { organizationId: ACME } } };
const provider = (samlProviderId: string) => ({ params: { path: { organizationId: ACME, samlProviderId } } });

async function createProvider(body: Record<string, unknown>) {
  return ok(await ctx.server.as('admin').POST('/v1/orgs/{organizationId}/saml', { ...acme, body: body as never }), 201);
}

async function providerCount() {
  return ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/saml', acme)).count;
}

async function ssoIds(as: 'admin' | 'guest' | 'reader' = 'admin') {
  return ok(await ctx.server.as(as).GET('/v1/orgs/{organizationId}/sso', acme)).items.map((item) => item.id);
}

describe('POST /v1/orgs/{organizationId}/saml', () => {
  test('creates a pending provider from a label alone, with its service addresses and Location', async () => {
    const answer = await ctx.server.as('admin').POST('/v1/orgs/{organizationId}/saml', { ...acme, body: { label: 'Okta' } });
    const created = ok(answer, 201);
    const base = `${ctx.server.url}/app/o/${ACME}/saml/${created.id}`;
    expect(created).toEqual({
      object: 'saml-provider',
      id: created.id,
      label: 'Okta',
      createdAt: '2026-03-01T09:00:00.000Z',
      status: 'pending',
      service: { acsURL: `${base}/acs`, startURL: `${base}/start`, entityID: base },
      urls: { location: `${ctx.server.url}/v1/orgs/${ACME}/saml/${created.id}` },
    });
    expect(answer.response.headers.get('location')).toBe(created.urls.location);
    expect(ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/saml/{samlProviderId}', provider(created.id)))).toEqual(
      created,
    );
  });

  test('creates an active provider when the identity provider is fully described, showing the full default team', async () => {
    const created = await createProvider({ label: 'Azure AD', ...IDP, defaultTeam: 'support', defaultRole: 'edit' });
    expect(created).toMatchObject({ status: 'active', ...IDP, defaultRole: 'edit' });
    expect(created.defaultTeam).toMatchObject({ object: 'team', id: 'support', title: 'Support', members: 1 });
    expect(ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/saml/{samlProviderId}', provider(created.id)))).toEqual(
      created,
    );
  });

  test('reads back the entity id and certificate as sent, whitespace around them included', async () => {
    // A PEM file ends with a newline; an entity id pasted from metadata may carry a space.
    const sent = { label: 'Pasted', ssoURL: IDP.ssoURL, entityID: ' https://idp.acme.test/metadata ', certificate: `${CERTIFICATE}\n` };
    const created = await createProvider(sent);
    expect(created).toMatchObject({ ...sent, status: 'active' });
    expect(ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/saml/{samlProviderId}', provider(created.id)))).toMatchObject(sent);
  });

  test('defaultRole null makes members signing in through the provider guests', async () => {
    const created = await createProvider({ label: 'Guests', defaultRole: null });
    expect(created.defaultRole).toBeNull();
    const read = ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/saml/{samlProviderId}', provider(created.id)));
    expect(read.defaultRole).toBeNull();
  });

  test('rejects bad fields with 400 naming the field, and creates nothing', async () => {
    const before = await providerCount();
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'label'],
      [{ label: '' }, 'label'],
      [{ label: 'x'.repeat(31) }, 'label'],
      [{ label: '   ' }, 'label'],
      [{ label: 'L', ssoURL: 'not a url' }, 'ssoURL'],
      [{ label: 'L', ssoURL: 'ftp://idp.acme.test/sso' }, 'ssoURL'],
      [{ label: 'L', ssoURL: `https://idp.acme.test/${'x'.repeat(2048)}` }, 'ssoURL'],
      [{ label: 'L', entityID: 'x'.repeat(1025) }, 'entityID'],
      [{ label: 'L', entityID: ' ' }, 'entityID'],
      [{ label: 'L', certificate: 'not a certificate' }, 'certificate'],
      [{ label: 'L', certificate: 'x'.repeat(10001) }, 'certificate'],
      [{ label: 'L', defaultTeam: 'nope' }, 'defaultTeam'],
      [{ label: 'L', defaultTeam: 'globex-team' }, 'defaultTeam'],
      [{ label: 'L', defaultRole: 'owner' }, 'defaultRole'],
      [{ label: 'L', status: 'active' }, 'status'],
    ];
    for (const [body, field] of cases) {
      expectError(
        await ctx.server.as('admin').POST('/v1/orgs/{organizationId}/saml', { ...acme, body: body as never }),
        400,
        field,
      );
    }
    expect(await providerCount()).toBe(before);
  });

  test('needs the organization admin permission (403), membership (404) and a token (401)', async () => {
    const before = await providerCount();
    const body = { label: 'Nope' };
    expectError(await ctx.server.as('creator').POST('/v1/orgs/{organizationId}/saml', { ...acme, body }), 403, 'admin');
    expectError(await ctx.server.as('outsider').POST('/v1/orgs/{organizationId}/saml', { ...acme, body }), 404);
    expectError(await ctx.server.as('anonymous').POST('/v1/orgs/{organizationId}/saml', { ...acme, body }), 401);
    expect(await providerCount()).toBe(before);
  });
});

describe('GET /v1/orgs/{organizationId}/saml', () => {
  test('lists the providers of the organization, page by page', async () => {
    await createProvider({ label: 'First' });
    await createProvider({ label: 'Second' });
    const all = ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/saml', acme));
    expect(all.count).toBeGreaterThanOrEqual(2);
    expect(all.items.every((item) => item.object === 'saml-provider')).toBe(true);
    const first = ok(
      await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/saml', { params: { path: { organizationId: ACME }, query: { limit: 1 } } }),
    );
    const second = ok(
      await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/saml', {
        params: { path: { organizationId: ACME }, query: { limit: 1, page: first.next!.page } },
      }),
    );
    expect([first.items[0]!.id, second.items[0]!.id]).toEqual(all.items.slice(0, 2).map((item) => item.id));
    const globex = ok(await ctx.server.as('outsider').GET('/v1/orgs/{organizationId}/saml', { params: { path: { organizationId: GLOBEX } } }));
    expect(globex.count).toBe(0);
  });

  test('rejects bad paging with 400', async () => {
    expectError(
      await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/saml', { params: { path: { organizationId: ACME }, query: { limit: 1001 } } }),
      400,
      'limit',
    );
  });

  test('needs the organization admin permission (403), membership (404) and a token (401)', async () => {
    expectError(await ctx.server.as('creator').GET('/v1/orgs/{organizationId}/saml', acme), 403);
    expectError(await ctx.server.as('outsider').GET('/v1/orgs/{organizationId}/saml', acme), 404);
    expectError(await ctx.server.as('anonymous').GET('/v1/orgs/{organizationId}/saml', acme), 401);
  });
});

describe('GET /v1/orgs/{organizationId}/saml/{samlProviderId}', () => {
  test('answers 404 for an unknown provider and for one of another organization', async () => {
    expectError(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/saml/{samlProviderId}', provider('nope')), 404);
    const foreign = ok(
      await ctx.server.as('outsider').POST('/v1/orgs/{organizationId}/saml', {
        params: { path: { organizationId: GLOBEX } },
        body: { label: 'Globex IdP' },
      }),
      201,
    );
    expectError(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/saml/{samlProviderId}', provider(foreign.id)), 404);
  });

  test('needs the organization admin permission (403), membership (404) and a token (401)', async () => {
    const created = await createProvider({ label: 'Private' });
    expectError(await ctx.server.as('reviewer').GET('/v1/orgs/{organizationId}/saml/{samlProviderId}', provider(created.id)), 403);
    expectError(await ctx.server.as('outsider').GET('/v1/orgs/{organizationId}/saml/{samlProviderId}', provider(created.id)), 404);
    expectError(await ctx.server.as('anonymous').GET('/v1/orgs/{organizationId}/saml/{samlProviderId}', provider(created.id)), 401);
  });
});

describe('PATCH /v1/orgs/{organizationId}/saml/{samlProviderId}', () => {
  test('a provider stays pending until sign-on address, entity id and certificate are all set, then is active', async () => {
    const created = await createProvider({ label: 'Stepwise' });
    const patch = async (body: Record<string, unknown>) =>
      ok(
        await ctx.server.as('admin').PATCH('/v1/orgs/{organizationId}/saml/{samlProviderId}', {
          ...provider(created.id),
          body: body as never,
        }),
      );
    expect((await patch({ ssoURL: IDP.ssoURL })).status).toBe('pending');
    expect((await patch({ entityID: IDP.entityID })).status).toBe('pending');
    expect(await ssoIds()).not.toContain(created.id);
    const active = await patch({ certificate: CERTIFICATE_BASE64 });
    expect(active).toMatchObject({ status: 'active', ssoURL: IDP.ssoURL, entityID: IDP.entityID, certificate: CERTIFICATE_BASE64 });
    expect(ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/saml/{samlProviderId}', provider(created.id)))).toEqual(
      active,
    );
    expect(await ssoIds()).toContain(created.id);
  });

  test('changes only the fields given; null makes the default role a guest', async () => {
    const created = await createProvider({ label: 'Partial', ...IDP, defaultTeam: 'support', defaultRole: 'read' });
    const relabelled = ok(
      await ctx.server.as('admin').PATCH('/v1/orgs/{organizationId}/saml/{samlProviderId}', {
        ...provider(created.id),
        body: { label: 'Renamed' },
      }),
    );
    expect(relabelled).toEqual({ ...created, label: 'Renamed' });
    const guests = ok(
      await ctx.server.as('admin').PATCH('/v1/orgs/{organizationId}/saml/{samlProviderId}', {
        ...provider(created.id),
        body: { defaultRole: null },
      }),
    );
    expect(guests).toEqual({ ...relabelled, defaultRole: null });
    const unchanged = ok(
      await ctx.server.as('admin').PATCH('/v1/orgs/{organizationId}/saml/{samlProviderId}', { ...provider(created.id), body: {} }),
    );
    expect(unchanged).toEqual(guests);
  });

  test('deleting its default team leaves the provider without one', async () => {
    const team = ok(await ctx.server.as('admin').PUT('/v1/orgs/{organizationId}/teams', { ...acme, body: { title: 'Temporary' } }), 201);
    const created = await createProvider({ label: 'Team joiner', defaultTeam: team.id });
    expect(created.defaultTeam?.id).toBe(team.id);
    await ctx.server.as('admin').DELETE('/v1/orgs/{organizationId}/teams/{teamId}', {
      params: { path: { organizationId: ACME, teamId: team.id } },
    });
    const read = ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/saml/{samlProviderId}', provider(created.id)));
    expect(read.defaultTeam).toBeUndefined();
  });

  test('rejects bad fields with 400 naming the field, and changes nothing', async () => {
    const created = await createProvider({ label: 'Stable', ...IDP });
    const cases: [Record<string, unknown>, string][] = [
      [{ label: '' }, 'label'],
      [{ ssoURL: 'mailto:idp@acme.test' }, 'ssoURL'],
      [{ certificate: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----' }, 'certificate'],
      [{ entityID: '' }, 'entityID'],
      [{ defaultTeam: 'globex-team' }, 'defaultTeam'],
      [{ label: 'Changed', defaultTeam: 'nope' }, 'defaultTeam'],
      [{ ssoURL: null }, 'ssoURL'],
    ];
    for (const [body, field] of cases) {
      expectError(
        await ctx.server.as('admin').PATCH('/v1/orgs/{organizationId}/saml/{samlProviderId}', {
          ...provider(created.id),
          body: body as never,
        }),
        400,
        field,
      );
    }
    expect(ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/saml/{samlProviderId}', provider(created.id)))).toEqual(
      created,
    );
  });

  test('needs a known provider (404), the admin permission (403), membership (404) and a token (401)', async () => {
    const created = await createProvider({ label: 'Guarded' });
    const patch = (as: 'admin' | 'creator' | 'outsider' | 'anonymous', id = created.id) =>
      ctx.server.as(as).PATCH('/v1/orgs/{organizationId}/saml/{samlProviderId}', { ...provider(id), body: { label: 'Hijacked' } });
    expectError(await patch('admin', 'nope'), 404);
    expectError(await patch('creator'), 403);
    expectError(await patch('outsider'), 404);
    expectError(await patch('anonymous'), 401);
    expect(ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/saml/{samlProviderId}', provider(created.id))).label).toBe(
      'Guarded',
    );
  });
});

describe('DELETE /v1/orgs/{organizationId}/saml/{samlProviderId}', () => {
  test('deletes the provider, which stops offering sign-in; deleting it again answers 204', async () => {
    const created = await createProvider({ label: 'Retired', ...IDP });
    expect(await ssoIds()).toContain(created.id);
    const first = await ctx.server.as('admin').DELETE('/v1/orgs/{organizationId}/saml/{samlProviderId}', provider(created.id));
    expect(first.response.status).toBe(204);
    expectError(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/saml/{samlProviderId}', provider(created.id)), 404);
    expect(await ssoIds()).not.toContain(created.id);
    const again = await ctx.server.as('admin').DELETE('/v1/orgs/{organizationId}/saml/{samlProviderId}', provider(created.id));
    expect(again.response.status).toBe(204);
  });

  test('needs the admin permission (403), membership (404) and a token (401)', async () => {
    const created = await createProvider({ label: 'Kept' });
    expectError(await ctx.server.as('creator').DELETE('/v1/orgs/{organizationId}/saml/{samlProviderId}', provider(created.id)), 403);
    expectError(await ctx.server.as('outsider').DELETE('/v1/orgs/{organizationId}/saml/{samlProviderId}', provider(created.id)), 404);
    expectError(await ctx.server.as('anonymous').DELETE('/v1/orgs/{organizationId}/saml/{samlProviderId}', provider(created.id)), 401);
    ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/saml/{samlProviderId}', provider(created.id)));
  });
});

describe('GET /v1/orgs/{organizationId}/sso', () => {
  test('lists the active providers, with their start address, to every member including guests', async () => {
    const active = await createProvider({ label: 'Sign in with Okta', ...IDP });
    const pending = await createProvider({ label: 'Not ready' });
    const { items } = ok(await ctx.server.as('guest').GET('/v1/orgs/{organizationId}/sso', acme));
    expect(items).toContainEqual({ id: active.id, label: 'Sign in with Okta', startURL: active.service.startURL });
    expect(items.map((item) => item.id)).not.toContain(pending.id);
    expect(await ssoIds('reader')).toEqual(items.map((item) => item.id));
    const globex = ok(await ctx.server.as('outsider').GET('/v1/orgs/{organizationId}/sso', { params: { path: { organizationId: GLOBEX } } }));
    expect(globex.items).toEqual([]);
  });

  test('answers 404 to other organizations and for unknown ones, 401 without a token', async () => {
    expectError(await ctx.server.as('outsider').GET('/v1/orgs/{organizationId}/sso', acme), 404);
    expectError(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/sso', { params: { path: { organizationId: 'nope' } } }), 404);
    expectError(await ctx.server.as('anonymous').GET('/v1/orgs/{organizationId}/sso', acme), 401);
  });
});

describe('persistence', () => {
  test('providers survive a restart', async () => {
    const created = await createProvider({ label: 'Durable', ...IDP, defaultTeam: 'support', defaultRole: null });
    await ctx.server.restart();
    expect(ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/saml/{samlProviderId}', provider(created.id)))).toEqual(
      created,
    );
  });
});
