// Integrations: global records owned by an organization. Their rows, who sees them and who administers them,
// their installations and events, how the API shows them, the delivery of events to a development tunnel, and the
// rendering of their blocks.
import LZString from 'lz-string';
import type { Caller } from '../auth/caller.ts';
import { type Membership, membershipOf } from '../auth/roles.ts';
import { inWrite, reading, type Scope } from '../context.ts';
import { badRequest, forbidden, notFound } from '../errors.ts';
import { jsonShapeProblem, MAX_JSON_DEPTH, MAX_JSON_KEY_LENGTH } from '../json-limits.ts';
import type { Model } from './contract.ts';
import { enqueue, type JobKind } from '../jobs/runner.ts';
import { outboundFor } from '../net/outbound.ts';
import { type Db, fromJson, toJson } from '../store/db.ts';
import * as integrations from '../store/integrations.ts';
import * as members from '../store/members.ts';
import * as organizations from '../store/organizations.ts';
import { liveSpaceCount } from './spaces.ts';
import { newId } from './ids.ts';
import { rowParser } from './enums.ts';
import { getOrganizationRow, organizationPermissions, type OrganizationRow, presentOrganization } from './organizations.ts';

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

export type IntegrationRow = {
  name: string;
  organization_id: string;
  version: number;
  runtime: string;
  title: string;
  description: string | null;
  summary: string | null;
  icon: string | null;
  preview_images: string;
  visibility: Model<'Integration'>['visibility'];
  target: Model<'Integration'>['target'];
  scopes: string;
  categories: string;
  blocks: string;
  content_sources: string;
  external_links: string;
  configurations: string;
  script: string | null;
  secrets: string;
  content_security_policy: string | null;
  verified: number;
  dev_tunnel_url: string | null;
  dev_all: number;
  created_at: string;
  updated_at: string;
};

export type InstallationRow = {
  id: string;
  integration_name: string;
  organization_id: string;
  status: Model<'IntegrationInstallation'>['status'];
  space_selection: string;
  site_selection: string;
  configuration: string;
  external_ids: string;
  created_at: string;
  updated_at: string;
};

/** `pending` while a delivery to the development tunnel is queued: such events are not shown yet. */
export type EventRow = {
  seq: number;
  id: string;
  integration_name: string;
  installation_id: string;
  organization_id: string;
  created_at: string;
  payload: string;
  status: Model<'IntegrationEvent'>['status'] | 'pending';
};

export type IntegrationPermissions = Model<'IntegrationPermissions'>;
type LogLevel = Model<'IntegrationEventLog'>['level'];

/** An `integrations` row checked: its visibility and target are members of their enumerations. */
export const parseIntegrationRow = rowParser<IntegrationRow>('integrations', {
  visibility: INTEGRATION_VISIBILITIES,
  target: INTEGRATION_TARGETS,
});

export const getIntegrationRow = async (db: Db, name: string): Promise<IntegrationRow | undefined> => {
  const row = await integrations.get(db, name);
  return row === undefined ? undefined : parseIntegrationRow(row);
};

export const getInstallationRow = async (db: Db, id: string): Promise<InstallationRow | undefined> =>
  (await integrations.getInstallation(db, id)) as InstallationRow | undefined;

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
  const membership = integration && (await membershipOf(ctx.db, caller.user.id, integration.organization_id));
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
  return rows.map((row) => ({ organizationId: row.organization_id, role: row.role as Membership['role'], disabled: false }));
}

/** An organization of the caller named by its id or its hostname (subdomain); 400 naming `field` otherwise. */
export async function callerOrganization(ctx: Scope, caller: Caller, reference: string, field: string) {
  const row = (await organizations.byIdOrHostname(ctx.db, reference)) as OrganizationRow | undefined;
  const membership = row && (await membershipOf(ctx.db, caller.user.id, row.id));
  if (!row || !membership) throw badRequest(`${field}: no organization "${reference}" among the caller's organizations`);
  return { organization: row, membership, permissions: organizationPermissions(membership) };
}

// Presentation

