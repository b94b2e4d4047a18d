// Integrations: global records owned by an organization. Their rows, who sees them and who administers them, and
// whose installations a caller sees. Publishing and installing them is in integration-publishing.ts, their lists in
// integration-lists.ts, how the API shows them in integration-presenters.ts, their events and the delivery of those
// to a development tunnel in integration-events.ts, the rendering of their blocks in integration-blocks.ts.
import type { Caller } from '../auth/caller.ts';
import { type Membership, membershipOf, ROLE_RANKS } from '../auth/roles.ts';
import type { Scope } from '../context/context.ts';
import { badRequest, forbidden, notFound } from '../common/errors.ts';
import type { Model } from '../common/contract.ts';
import type { Db } from '../store/db.ts';
import * as integrations from '../store/integrations.ts';
import * as members from '../store/members.ts';
import * as organizations from '../store/organizations.ts';
import { parseEnum, rowParser } from '../store/enums.ts';
import { organizationPermissions, parseOrganizationRow } from './organizations.ts';
import type { Row } from '../store/schema.ts';

/**
 * Per `IntegrationVisibility`: whether the integration belongs to its organization alone (seen by its members who
 * may list integrations, installed only there).
 */
export const INTEGRATION_VISIBILITIES = {
  public: { ownerOnly: false },
  unlisted: { ownerOnly: false },
  private: { ownerOnly: true },
} satisfies Record<Model<'IntegrationVisibility'>, { ownerOnly: boolean }>;

/** Per `IntegrationTarget`: whether an integration with it can be installed on every kind of target. */
export const INTEGRATION_TARGETS = {
  all: { everyTarget: true },
  site: { everyTarget: false },
  space: { everyTarget: false },
  organization: { everyTarget: false },
} satisfies Record<Model<'IntegrationTarget'>, { everyTarget: boolean }>;

export type IntegrationRow = Row<'integrations', { visibility: Model<'Integration'>['visibility']; target: Model<'Integration'>['target'] }>;

export type InstallationRow = Row<'integration_installations', { status: Model<'IntegrationInstallation'>['status'] }>;

/** `pending` while a delivery to the development tunnel is queued: such events are not shown yet. */
export type EventRow = Row<'integration_events', { status: Model<'IntegrationEvent'>['status'] | 'pending' }>;

export type IntegrationPermissions = Model<'IntegrationPermissions'>;

/** An `integrations` row checked: its visibility and target are members of their enumerations. */
export const parseIntegrationRow = rowParser<IntegrationRow>('integrations', {
  visibility: INTEGRATION_VISIBILITIES,
  target: INTEGRATION_TARGETS,
});

export const getIntegrationRow = async (db: Db, name: string): Promise<IntegrationRow | undefined> => {
  const row = await integrations.get(db, name);
  return row === undefined ? undefined : parseIntegrationRow(row);
};

/** Per `InstallationStatus`: one entry per status an installation may have. */
const INSTALLATION_STATUSES = { active: true, pending: true, paused: true } satisfies Record<Model<'InstallationStatus'>, true>;

/** An `integration_installations` row checked: its status is one of the contract's. */
export const parseInstallationRow = rowParser<InstallationRow>('integration_installations', { status: INSTALLATION_STATUSES });

/** Per event status: the contract's `IntegrationEventStatus`, and `pending` while a delivery is queued. */
const EVENT_STATUSES = { success: true, failed: true, pending: true } satisfies Record<Model<'IntegrationEventStatus'> | 'pending', true>;

/** An `integration_events` row checked: its status is one of the contract's, or `pending`. */
export const parseEventRow = rowParser<EventRow>('integration_events', { status: EVENT_STATUSES });

export const getInstallationRow = async (db: Db, id: string): Promise<InstallationRow | undefined> => {
  const row = await integrations.getInstallation(db, id);
  return row === undefined ? undefined : parseInstallationRow(row);
};

/** Integration admins (publish, unpublish, development mode) are the members who create content in the owner. */
export function integrationPermissions(ownerMembership: Membership | undefined): IntegrationPermissions {
  return { admin: organizationPermissions(ownerMembership).createContent };
}

export interface IntegrationAccess {
  integration: IntegrationRow;
  /** The caller's membership of the owner organization. */
  membership: Membership | undefined;
  permissions: IntegrationPermissions;
}

/**
 * The integration, when the caller may see it: public and unlisted ones are seen by anyone, private ones by the
 * members of the owner who have its `listIntegrations` permission (not its guests); otherwise 404.
 */
export async function integrationAccess(ctx: Scope, caller: Caller, name: string): Promise<IntegrationAccess> {
  const integration = await getIntegrationRow(ctx.db, name);
  const membership = integration && (await membershipOf(ctx.db, caller.user.id, integration.organizationId));
  if (!integration || (INTEGRATION_VISIBILITIES[integration.visibility].ownerOnly && !organizationPermissions(membership).listIntegrations)) {
    throw notFound(`integration ${name}`);
  }
  return { integration, membership, permissions: integrationPermissions(membership) };
}

export function requireIntegration(access: IntegrationAccess, permission: keyof IntegrationPermissions): void {
  if (!access.permissions[permission]) {
    throw forbidden(
      `this operation needs the ${permission} permission on the integration (createContent in its owner organization)`,
    );
  }
}

/**
 * Whose installations (and their events, spaces and sites) the caller sees: all of them for the integration's
 * admins, otherwise those of the organizations where the caller has `listInstallations`. 403 when that is none.
 */
export async function installationScope(ctx: Scope, caller: Caller, access: IntegrationAccess): Promise<integrations.InstallationScope> {
  if (access.permissions.admin) return { all: true, organizations: [] };
  const listed = (await callerMemberships(ctx.db, caller))
    .filter((membership) => organizationPermissions(membership).listInstallations)
    .map((membership) => membership.organizationId);
  if (listed.length === 0) {
    throw forbidden(
      'this operation needs the admin permission on the integration, or the listInstallations permission in an organization',
    );
  }
  return { all: false, organizations: listed };
}

/** Every organization the caller is an active member of. */
export async function callerMemberships(db: Db, caller: Caller): Promise<Membership[]> {
  const rows = await members.ofUser(db, caller.user.id);
  return rows.map((row) => ({
    organizationId: row.organizationId,
    role: row.role === null ? null : parseEnum(ROLE_RANKS, { table: 'members', column: 'role' }, row.role),
    disabled: false,
  }));
}

/** An organization of the caller named by its id or its hostname (subdomain); 400 naming `field` otherwise. */
export async function callerOrganization(ctx: Scope, caller: Caller, reference: string, field: string) {
  const stored = await organizations.byIdOrHostname(ctx.db, reference);
  const row = stored === undefined ? undefined : parseOrganizationRow(stored);
  const membership = row && (await membershipOf(ctx.db, caller.user.id, row.id));
  if (!row || !membership) throw badRequest(`${field}: no organization "${reference}" among the caller's organizations`);
  return { organization: row, membership, permissions: organizationPermissions(membership) };
}
