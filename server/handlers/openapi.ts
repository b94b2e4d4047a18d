// OpenAPI specifications: creating or replacing a source queues its processing (the `openapi-process` job:
// fetch, parse, validate, store a version); versions are served as documents outside `/v1` at their `url`.
import type { Express, Request, Response } from 'express';
import { callerOfToken } from '../auth/caller.ts';
import { membershipOf } from '../auth/roles.ts';
import type { AppContext } from '../context.ts';
import { newId } from '../domain/ids.ts';
import {
  getSpecBySlug,
  OPENAPI_SPEC_VISIBILITIES,
  parseOpenAPISpecRow,
  getSpecRow,
  openAPIAccess,
  openAPISpecAccess,
  openAPISpecPermissions,
  type OpenAPISpecRow,
  type OpenAPISpecVersionRow,
  presentOpenAPISpec,
  presentVersion,
  presentVersionContent,
  PROCESS_JOB,
  recordProcessing,
  requireVersion,
  requireOpenAPISpec,
  specResource,
  stateAfterQueueing,
} from '../domain/openapi.ts';
import { fetchSourceText, OpenAPISourceError, parseSpecText } from '../domain/openapi-source.ts';
import { badRequest, conflict, notFound, unauthorized } from '../http/errors.ts';
import { after, listId } from '../http/pagination.ts';
import type { HandlerGroup, Input } from '../http/types.ts';
import { enqueue } from '../jobs/runner.ts';
import { bearerToken } from '../app.ts';

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

