// OpenAPI specifications: creating or replacing a source queues its processing (the `openapi-process` job:
// fetch, parse, validate, store a version); versions are served as documents outside `/v1` at their `url`.
import type { Express, Request, Response } from 'express';
import { callerOfToken } from '../auth/caller.ts';
import { membershipOf } from '../auth/roles.ts';
import { type AppContext, inWrite, reading, type Scope } from '../context.ts';
import type { Input } from '../domain/contract.ts';
import { newId } from '../domain/ids.ts';
import {
  getSpecBySlug,
  getSpecRow,
  OPENAPI_SPEC_VISIBILITIES,
  openAPIAccess,
  openAPISpecAccess,
  openAPISpecPermissions,
  type OpenAPISpecRow,
  type OpenAPISpecVersionRow,
  parseOpenAPISpecRow,
  presentOpenAPISpec,
  presentVersion,
  presentVersionContent,
  PROCESS_JOB,
  recordProcessing,
  requireOpenAPISpec,
  requireVersion,
  specResource,
  stateAfterQueueing,
} from '../domain/openapi.ts';
import { fetchSourceText, OpenAPISourceError, parseSpecText } from '../domain/openapi-source.ts';
import { listId } from '../domain/paging.ts';
import { badRequest, conflict, notFound, unauthorized } from '../errors.ts';
import { bearerToken } from './bearer-token.ts';
import type { HandlerGroup } from './types.ts';
import { enqueue, type JobRunner } from '../jobs/runner.ts';
import * as openapi from '../store/openapi.ts';

type Operations =
  | 'listOpenAPISpecs'
  | 'createOpenAPISpec'
  | 'getOpenAPISpec'
  | 'putOpenAPISpec'
  | 'deleteOpenAPISpec'
  | 'updateOpenAPISpec'
  | 'listOpenAPISpecVersions'
  | 'getLatestOpenAPISpecVersion'
  | 'getLatestOpenAPISpecVersionContent'
  | 'getOpenAPISpecVersion'
  | 'getOpenAPISpecVersionContent';

type Source = Input<'OpenAPISpecSource'>;
type ProcessPayload = { specId: string; source: Source };

function checkSource(source: Source): void {
  if (!('url' in source)) return;
  const protocol = URL.canParse(source.url) ? new URL(source.url).protocol : '';
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw badRequest('source.url: only http and https addresses can be fetched');
  }
}

/** Queues the processing of `source` (inside the request's write) and records the source on the spec. */
async function queueProcessing(ctx: Scope, specId: string, source: Source): Promise<void> {
  const now = ctx.now();
  await enqueue(ctx, { kind: PROCESS_JOB, resource: specResource(specId), payload: { specId, source }, createdAt: now });
  await openapi.update(ctx.db, specId, {
    source_url: 'url' in source ? source.url : null,
    processing_state: await stateAfterQueueing(ctx.db, specId),
    updated_at: now,
  });
}

async function insertSpec(ctx: Scope, organizationId: string, slug: string): Promise<string> {
  const id = newId();
  const now = ctx.now();
  await openapi.insert(ctx.db, { id, organization_id: organizationId, slug, created_at: now, updated_at: now });
  return id;
}

