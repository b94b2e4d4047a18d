// OpenAPI specifications: creating or replacing a source queues its processing (the `openapi-process` job:
// fetch, parse, validate, store a version); versions are served as documents outside `/v1` at their `url`.
import type { Express, Request, Response } from 'express';
import { callerOfToken } from '../auth/caller.ts';
import { type AppContext, inRead } from '../context/context.ts';
import {
  createOpenAPISpec,
  deleteOpenAPISpec,
  openAPIAccess,
  openAPISpecAccess,
  openAPISpecVersionAccess,
  openAPISpecsPage,
  openAPISpecVersionsPage,
  presentOpenAPISpec,
  presentVersion,
  presentVersionContent,
  putOpenAPISpec,
  servedVersion,
  setOpenAPISpecVisibility,
} from '../domain/openapi.ts';
import { listId } from '../common/paging.ts';
import { bearerToken } from '../http/bearer-token.ts';
import type { HandlerGroup } from './types.ts';


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

export const openAPISpecHandlers: HandlerGroup<Operations> = {
  async listOpenAPISpecs({ params, query, caller }, ctx) {
    const access = await openAPIAccess(ctx, caller, params.organizationId);
    const page = await openAPISpecsPage(ctx, access, { list: listId('listOpenAPISpecs', params.organizationId), page: query.page, limit: query.limit });
    return { status: 200, body: { ...page, items: page.items.map((row) => presentOpenAPISpec(ctx, row, access.permissions)) } };
  },

  async createOpenAPISpec({ params, body, caller }, ctx) {
    const created = await createOpenAPISpec(ctx, caller, params.organizationId, { slug: body.slug, source: body.source });
    const spec = presentOpenAPISpec(ctx, created.spec, created.permissions);
    return { status: 201, body: spec, headers: { location: spec.urls.location } };
  },

  async getOpenAPISpec({ params, caller }, ctx) {
    const access = await openAPISpecAccess(ctx, caller, params.organizationId, params.specSlug);
    return { status: 200, body: presentOpenAPISpec(ctx, access.spec, access.permissions) };
  },

  async putOpenAPISpec({ params, body, caller }, ctx) {
    const { spec, permissions } = await putOpenAPISpec(ctx, caller, params.organizationId, params.specSlug, body.source);
    return { status: 200, body: presentOpenAPISpec(ctx, spec, permissions) };
  },

  async deleteOpenAPISpec({ params, caller }, ctx) {
    await deleteOpenAPISpec(ctx, caller, params.organizationId, params.specSlug);
    return { status: 204 };
  },

  async updateOpenAPISpec({ params, body, caller }, ctx) {
    const { spec, permissions } = await setOpenAPISpecVisibility(ctx, caller, params.organizationId, params.specSlug, body.visibility);
    return { status: 200, body: presentOpenAPISpec(ctx, spec, permissions) };
  },

  async listOpenAPISpecVersions({ params, query, caller }, ctx) {
    const { spec } = await openAPISpecAccess(ctx, caller, params.organizationId, params.specSlug);
    const page = await openAPISpecVersionsPage(ctx, spec, { list: listId('listOpenAPISpecVersions', spec.id), page: query.page, limit: query.limit });
    return { status: 200, body: { ...page, items: page.items.map((row) => presentVersion(ctx, spec, row)) } };
  },

  async getLatestOpenAPISpecVersion({ params, caller }, ctx) {
    const { spec, version } = await openAPISpecVersionAccess(ctx, caller, params.organizationId, params.specSlug, 'latest');
    return { status: 200, body: presentVersion(ctx, spec, version) };
  },

  async getLatestOpenAPISpecVersionContent({ params, caller }, ctx) {
    const { spec, version } = await openAPISpecVersionAccess(ctx, caller, params.organizationId, params.specSlug, 'latest');
    return { status: 200, body: presentVersionContent(ctx, spec, version) };
  },

  async getOpenAPISpecVersion({ params, caller }, ctx) {
    const { spec, version } = await openAPISpecVersionAccess(ctx, caller, params.organizationId, params.specSlug, params.versionId);
    return { status: 200, body: presentVersion(ctx, spec, version) };
  },

  async getOpenAPISpecVersionContent({ params, caller }, ctx) {
    const { spec, version } = await openAPISpecVersionAccess(ctx, caller, params.organizationId, params.specSlug, params.versionId);
    return { status: 200, body: presentVersionContent(ctx, spec, version) };
  },
};

/**
 * Serves the documents of a spec as written: `/openapi/{organizationId}/{specSlug}` (the latest version, the spec's
 * `urls.published`) and `/openapi/{organizationId}/{specSlug}/versions/{versionId}` (a version's `url`). A public
 * spec's documents need no token; a private one's need the Bearer token of a member who may view it.
 */
export function openAPISpecRoutes(app: AppContext, express: Express): void {
  // The kind of these requests' reads (ReadOptions.kind).
  const kind = {};
  const serve = async (req: Request, res: Response) => {
    const { organizationId, specSlug, versionId } = req.params as Record<string, string>;
    const served = await inRead(
      app,
      (ctx) =>
        servedVersion(ctx, organizationId!, specSlug!, versionId ?? 'latest', async () => {
          const token = bearerToken(req);
          return token ? await callerOfToken(ctx, token) : undefined;
        }),
      { kind },
    );
    res.type(served.contentType).send(served.text);
  };
  express.get('/openapi/:organizationId/:specSlug', serve);
  express.get('/openapi/:organizationId/:specSlug/versions/:versionId', serve);
}