export function openAPISpecHandlers(ctx: AppContext): HandlerGroup<Operations> {
  const { db } = ctx;

  const checkSource = (source: Source) => {
    if (!('url' in source)) return;
    const protocol = URL.canParse(source.url) ? new URL(source.url).protocol : '';
    if (protocol !== 'http:' && protocol !== 'https:') {
      throw badRequest('source.url: only http and https addresses can be fetched');
    }
  };

  /** Queues the processing of `source` (inside the request's write) and records the source on the spec. */
  const queueProcessing = (specId: string, source: Source) => {
    const now = ctx.now();
    enqueue(db, { kind: PROCESS_JOB, resource: specResource(specId), payload: { specId, source }, createdAt: now });
    db.prepare('UPDATE openapi_specs SET source_url = ?, processing_state = ?, updated_at = ? WHERE id = ?').run(
      'url' in source ? source.url : null,
      stateAfterQueueing(db, specId),
      now,
      specId,
    );
  };

  const insertSpec = (organizationId: string, slug: string) => {
    const id = newId();
    const now = ctx.now();
    db.prepare(
      `INSERT INTO openapi_specs (id, organization_id, slug, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
    ).run(id, organizationId, slug, now, now);
    return id;
  };

  return {
    listOpenAPISpecs({ params, query, caller }) {
      const access = openAPIAccess(ctx, caller, params.organizationId);
      requireOpenAPISpec(access.permissions, 'view');
      const page = ctx.cursors.page({
        list: listId('listOpenAPISpecs', params.organizationId),
        page: query.page,
        limit: query.limit,
        key: (row: OpenAPISpecRow) => [row.created_at, row.id],
        count: () =>
          (
            db.prepare('SELECT COUNT(*) AS n FROM openapi_specs WHERE organization_id = ?').get(params.organizationId) as {
              n: number;
            }
          ).n,
        fetch: (key, limit) =>
          db
            .prepare(
              `SELECT * FROM openapi_specs WHERE organization_id = ? ${key ? `AND ${after(['created_at', 'id'])}` : ''}
               ORDER BY created_at, id LIMIT ?`,
            )
            .all(params.organizationId, ...(key ?? []), limit)
            .map(parseOpenAPISpecRow),
      });
      return {
        status: 200,
        body: { ...page, items: page.items.map((row) => presentOpenAPISpec(ctx, row, access.permissions)) },
      };
    },

    createOpenAPISpec({ params, body, caller }) {
      const access = openAPIAccess(ctx, caller, params.organizationId);
      requireOpenAPISpec(access.permissions, 'edit');
      checkSource(body.source);
      if (getSpecBySlug(db, params.organizationId, body.slug)) {
        throw conflict(`slug: an OpenAPI specification "${body.slug}" already exists in this organization`);
      }
      const id = insertSpec(params.organizationId, body.slug);
      queueProcessing(id, body.source);
      const spec = presentOpenAPISpec(ctx, getSpecRow(db, id)!, access.permissions);
      return { status: 201, body: spec, headers: { location: spec.urls.location } };
    },

    getOpenAPISpec({ params, caller }) {
      const access = openAPISpecAccess(ctx, caller, params.organizationId, params.specSlug);
      return { status: 200, body: presentOpenAPISpec(ctx, access.spec, access.permissions) };
    },

    putOpenAPISpec({ params, body, caller }) {
      const access = openAPIAccess(ctx, caller, params.organizationId);
      requireOpenAPISpec(access.permissions, 'edit');
      checkSource(body.source);
      const id = getSpecBySlug(db, params.organizationId, params.specSlug)?.id ?? insertSpec(params.organizationId, params.specSlug);
      queueProcessing(id, body.source);
      return { status: 200, body: presentOpenAPISpec(ctx, getSpecRow(db, id)!, access.permissions) };
    },

    deleteOpenAPISpec({ params, caller }) {
      const access = openAPIAccess(ctx, caller, params.organizationId);
      const spec = getSpecBySlug(db, params.organizationId, params.specSlug);
      if (!spec) return { status: 204 };
      requireOpenAPISpec(access.permissions, 'edit');
      // Its versions go with it; a processing still queued finds nothing to do.
      db.prepare('DELETE FROM openapi_specs WHERE id = ?').run(spec.id);
      return { status: 204 };
    },

    updateOpenAPISpec({ params, body, caller }) {
      const access = openAPISpecAccess(ctx, caller, params.organizationId, params.specSlug);
      requireOpenAPISpec(access.permissions, 'edit');
      db.prepare('UPDATE openapi_specs SET visibility = ?, updated_at = ? WHERE id = ?').run(
        body.visibility,
        ctx.now(),
        access.spec.id,
      );
      return { status: 200, body: presentOpenAPISpec(ctx, getSpecRow(db, access.spec.id)!, access.permissions) };
    },

    listOpenAPISpecVersions({ params, query, caller }) {
      const { spec } = openAPISpecAccess(ctx, caller, params.organizationId, params.specSlug);
      const page = ctx.cursors.page({
        list: listId('listOpenAPISpecVersions', spec.id),
        page: query.page,
        limit: query.limit,
        key: (row: OpenAPISpecVersionRow) => [row.number],
        count: () =>
          (db.prepare('SELECT COUNT(*) AS n FROM openapi_spec_versions WHERE spec_id = ?').get(spec.id) as { n: number }).n,
        fetch: (key, limit) =>
          db
            .prepare(
              `SELECT * FROM openapi_spec_versions WHERE spec_id = ? ${key ? `AND ${after(['number'], 'desc')}` : ''}
               ORDER BY number DESC LIMIT ?`,
            )
            .all(spec.id, ...(key ?? []), limit) as OpenAPISpecVersionRow[],
      });
      return { status: 200, body: { ...page, items: page.items.map((row) => presentVersion(ctx, spec, row)) } };
    },

    getLatestOpenAPISpecVersion({ params, caller }) {
      const { spec } = openAPISpecAccess(ctx, caller, params.organizationId, params.specSlug);
      return { status: 200, body: presentVersion(ctx, spec, requireVersion(db, spec, 'latest')) };
    },

    getLatestOpenAPISpecVersionContent({ params, caller }) {
      const { spec } = openAPISpecAccess(ctx, caller, params.organizationId, params.specSlug);
      return { status: 200, body: presentVersionContent(ctx, spec, requireVersion(db, spec, 'latest')) };
    },

    getOpenAPISpecVersion({ params, caller }) {
      const { spec } = openAPISpecAccess(ctx, caller, params.organizationId, params.specSlug);
      return { status: 200, body: presentVersion(ctx, spec, requireVersion(db, spec, params.versionId)) };
    },

    getOpenAPISpecVersionContent({ params, caller }) {
      const { spec } = openAPISpecAccess(ctx, caller, params.organizationId, params.specSlug);
      return { status: 200, body: presentVersionContent(ctx, spec, requireVersion(db, spec, params.versionId)) };
    },
  };
}

/** Registers the background work of this group with the job runner. */
export function registerOpenAPIJobs(ctx: AppContext): void {
  ctx.jobs.register<ProcessPayload>(PROCESS_JOB, {
    // Processing only reads its source until it records the outcome: after a restart it simply starts again.
    resumable: true,
    async run(jobCtx, { payload: { specId, source } }) {
      const found = await jobCtx.store.write(() => {
        const changed = jobCtx.db
          .prepare(`UPDATE openapi_specs SET processing_state = 'progress' WHERE id = ?`)
          .run(specId).changes;
        return changed > 0;
      });
      if (!found) return; // deleted meanwhile
      let outcome: Parameters<typeof recordProcessing>[2];
      try {
        const text = 'url' in source ? await fetchSourceText(jobCtx, source.url) : source.text;
        outcome = { parsed: await parseSpecText(text) };
      } catch (error) {
        if (!(error instanceof OpenAPISourceError)) throw error;
        jobCtx.log.info({ spec: specId, code: error.code, reason: error.message }, 'OpenAPI specification not processed');
        outcome = { error: error.code };
      }
      await jobCtx.store.write(() => recordProcessing(jobCtx, specId, outcome));
    },
    fail(jobCtx, { payload: { specId, source } }) {
      recordProcessing(jobCtx, specId, { error: 'url' in source ? 'FETCH_ERROR' : 'PARSE_ERROR' });
    },
  });
}

/**
 * Serves the documents of a spec as written: `/openapi/{organizationId}/{specSlug}` (the latest version, the spec's
 * `urls.published`) and `/openapi/{organizationId}/{specSlug}/versions/{versionId}` (a version's `url`). A public
 * spec's documents need no token; a private one's need the Bearer token of a member who may view it.
 */
export function openAPISpecRoutes(ctx: AppContext, app: Express): void {
  const serve = (req: Request, res: Response) => {
    const { organizationId, specSlug, versionId } = req.params as Record<string, string>;
    const spec = getSpecBySlug(ctx.db, organizationId!, specSlug!);
    if (!spec || !OPENAPI_SPEC_VISIBILITIES[spec.visibility].open) {
      const token = bearerToken(req);
      const caller = token ? callerOfToken(ctx.db, token) : undefined;
      if (!caller) throw unauthorized('Authorization: a valid Bearer token is required for a private specification');
      const membership = membershipOf(ctx.db, caller.user.id, organizationId!);
      if (!membership || !spec) throw notFound(`OpenAPI specification ${specSlug}`);
      requireOpenAPISpec(openAPISpecPermissions(membership), 'view');
    }
    const served = requireVersion(ctx.db, spec!, versionId ?? 'latest');
    res.type(served.content_type).send(served.text);
  };
  app.get('/openapi/:organizationId/:specSlug', serve);
  app.get('/openapi/:organizationId/:specSlug/versions/:versionId', serve);
}
