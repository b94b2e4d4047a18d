// The events of integrations' installations: recorded with the trace of their handling, and in development mode
// delivered to the integration's tunnel by a background job, whose answer may update the installation.
import { inWrite, reading, type Scope } from '../context/context.ts';
import type { Model } from '../common/contract.ts';
import { jsonShapeProblem, MAX_JSON_DEPTH, MAX_JSON_KEY_LENGTH } from '../common/json-limits.ts';
import { enqueue, type JobKind, type JobRunner } from '../jobs/runner.ts';
import { outboundFor } from '../net/outbound.ts';
import { fromJson, toJson } from '../store/db.ts';
import * as integrations from '../store/integrations.ts';
import { newId } from '../common/ids.ts';
import { type EventRow, getIntegrationRow, type InstallationRow, type IntegrationRow, parseEventRow } from './integrations.ts';

type LogLevel = Model<'IntegrationEventLog'>['level'];

export const EVENT_DELIVERY_JOB = 'integration-event-delivery';

/** Largest answer of a tunnel read back. */
const TUNNEL_ANSWER_MAX_BYTES = 1024 * 1024;
/** Most external ids, and most configuration entries, a tunnel's answer can give an installation. */
const MAX_EXTERNAL_IDS = 100;
const MAX_CONFIGURATION_ENTRIES = 100;

function addLog(ctx: Scope, eventId: string, level: LogLevel, message: string): Promise<void> {
  return integrations.addLog(ctx.db, { eventId: eventId, message, level, timestamp: ctx.now() });
}

function setEventStatus(ctx: Scope, eventId: string, status: EventRow['status']): Promise<void> {
  return integrations.setEventStatus(ctx.db, eventId, status);
}

/** Whether development mode forwards the events of this installation to the tunnel. */
const forwards = (integration: IntegrationRow, installation: InstallationRow) =>
  integration.devTunnelUrl !== null &&
  (integration.devAll === 1 || installation.organizationId === integration.organizationId);

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
    integrationName: integration.name,
    installationId: installation.id,
    organizationId: installation.organizationId,
    createdAt: ctx.now(),
    payload: toJson(payload),
    status: delivered ? 'pending' : 'success',
  });
  await addLog(ctx, id, 'debug', `${event.type} event of installation ${installation.id} (organization ${installation.organizationId})`);
  if (delivered) {
    await addLog(ctx, id, 'info', `queued for delivery to the development tunnel ${integration.devTunnelUrl}`);
    await enqueue(ctx, {
      kind: EVENT_DELIVERY_JOB,
      resource: `integration:${integration.name}`,
      payload: { eventId: id },
      createdAt: ctx.now(),
    });
  } else if (integration.devTunnelUrl !== null) {
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
export function installationUpdate(answer: unknown): { externalIds?: string[]; configuration?: Record<string, unknown> } | string | undefined {
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
  await integrations.updateInstallation(ctx.db, event.installationId, {
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
    const stored = await integrations.getEvent(db, job.payload.eventId);
    const event = stored === undefined ? undefined : parseEventRow(stored);
    if (!event || event.status !== 'pending') return; // unpublished since, or already handled
    const integration = (await getIntegrationRow(db, event.integrationName))!;
    const tunnel = integration.devTunnelUrl;
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
          'x-docs-installation-id': event.installationId,
        },
        body: JSON.stringify(payload),
      });
    } catch (error) {
      job.signal.throwIfAborted();
      outcome = error as Error;
    }
    await inWrite(ctx, async (scope) => {
      await job.done(scope.db);
      if (!(await getIntegrationRow(scope.db, event.integrationName))) return;
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

/** Registers the background work of integrations with the job runner. */
export function registerIntegrationJobs(runner: JobRunner): void {
  runner.register(EVENT_DELIVERY_JOB, eventDeliveryJob);
}
