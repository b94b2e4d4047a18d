// The scenario's groups on the organization: the organization itself, its teams, the caller as a member, SAML
// providers.
import { StepFailed } from '../session.ts';
import type { Scenario } from './context.ts';

/** The organization: read, changed to what it was, pinged, its members listed; an invite and a member that are not there removed. */
export function organization(sc: Scenario): Promise<void> {
  const { s, inOrg, organizationId, org, runId } = sc;
  return s.group('organization', async () => {
    await s.call('getOrganization', { path: inOrg });
    // A PATCH that sets the title it already has: the organization is left as it was.
    const restore = { title: org.title, ...(org.hostname ? { hostname: org.hostname } : {}) };
    await s.call('updateOrganization', { path: inOrg, body: { title: org.title } }, {
      // An invalid input wrongly accepted may have changed the title or hostname: set them back.
      undo: () => s.call('updateOrganization', { path: inOrg, body: restore }, { invalid: false, step: 'undo: restore the organization' }),
    });
    await s.call('pingOrganization', { path: inOrg });
    await s.call('listMembers', { path: inOrg, query: { limit: 50 } });
    await s.call('deleteOrganizationInvite', { path: { organizationId, inviteId: `docs-conformance-${runId}` } });
    // The runner cannot create users: a user who is not a member (204 also then).
    await s.call('removeMember', { path: { organizationId, userId: `docs-conformance-nobody-${runId}` } });
  });
}

/** Teams. */
export function teams(sc: Scenario): Promise<void> {
  const { s, inOrg, named, organizationId, self } = sc;
  return s.group('teams', async (defer) => {
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
}

/** The caller as a member: read, keep their role (admin), SSO. */
export function members(sc: Scenario): Promise<void> {
  const { s, organizationId, org, self } = sc;
  return s.group('members', async () => {
    if (!self) throw new StepFailed("the caller's user id is unknown (no change request or comment was created)");
    const me = { organizationId, userId: self.id };
    await s.call('getMember', { path: me });
    await s.call('updateMember', { path: me, body: { role: 'admin' } });
    await s.call('listMemberSpaces', { path: me, query: {} });
    if (!s.operations.get('listMemberTeams')?.exercised) await s.call('listMemberTeams', { path: me, query: {} });
    await s.call('makeMemberSso', { path: me });
    const domain = self.email?.split('@')[1] ?? org.emailDomains[0] ?? 'docs-conformance.example';
    await s.call('listOrganizationsByEmailDomain', { path: { emailDomain: domain } });
  });
}

/** SAML providers. */
export function saml(sc: Scenario): Promise<void> {
  const { s, inOrg, organizationId } = sc;
  return s.group('saml', async (defer) => {
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
}