const ICON_TYPES: [RegExp, string][] = [
  [/^iVBORw0KGgo/, 'image/png'],
  [/^\/9j\//, 'image/jpeg'],
  [/^R0lGOD/, 'image/gif'],
  [/^UklGR/, 'image/webp'],
  [/^AAABAA/, 'image/x-icon'],
  [/^(PHN2Zy|PD94bW)/, 'image/svg+xml'],
];

/** The icon as a `data:` address, its media type recognised from its first bytes. */
export function iconUrl(icon: string): string {
  const type = ICON_TYPES.find(([pattern]) => pattern.test(icon))?.[1] ?? 'application/octet-stream';
  return `data:${type};base64,${icon}`;
}

export async function presentIntegration(ctx: Scope, row: IntegrationRow, caller: Caller): Promise<Model<'Integration'>> {
  const membership = await membershipOf(ctx.db, caller.user.id, row.organization_id);
  const owner = (await getOrganizationRow(ctx, row.organization_id))!;
  return {
    object: 'integration',
    name: row.name,
    version: row.version,
    title: row.title,
    ...(row.description !== null ? { description: row.description } : {}),
    ...(row.summary !== null ? { summary: row.summary } : {}),
    previewImages: fromJson(row.preview_images, []),
    target: row.target,
    verified: row.verified === 1,
    visibility: row.visibility,
    scopes: fromJson(row.scopes, []),
    categories: fromJson(row.categories, []),
    blocks: fromJson(row.blocks, []),
    contentSources: fromJson(row.content_sources, []),
    configurations: fromJson(row.configurations, {}),
    externalLinks: fromJson(row.external_links, []),
    owner: presentOrganization(ctx, owner, membership),
    urls: {
      location: ctx.urls.api(`/v1/integrations/${row.name}`),
      ...(row.icon ? { icon: iconUrl(row.icon) } : {}),
      app: ctx.urls.app(`/integrations/${row.name}`),
      assets: ctx.urls.app(`/integrations/${row.name}/assets/${row.version}`),
      publicEndpoint: ctx.urls.app(`/integrations/${row.name}/endpoint`),
    },
    permissions: integrationPermissions(membership),
    ...(row.content_security_policy !== null ? { contentSecurityPolicy: row.content_security_policy } : {}),
  };
}

export const installationPath = (row: InstallationRow) => `/v1/integrations/${row.integration_name}/installations/${row.id}`;

export async function presentInstallation(ctx: Scope, row: InstallationRow): Promise<Model<'IntegrationInstallation'>> {
  return {
    id: row.id,
    status: row.status,
    space_selection: row.space_selection,
    site_selection: row.site_selection,
    // An installation with space selection `all` covers every live space of its organization.
    spaces: await liveSpaceCount(ctx.db, row.organization_id),
    configuration: fromJson(row.configuration, {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    urls: {
      location: ctx.urls.api(installationPath(row)),
      app: ctx.urls.app(`/o/${row.organization_id}/integrations/${row.integration_name}`),
      publicEndpoint: ctx.urls.app(`/integrations/${row.integration_name}/installations/${row.id}/endpoint`),
    },
    externalIds: fromJson(row.external_ids, []),
    target: { organization: row.organization_id },
  };
}

export function presentEvent(row: EventRow): Model<'IntegrationEvent'> {
  return {
    id: row.id,
    integrationId: row.integration_name,
    installationId: row.installation_id,
    createdAt: row.created_at,
    payload: fromJson(row.payload, { eventId: row.id, type: 'unknown', installationId: row.installation_id }),
    // Pending events are never shown (lists and reads skip them); the contract has no state for them.
    status: row.status === 'pending' ? 'failed' : row.status,
  };
}

export async function eventTrace(db: Db, eventId: string): Promise<Model<'IntegrationEventTrace'>> {
  return { logs: (await integrations.logs(db, eventId)) as Model<'IntegrationEventLog'>[] };
}

// Events and their delivery

export const EVENT_DELIVERY_JOB = 'integration-event-delivery';

/** Largest answer of a tunnel read back. */
const TUNNEL_ANSWER_MAX_BYTES = 1024 * 1024;
/** Most external ids, and most configuration entries, a tunnel's answer can give an installation. */
const MAX_EXTERNAL_IDS = 100;
const MAX_CONFIGURATION_ENTRIES = 100;

function addLog(ctx: Scope, eventId: string, level: LogLevel, message: string): Promise<void> {
  return integrations.addLog(ctx.db, { event_id: eventId, message, level, timestamp: ctx.now() });
}

function setEventStatus(ctx: Scope, eventId: string, status: EventRow['status']): Promise<void> {
  return integrations.setEventStatus(ctx.db, eventId, status);
}

/** Whether development mode forwards the events of this installation to the tunnel. */
const forwards = (integration: IntegrationRow, installation: InstallationRow) =>
  integration.dev_tunnel_url !== null &&
  (integration.dev_all === 1 || installation.organization_id === integration.organization_id);

/**
 * Records an event of an installation (inside the caller's write transaction). In development mode it is queued
 * for delivery to the tunnel and shown once delivered or failed; otherwise it is recorded as handled, since the
 * reference server runs no integration code.
 */
export async function recordEvent(
  ctx: Scope,
  integration: IntegrationRow,
  installation: InstallationRow,
  event: { type: string; status?: InstallationRow['status']; previous?: Model<'IntegrationEventPrevious'> },
): Promise<string> {
  const id = newId();
  const payload: Model<'IntegrationEventPayload'> = {
    eventId: id,
    type: event.type,
    installationId: installation.id,
    ...(event.status ? { status: event.status } : {}),
    ...(event.previous ? { previous: event.previous } : {}),
  };
  const delivered = forwards(integration, installation);
  await integrations.insertEvent(ctx.db, {
    id,
    integration_name: integration.name,
    installation_id: installation.id,
    organization_id: installation.organization_id,
    created_at: ctx.now(),
    payload: toJson(payload),
    status: delivered ? 'pending' : 'success',
  });
  await addLog(ctx, id, 'debug', `${event.type} event of installation ${installation.id} (organization ${installation.organization_id})`);
  if (delivered) {
    await addLog(ctx, id, 'info', `queued for delivery to the development tunnel ${integration.dev_tunnel_url}`);
    await enqueue(ctx, {
      kind: EVENT_DELIVERY_JOB,
      resource: `integration:${integration.name}`,
      payload: { eventId: id },
      createdAt: ctx.now(),
    });
  } else if (integration.dev_tunnel_url !== null) {
    await addLog(ctx, id, 'info', 'recorded without delivery: development mode forwards only the events of the owner organization (all: false)');
  } else {
    await addLog(ctx, id, 'info', 'recorded without delivery: no integration runtime runs here; enable development mode to deliver events to a tunnel');
  }
  return id;
}

/**
 * What a tunnel may answer to update its installation: `{"installation": {"externalIds"?: string[],
 * "configuration"?: object}}`. Returns the changes, or a reason why the answer's `installation` is ignored.
 */
function installationUpdate(answer: unknown): { externalIds?: string[]; configuration?: Record<string, unknown> } | string | undefined {
  if (typeof answer !== 'object' || answer === null || !('installation' in answer)) return undefined;
  const update = (answer as { installation: unknown }).installation;
  if (typeof update !== 'object' || update === null || Array.isArray(update)) return 'installation must be an object';
  const { externalIds, configuration } = update as Record<string, unknown>;
  if (
    externalIds !== undefined &&
    !(
      Array.isArray(externalIds) &&
      externalIds.length <= MAX_EXTERNAL_IDS &&
      externalIds.every((id) => typeof id === 'string' && id.length > 0 && id.length <= MAX_JSON_KEY_LENGTH)
    )
  ) {
    return `installation.externalIds must be an array of at most ${MAX_EXTERNAL_IDS} strings of 1 to ${MAX_JSON_KEY_LENGTH} characters`;
  }
  if (configuration !== undefined && (typeof configuration !== 'object' || configuration === null || Array.isArray(configuration))) {
    return 'installation.configuration must be an object';
  }
  // The configuration is stored and shown as a request body would be: the same bounds apply.
  if (configuration !== undefined && Object.keys(configuration).length > MAX_CONFIGURATION_ENTRIES) {
    return `installation.configuration has more than ${MAX_CONFIGURATION_ENTRIES} entries`;
  }
  const shape = jsonShapeProblem(configuration, { maxDepth: MAX_JSON_DEPTH, maxKeyLength: MAX_JSON_KEY_LENGTH }, 'installation.configuration');
  if (shape !== undefined) return shape;
  return {
    ...(externalIds !== undefined ? { externalIds: [...new Set(externalIds as string[])] } : {}),
    ...(configuration !== undefined ? { configuration: configuration as Record<string, unknown> } : {}),
  };
}

async function applyTunnelAnswer(ctx: Scope, event: EventRow, body: Buffer): Promise<void> {
  let answer: unknown;
  try {
    answer = JSON.parse(body.toString('utf8'));
  } catch {
    return; // any 2xx answer is a success; only a JSON one can update the installation
  }
  const update = installationUpdate(answer);
  if (update === undefined) return;
  if (typeof update === 'string') {
    await addLog(ctx, event.id, 'warn', `the answer's installation update is ignored: ${update}`);
    return;
  }
  const changes = Object.keys(update);
  if (changes.length === 0) return;
  await integrations.updateInstallation(ctx.db, event.installation_id, {
    ...(update.externalIds ? { externalIds: toJson(update.externalIds) } : {}),
    ...(update.configuration ? { configuration: toJson(update.configuration) } : {}),
    updatedAt: ctx.now(),
  });
  await addLog(ctx, event.id, 'info', `the integration updated its installation: ${changes.join(', ')}`);
}

/** Delivers a queued event to the development tunnel: one POST of its payload; the outcome lands on the event. */
export const eventDeliveryJob: JobKind<{ eventId: string }> = {
  resumable: true,
  async run(ctx, job) {
    const { db } = reading(ctx);
    const event = (await integrations.getEvent(db, job.payload.eventId)) as EventRow | undefined;
    if (!event || event.status !== 'pending') return; // unpublished since, or already handled
    const integration = (await getIntegrationRow(db, event.integration_name))!;
    const tunnel = integration.dev_tunnel_url;
    if (tunnel === null) {
      await inWrite(ctx, async (scope) => {
        await addLog(scope, event.id, 'info', 'recorded without delivery: development mode was disabled before delivery');
        await setEventStatus(scope, event.id, 'success');
        await job.done(scope.db);
      });
      return;
    }
    // Delivered outside any transaction; the outcome is recorded in a write of its own. A delivery is an effect
    // outside the database: it is made only while the job still holds its lease, and stops when it is lost.
    const payload = fromJson<Model<'IntegrationEventPayload'>>(event.payload, {} as never);
    await job.confirmLease();
    let outcome: { status: number; body: Buffer } | Error;
    try {
      outcome = await outboundFor(ctx.config)(tunnel, {
        signal: job.signal,
        method: 'POST',
        maxBytes: TUNNEL_ANSWER_MAX_BYTES,
        headers: {
          'content-type': 'application/json',
          'x-docs-integration': integration.name,
          'x-docs-integration-version': String(integration.version),
          'x-docs-event-id': event.id,
          'x-docs-event-type': payload.type,
          'x-docs-installation-id': event.installation_id,
        },
        body: JSON.stringify(payload),
      });
    } catch (error) {
      job.signal.throwIfAborted();
      outcome = error as Error;
    }
    await inWrite(ctx, async (scope) => {
      await job.done(scope.db);
      if (!(await getIntegrationRow(scope.db, event.integration_name))) return;
      if (outcome instanceof Error) {
        await addLog(scope, event.id, 'error', `delivery failed: ${outcome.message}`);
        await setEventStatus(scope, event.id, 'failed');
      } else if (outcome.status >= 200 && outcome.status < 300) {
        await addLog(scope, event.id, 'info', `delivered to ${tunnel}: HTTP ${outcome.status}`);
        await applyTunnelAnswer(scope, event, outcome.body);
        await setEventStatus(scope, event.id, 'success');
      } else {
        await addLog(scope, event.id, 'error', `delivery failed: ${tunnel} answered HTTP ${outcome.status}`);
        await setEventStatus(scope, event.id, 'failed');
      }
    });
  },
  async fail(ctx, job, reason) {
    const event = await integrations.getEvent(ctx.db, job.payload.eventId);
    if (event?.status !== 'pending') return;
    await addLog(ctx, job.payload.eventId, 'error', `delivery failed: ${reason}`);
    await setEventStatus(ctx, job.payload.eventId, 'failed');
  },
};

// Rendering of blocks

/** Longest JSON a render request decompresses to (the request itself is at most 8192 characters). */
const MAX_RENDER_REQUEST_LENGTH = 256 * 1024;

/**
 * The element tree of a block for `request`, the URI-safe LZ-string encoding of `{"blockId": string, "props"?:
 * object}`: `{type: 'block', blockId, props, children: [{type: 'card', title, hint?, icon?, children:
 * [{type: 'markdown', content}]?}]}`, where `content` is the block's markdown body with `{{props.<path>}}` replaced.
 */
export function renderBlock(integration: IntegrationRow, request: string): Record<string, unknown> {
  const invalid = (why: string) => badRequest(`request: ${why}`);
  let text = '';
  let decoded: unknown;
  try {
    text = LZString.decompressFromEncodedURIComponent(request) ?? '';
    if (!text) throw new Error('empty');
    if (text.length <= MAX_RENDER_REQUEST_LENGTH) decoded = JSON.parse(text);
  } catch {
    throw invalid('not JSON compressed with lz-string (compressToEncodedURIComponent)');
  }
  if (text.length > MAX_RENDER_REQUEST_LENGTH) throw invalid(`decompresses to more than ${MAX_RENDER_REQUEST_LENGTH} characters`);
  // The props are echoed in the answer and substituted as JSON: the same bounds as a request body.
  const shape = jsonShapeProblem(decoded, { maxDepth: MAX_JSON_DEPTH, maxKeyLength: MAX_JSON_KEY_LENGTH }, 'request');
  if (shape !== undefined) throw badRequest(shape);
  if (typeof decoded !== 'object' || decoded === null || Array.isArray(decoded)) {
    throw invalid('expected {"blockId": string, "props"?: object}');
  }
  const { blockId, props = {} } = decoded as { blockId?: unknown; props?: unknown };
  if (typeof blockId !== 'string') throw invalid('blockId: expected a string');
  if (typeof props !== 'object' || props === null || Array.isArray(props)) throw invalid('props: expected an object');
  const blocks = fromJson<Model<'IntegrationBlock'>[]>(integration.blocks, []);
  const block = blocks.find((candidate) => candidate.id === blockId);
  if (!block) throw invalid(`the integration ${integration.name} has no block "${blockId}"`);

  const content = block.markdown ? substituteProps(block.markdown.body, props as Record<string, unknown>) : undefined;
  return {
    type: 'block',
    blockId,
    props,
    children: [
      {
        type: 'card',
        title: block.title,
        ...(block.description !== undefined ? { hint: block.description } : {}),
        ...(block.icon !== undefined ? { icon: block.icon } : {}),
        children: content !== undefined ? [{ type: 'markdown', content }] : [],
      },
    ],
  };
}

/** Replaces `{{props.a.b}}` with the prop's value: strings as they are, other values as JSON, missing ones by nothing. */
export function substituteProps(template: string, props: Record<string, unknown>): string {
  return template.replace(/\{\{\s*props\.([\w$-]+(?:\.[\w$-]+)*)\s*\}\}/g, (_match, path: string) => {
    let value: unknown = props;
    for (const key of path.split('.')) {
      value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
    }
    if (value === undefined || value === null) return '';
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}
