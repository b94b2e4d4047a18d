// The examples' world, made through the API: organizations, members, teams, SAML, collections and spaces (beyond the
// seed of world.ts): an active SAML provider, and a space deleted a day ago (to restore).
import { DAY } from '../../server/common/clock.ts';
import { done, IDS, made, ORGANIZATION, type WorldPart } from './world.ts';

/** Ids the examples use for the records this part makes. */
export const ORGANIZATION_IDS = {
  samlProvider: '0Vby0wuJ00RNe0kxOhJeHE',
  deletedSpace: '0Vby0wt700Gd5Hs2KcNq6W',
} as const;

export const organizationPart: WorldPart = {
  async build(maker) {
    const organization = { params: { path: { organizationId: ORGANIZATION } } };
    const provider = made(
      await maker.as().POST('/v1/orgs/{organizationId}/saml', {
        ...organization,
        body: {
          label: 'Okta',
          entityID: 'http://www.okta.com/exk1a2b3c4d5e6f7g8h9',
          ssoURL: 'https://demo.okta.com/app/docs/exk1a2b3c4d5e6f7g8h9/sso/saml',
          // A self-signed certificate (EC P-256, CN demo.okta.com) made for the examples.
          certificate: 'MIIBozCCAUmgAwIBAgIUQ3urFwwIDAQ5pgEE7vGBG6BWiqQwCgYIKoZIzj0EAwIwJzEWMBQGA1UEAwwNZGVtby5va3RhLmNvbTENMAsGA1UECgwET2t0YTAeFw0yNjExMjYwMzUzNDFaFw0zNjExMjMwMzUzNDFaMCcxFjAUBgNVBAMMDWRlbW8ub2t0YS5jb20xDTALBgNVBAoMBE9rdGEwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAARC1KNq60bj0KdwzwHw9r7Ze3OMCiGy30HsQlageaAYGpheO8YZonRLGH8jLJyti/LbjgvGh23+askQw+kEdEYio1MwUTAdBgNVHQ4EFgQUu5MseVJfUg4dQVezwMxATjHG9A8wHwYDVR0jBBgwFoAUu5MseVJfUg4dQVezwMxATjHG9A8wDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNIADBFAiBVoW8IgQZOchRrym7TZM7DYcq1Hq/EWeLC5RjsXUA+FgIhALe9iZFTscuh34wHX/8kuYviBXlSCbfNo4iZMDwk3aWj',
          defaultTeam: IDS.team,
          defaultRole: 'read',
        },
      }),
      'a SAML provider',
    );
    maker.made(ORGANIZATION_IDS.samlProvider, provider.id);

    const archive = made(await maker.as().POST('/v1/orgs/{organizationId}/spaces', { ...organization, body: { title: 'Release notes 2025', emoji: '🗂️' } }), 'a space');
    maker.made(ORGANIZATION_IDS.deletedSpace, archive.id);
    done(await maker.as().DELETE('/v1/spaces/{spaceId}', { params: { path: { spaceId: archive.id } } }), 'a space deleted');
    maker.clock.advance(DAY);
  },
};