export const openAPISpecHandlers: HandlerGroup<Operations> = {
  async listOpenAPISpecs({ params, query, caller }, ctx) {
    const access = await openAPIAccess(ctx, caller, params.organizationId);
    requireOpenAPISpec(access.permissions, 'view');
    const page = await ctx.cursors.page({
      list: listId('listOpenAPISpecs', params.organizationId),
      page: query.page,
      limit: query.limit,
      key: (row: OpenAPISpecRow) => [row.created_at, row.id],
      count: () => openapi.count(ctx.db, params.organizationId),
      fetch: async (key, limit) => (await openapi.page(ctx.db, params.organizationId, key, limit)).map(parseOpenAPISpecRow),
    });
    return { status: 200, body: { ...page, items: page.items.map((row) => presentOpenAPISpec(ctx, row, access.permissions)) } };
  },

  async createOpenAPISpec({ params, body, caller }, ctx) {
    const access = await openAPIAccess(ctx, caller, params.organizationId);
    requireOpenAPISpec(access.permissions, 'edit');
    checkSource(body.source);
    if (await getSpecBySlug(ctx.db, params.organizationId, body.slug)) {
      throw conflict(`slug: an OpenAPI specification "${body.slug}" already exists in this organization`);
    }
    const id = await insertSpec(ctx, params.organizationId, body.slug);
    await queueProcessing(ctx, id, body.source);
    const spec = presentOpenAPISpec(ctx, (await getSpecRow(ctx.db, id))!, access.permissions);
    return { status: 201, body: spec, headers: { location: spec.urls.location } };
  },

  async getOpenAPISpec({ params, caller }, ctx) {
    const access = await openAPISpecAccess(ctx, caller, params.organizationId, params.specSlug);
    return { status: 200, body: presentOpenAPISpec(ctx, access.spec, access.permissions) };
  },

  async putOpenAPISpec({ params, body, caller }, ctx) {
    const access = await openAPIAccess(ctx, caller, params.organizationId);
    requireOpenAPISpec(access.permissions, 'edit');
    checkSource(body.source);
    const id = (await getSpecBySlug(ctx.db, params.organizationId, params.specSlug))?.id ?? (await insertSpec(ctx, params.organizationId, params.specSlug));
    await queueProcessing(ctx, id, body.source);
    return { status: 200, body: presentOpenAPISpec(ctx, (await getSpecRow(ctx.db, id))!, access.permissions) };
  },

  async deleteOpenAPISpec({ params, caller }, ctx) {
    const access = await openAPIAccess(ctx, caller, params.organizationId);
    const spec = await getSpecBySlug(ctx.db, params.organizationId, params.specSlug);
    if (!spec) return { status: 204 };
    requireOpenAPISpec(access.permissions, 'edit');
    // Its versions go with it; a processing still queued finds nothing to do.
    await openapi.remove(ctx.db, spec.id);
    return { status: 204 };
  },

  async updateOpenAPISpec({ params, body, caller }, ctx) {
    const access = await openAPISpecAccess(ctx, caller, params.organizationId, params.specSlug);
    requireOpenAPISpec(access.permissions, 'edit');
    await openapi.update(ctx.db, access.spec.id, { visibility: body.visibility, updated_at: ctx.now() });
    return { status: 200, body: presentOpenAPISpec(ctx, (await getSpecRow(ctx.db, access.spec.id))!, access.permissions) };
  },

  async listOpenAPISpecVersions({ params, query, caller }, ctx) {
    const { spec } = await openAPISpecAccess(ctx, caller, params.organizationId, params.specSlug);
    const page = await ctx.cursors.page({
      list: listId('listOpenAPISpecVersions', spec.id),
      page: query.page,
      limit: query.limit,
      key: (row: OpenAPISpecVersionRow) => [row.number],
      count: () => openapi.countVersions(ctx.db, spec.id),
      fetch: (key, limit) => openapi.pageOfVersions(ctx.db, spec.id, key, limit),
    });
    return { status: 200, body: { ...page, items: page.items.map((row) => presentVersion(ctx, spec, row)) } };
  },

  async getLatestOpenAPISpecVersion({ params, caller }, ctx) {
    const { spec } = await openAPISpecAccess(ctx, caller, params.organizationId, params.specSlug);
    return { status: 200, body: presentVersion(ctx, spec, await requireVersion(ctx.db, spec, 'latest')) };
  },

  async getLatestOpenAPISpecVersionContent({ params, caller }, ctx) {
    const { spec } = await openAPISpecAccess(ctx, caller, params.organizationId, params.specSlug);
    return { status: 200, body: presentVersionContent(ctx, spec, await requireVersion(ctx.db, spec, 'latest')) };
  },

  async getOpenAPISpecVersion({ params, caller }, ctx) {
    const { spec } = await openAPISpecAccess(ctx, caller, params.organizationId, params.specSlug);
    return { status: 200, body: presentVersion(ctx, spec, await requireVersion(ctx.db, spec, params.versionId)) };
  },

  async getOpenAPISpecVersionContent({ params, caller }, ctx) {
    const { spec } = await openAPISpecAccess(ctx, caller, params.organizationId, params.specSlug);
    return { status: 200, body: presentVersionContent(ctx, spec, await requireVersion(ctx.db, spec, params.versionId)) };
  },
};

/** Registers the background work of this group with the job runner. */
export function registerOpenAPIJobs(runner: JobRunner): void {
  runner.register<ProcessPayload>(PROCESS_JOB, {
    // Processing only reads its source until it records the outcome: after a restart it simply starts again.
    resumable: true,
    async run(ctx, { payload: { specId, source }, signal, done }) {
      const found = await inWrite(ctx, (scope) => openapi.update(scope.db, specId, { processing_state: 'progress' }));
      if (!found) return; // deleted meanwhile
      // Fetched and parsed outside any transaction; the outcome is recorded in a write of its own, which the job's
      // lease guards (a processing taken over by another instance records nothing here), and which ends the job.
      let outcome: Parameters<typeof recordProcessing>[2];
      try {
        const text = 'url' in source ? await fetchSourceText(ctx, source.url, signal) : source.text;
        outcome = { parsed: await parseSpecText(text) };
      } catch (error) {
        if (!(error instanceof OpenAPISourceError)) throw error;
        ctx.log.info({ spec: specId, code: error.code, reason: error.message }, 'OpenAPI specification not processed');
        outcome = { error: error.code };
      }
      await inWrite(ctx, async (scope) => {
        await recordProcessing(scope, specId, outcome);
        await done(scope.db);
      });
    },
    fail(ctx, { payload: { specId, source } }) {
      return recordProcessing(ctx, specId, { error: 'url' in source ? 'FETCH_ERROR' : 'PARSE_ERROR' });
    },
  });
}

/**
 * Serves the documents of a spec as written: `/openapi/{organizationId}/{specSlug}` (the latest version, the spec's
 * `urls.published`) and `/openapi/{organizationId}/{specSlug}/versions/{versionId}` (a version's `url`). A public
 * spec's documents need no token; a private one's need the Bearer token of a member who may view it.
 */
export function openAPISpecRoutes(app: AppContext, express: Express): void {
  const ctx = reading(app);
  const serve = async (req: Request, res: Response) => {
    const { organizationId, specSlug, versionId } = req.params as Record<string, string>;
    const spec = await getSpecBySlug(ctx.db, organizationId!, specSlug!);
    if (!spec || !OPENAPI_SPEC_VISIBILITIES[spec.visibility].open) {
      const token = bearerToken(req);
      const caller = token ? await callerOfToken(ctx, token) : undefined;
      if (!caller) throw unauthorized('Authorization: a valid Bearer token is required for a private specification');
      const membership = await membershipOf(ctx.db, caller.user.id, organizationId!);
      if (!membership || !spec) throw notFound(`OpenAPI specification ${specSlug}`);
      requireOpenAPISpec(openAPISpecPermissions(membership), 'view');
    }
    const served = await requireVersion(ctx.db, spec!, versionId ?? 'latest');
    res.type(served.content_type).send(served.text);
  };
  express.get('/openapi/:organizationId/:specSlug', serve);
  express.get('/openapi/:organizationId/:specSlug/versions/:versionId', serve);
}
