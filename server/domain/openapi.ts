// OpenAPI specifications: rows, the caller's permissions, creating, replacing and deleting specs, how the API shows
// specs and versions, and their processing (the `openapi-process` job: fetch, parse, validate, store a version).
import type { Caller } from '../auth/caller.ts';
import { atLeast, type Membership, membershipOf } from '../auth/roles.ts';
import { type AppContext, inWrite, type Scope } from '../context/context.ts';
import { badRequest, conflict, forbidden, notFound, unauthorized } from '../common/errors.ts';
import type { Input, Model } from '../common/contract.ts';
import { enqueue, type JobRunner } from '../jobs/runner.ts';
import { type Db, fromJson } from '../store/db.ts';
import { queueState } from '../store/jobs.ts';
import * as openapi from '../store/openapi.ts';
import { newId } from '../common/ids.ts';
import { rowParser } from '../store/enums.ts';
import { fetchSourceText, OpenAPISourceError, type ParsedSpec, parseSpecText, type ProcessErrorCode } from './openapi-source.ts';
import { organizationAccess, organizationPermissions, type OrganizationAccess } from './organizations.ts';
import type { Page } from '../common/paging.ts';
import type { Row } from '../store/schema.ts';

/** Per `OpenAPISpecVisibility`: whether the spec's documents are served to anyone, without a token. */
export const OPENAPI_SPEC_VISIBILITIES = {
  public: { open: true },
  private: { open: false },
} satisfies Record<Model<'OpenAPISpecVisibility'>, { open: boolean }>;

export type OpenAPISpecRow = Row<'openapi_specs', {
  visibility: Model<'OpenAPISpecVisibility'>;
  processingState: Model<'OpenAPISpecProcessingState'>;
  lastProcessErrorCode: ProcessErrorCode | null;
}>;

/** An `openapi_specs` row checked: its visibility is one of the contract's. */
export const parseOpenAPISpecRow = rowParser<OpenAPISpecRow>('openapi_specs', { visibility: OPENAPI_SPEC_VISIBILITIES });

export type OpenAPISpecVersionRow = Row<'openapi_spec_versions'>;

export type OpenAPISpecPermissions = Model<'OpenAPISpecPermissions'>;

/** The job kind that processes a spec, and the resource its jobs are queued under (one at a time, in order). */
export const PROCESS_JOB = 'openapi-process';
export const specResource = (specId: string) => `openapi:${specId}`;

/** What a member may do with the organization's specs: view from `read`, edit with `createOpenAPISpec`. */
export function openAPISpecPermissions(membership: Membership | undefined): OpenAPISpecPermissions {
  return {
    view: membership !== undefined && atLeast(membership.role, 'read'),
    edit: organizationPermissions(membership).createOpenAPISpec,
  };
}

export function requireOpenAPISpec(permissions: OpenAPISpecPermissions, permission: keyof OpenAPISpecPermissions): void {
  if (!permissions[permission]) {
    throw forbidden(`this operation needs the ${permission} permission on the organization's OpenAPI specifications`);
  }
}

export async function getSpecBySlug(db: Db, organizationId: string, slug: string): Promise<OpenAPISpecRow | undefined> {
  const row = await openapi.getBySlug(db, organizationId, slug);
  return row === undefined ? undefined : parseOpenAPISpecRow(row);
}

export async function getSpecRow(db: Db, id: string): Promise<OpenAPISpecRow | undefined> {
  const row = await openapi.get(db, id);
  return row === undefined ? undefined : parseOpenAPISpecRow(row);
}

export interface OpenAPIAccess {
  organization: OrganizationAccess;
  permissions: OpenAPISpecPermissions;
}

/** The organization's specs as the caller may use them: 404 outside the organization, 403 without `view`. */
export async function openAPIAccess(ctx: Scope, caller: Caller, organizationId: string): Promise<OpenAPIAccess> {
  const organization = await organizationAccess(ctx, caller, organizationId);
  const permissions = openAPISpecPermissions(organization.membership);
  return { organization, permissions };
}

/** A spec the caller may view: 404 when unknown, 403 without `view`. */
export async function openAPISpecAccess(
  ctx: Scope,
  caller: Caller,
  organizationId: string,
  slug: string,
): Promise<OpenAPIAccess & { spec: OpenAPISpecRow }> {
  // Read together (one round trip on PostgreSQL); the organization's refusals first.
  const [access, spec] = await Promise.all([openAPIAccess(ctx, caller, organizationId), getSpecBySlug(ctx.db, organizationId, slug)]);
  if (!spec) throw notFound(`OpenAPI specification ${slug}`);
  requireOpenAPISpec(access.permissions, 'view');
  return { ...access, spec };
}

type Source = Input<'OpenAPISpecSource'>;
type ProcessPayload = { specId: string; source: Source };

/** Where a list is and which page of it: `list` identifies the list in its cursors. */
interface PageRequest {
  list: string;
  page?: string;
  limit?: number;
}

/** A page of the organization's specs, oldest first; 403 without `view`. */
export async function openAPISpecsPage(ctx: Scope, access: OpenAPIAccess, request: PageRequest): Promise<Page<OpenAPISpecRow>> {
  requireOpenAPISpec(access.permissions, 'view');
  const organizationId = access.organization.organization.id;
  return ctx.cursors.page({
    list: request.list,
    page: request.page,
    limit: request.limit,
    key: (row: OpenAPISpecRow) => [row.createdAt, row.id],
    count: () => openapi.count(ctx.db, organizationId),
    fetch: async (key, limit) => (await openapi.page(ctx.db, organizationId, key, limit)).map(parseOpenAPISpecRow),
  });
}

/** Creates the spec `slug` (a member with `edit`; 409 when the slug is taken) and queues the processing of its source. */
export async function createOpenAPISpec(
  ctx: Scope,
  caller: Caller,
  organizationId: string,
  spec: { slug: string; source: Source },
): Promise<OpenAPIAccess & { spec: OpenAPISpecRow }> {
  const access = await openAPIAccess(ctx, caller, organizationId);
  requireOpenAPISpec(access.permissions, 'edit');
  checkSource(spec.source);
  if (await getSpecBySlug(ctx.db, organizationId, spec.slug)) {
    throw conflict(`slug: an OpenAPI specification "${spec.slug}" already exists in this organization`);
  }
  const id = await insertSpec(ctx, organizationId, spec.slug);
  await queueProcessing(ctx, id, spec.source);
  return { ...access, spec: (await getSpecRow(ctx.db, id))! };
}

/** Creates the spec `slug` or replaces its source (a member with `edit`), and queues the processing of the source. */
export async function putOpenAPISpec(
  ctx: Scope,
  caller: Caller,
  organizationId: string,
  slug: string,
  source: Source,
): Promise<OpenAPIAccess & { spec: OpenAPISpecRow }> {
  const access = await openAPIAccess(ctx, caller, organizationId);
  requireOpenAPISpec(access.permissions, 'edit');
  checkSource(source);
  const id = (await getSpecBySlug(ctx.db, organizationId, slug))?.id ?? (await insertSpec(ctx, organizationId, slug));
  await queueProcessing(ctx, id, source);
  return { ...access, spec: (await getSpecRow(ctx.db, id))! };
}

/** Deletes the spec (a member with `edit`); an unknown one is no error. */
export async function deleteOpenAPISpec(ctx: Scope, caller: Caller, organizationId: string, slug: string): Promise<void> {
  const access = await openAPIAccess(ctx, caller, organizationId);
  const spec = await getSpecBySlug(ctx.db, organizationId, slug);
  if (!spec) return;
  requireOpenAPISpec(access.permissions, 'edit');
  // Its versions go with it; a processing still queued finds nothing to do.
  await openapi.remove(ctx.db, spec.id);
}

/** Changes who the spec's documents are served to (a member with `edit`). */
export async function setOpenAPISpecVisibility(
  ctx: Scope,
  caller: Caller,
  organizationId: string,
  slug: string,
  visibility: Model<'OpenAPISpecVisibility'>,
): Promise<OpenAPIAccess & { spec: OpenAPISpecRow }> {
  const access = await openAPISpecAccess(ctx, caller, organizationId, slug);
  requireOpenAPISpec(access.permissions, 'edit');
  await openapi.update(ctx.db, access.spec.id, { visibility, updatedAt: ctx.now() });
  return { ...access, spec: (await getSpecRow(ctx.db, access.spec.id))! };
}

/** A page of the spec's versions, by number. */
export function openAPISpecVersionsPage(ctx: Scope, spec: OpenAPISpecRow, request: PageRequest): Promise<Page<OpenAPISpecVersionRow>> {
  return ctx.cursors.page({
    list: request.list,
    page: request.page,
    limit: request.limit,
    key: (row: OpenAPISpecVersionRow) => [row.number],
    count: () => openapi.countVersions(ctx.db, spec.id),
    fetch: (key, limit) => openapi.pageOfVersions(ctx.db, spec.id, key, limit),
  });
}

/** A source's `url` is fetched by the server: an http or https address only. */
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
    sourceUrl: 'url' in source ? source.url : null,
    processingState: await stateAfterQueueing(ctx.db, specId),
    updatedAt: now,
  });
}

async function insertSpec(ctx: Scope, organizationId: string, slug: string): Promise<string> {
  const id = newId();
  const now = ctx.now();
  await openapi.insert(ctx.db, { id, organizationId: organizationId, slug, createdAt: now, updatedAt: now });
  return id;
}

export function getVersionRow(db: Db, spec: OpenAPISpecRow, versionId: string): Promise<OpenAPISpecVersionRow | undefined> {
  return openapi.getVersion(db, spec.id, versionId);
}

/** A version of the spec, or its latest one (`latest`); 404 when there is none (yet). */
export async function requireVersion(db: Db, spec: OpenAPISpecRow, versionId: string | 'latest'): Promise<OpenAPISpecVersionRow> {
  const id = versionId === 'latest' ? spec.lastVersionId : versionId;
  return versionFound(spec, versionId, id ? await getVersionRow(db, spec, id) : undefined);
}

/**
 * A version (or the latest) of a spec the caller may view, read with the spec and the caller's access (one round trip
 * on PostgreSQL): `openAPISpecAccess`'s refusals first, then 404 when there is no such version (yet).
 */
export async function openAPISpecVersionAccess(
  ctx: Scope,
  caller: Caller,
  organizationId: string,
  slug: string,
  versionId: string | 'latest',
): Promise<{ spec: OpenAPISpecRow; version: OpenAPISpecVersionRow }> {
  const [{ spec }, version] = await Promise.all([
    openAPISpecAccess(ctx, caller, organizationId, slug),
    openapi.getVersionBySlug(ctx.db, organizationId, slug, versionId),
  ]);
  return { spec, version: versionFound(spec, versionId, version) };
}

function versionFound(spec: OpenAPISpecRow, versionId: string | 'latest', version: OpenAPISpecVersionRow | undefined): OpenAPISpecVersionRow {
  if (!version) {
    throw notFound(versionId === 'latest' ? `a version of OpenAPI specification ${spec.slug}` : `version ${versionId}`);
  }
  return version;
}

/**
 * The document of the version a spec's document address serves (openAPISpecRoutes), or of its latest one, as written
 * (its text and content type): a public spec's to anyone, a private one's to a member who may view it, the caller
 * `caller` gives (asked only then: 401 without one).
 */
export async function servedVersion(
  ctx: Scope,
  organizationId: string,
  slug: string,
  versionId: string | 'latest',
  caller: () => Promise<Caller | undefined>,
): Promise<{ text: string; contentType: string }> {
  const spec = await getSpecBySlug(ctx.db, organizationId, slug);
  if (!spec || !OPENAPI_SPEC_VISIBILITIES[spec.visibility].open) {
    const member = await caller();
    if (!member) throw unauthorized('Authorization: a valid Bearer token is required for a private specification');
    const membership = await membershipOf(ctx.db, member.user.id, organizationId);
    if (!membership || !spec) throw notFound(`OpenAPI specification ${slug}`);
    requireOpenAPISpec(openAPISpecPermissions(membership), 'view');
  }
  const version = await requireVersion(ctx.db, spec!, versionId);
  return { text: version.text, contentType: version.contentType };
}

const specPath = (spec: OpenAPISpecRow) => `/v1/orgs/${spec.organizationId}/openapi/${spec.slug}`;

/** Where the spec's documents are served, outside `/v1` (see openAPISpecRoutes). */
export const servedPath = (spec: OpenAPISpecRow, versionId?: string) =>
  `/openapi/${spec.organizationId}/${spec.slug}${versionId ? `/versions/${versionId}` : ''}`;

export function presentOpenAPISpec(
  ctx: AppContext,
  row: OpenAPISpecRow,
  permissions: OpenAPISpecPermissions,
): Model<'OpenAPISpec'> {
  return {
    object: 'openapi-spec',
    id: row.id,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    slug: row.slug,
    ...(row.sourceUrl ? { sourceURL: row.sourceUrl } : {}),
    processingState: row.processingState,
    visibility: row.visibility,
    ...(row.lastVersionId ? { lastVersion: row.lastVersionId } : {}),
    ...(row.lastProcessedAt ? { lastProcessedAt: row.lastProcessedAt } : {}),
    ...(row.lastProcessErrorCode ? { lastProcessErrorCode: row.lastProcessErrorCode } : {}),
    permissions,
    urls: {
      location: ctx.urls.api(specPath(row)),
      app: ctx.urls.app(`/o/${row.organizationId}/openapi/${row.slug}`),
      ...(OPENAPI_SPEC_VISIBILITIES[row.visibility].open ? { published: ctx.urls.api(servedPath(row)) } : {}),
    },
  };
}

export function presentVersion(
  ctx: AppContext,
  spec: OpenAPISpecRow,
  version: OpenAPISpecVersionRow,
): Model<'OpenAPISpecVersion'> {
  return {
    object: 'openapi-spec-version',
    id: version.id,
    createdAt: version.createdAt,
    url: ctx.urls.api(servedPath(spec, version.id)),
    urls: { location: ctx.urls.api(`${specPath(spec)}/versions/${version.id}`) },
  };
}

/** A version's files: the parsed document under the name of its format (`openapi.yaml` or `openapi.json`). */
export function presentVersionContent(
  ctx: AppContext,
  spec: OpenAPISpecRow,
  version: OpenAPISpecVersionRow,
): Model<'OpenAPISpecVersionContent'> {
  return {
    filesystem: { [version.fileName]: fromJson<unknown>(version.document, {}) },
    url: ctx.urls.api(servedPath(spec, version.id)),
  };
}

/** The state a spec shows once processing has been queued: `progress` stays while a processing runs. */
export async function stateAfterQueueing(db: Db, specId: string): Promise<Model<'OpenAPISpecProcessingState'>> {
  return (await queueState(db, specResource(specId))).running ? 'progress' : 'pending';
}

/**
 * Records the outcome of one processing (inside a write): a success adds a version and clears the error code, a
 * failure keeps the earlier versions and sets the code. Either way the spec is `complete`, or `pending` when
 * another processing is already queued. Nothing happens when the spec was deleted meanwhile.
 */
export async function recordProcessing(
  ctx: Scope,
  specId: string,
  outcome: { parsed: ParsedSpec } | { error: ProcessErrorCode },
): Promise<void> {
  const { db } = ctx;
  if (!(await getSpecRow(db, specId))) return;
  const now = ctx.now();
  const state = (await queueState(db, specResource(specId))).queued ? 'pending' : 'complete';
  if ('error' in outcome) {
    await openapi.update(db, specId, { processingState: state, lastProcessErrorCode: outcome.error, lastProcessedAt: now, updatedAt: now });
    return;
  }
  const { parsed } = outcome;
  const versionId = newId();
  await openapi.insertVersion(db, {
    id: versionId,
    specId: specId,
    createdAt: now,
    fileName: parsed.fileName,
    contentType: parsed.contentType,
    text: parsed.text,
    document: JSON.stringify(parsed.document),
  });
  await openapi.update(db, specId, {
    processingState: state,
    lastVersionId: versionId,
    lastProcessErrorCode: null,
    lastProcessedAt: now,
    updatedAt: now,
  });
}

/** Registers the processing of specs with the job runner. */
export function registerOpenAPIJobs(runner: JobRunner): void {
  runner.register<ProcessPayload>(PROCESS_JOB, {
    // Processing only reads its source until it records the outcome: after a restart it simply starts again.
    resumable: true,
    async run(ctx, { payload: { specId, source }, signal, done }) {
      const found = await inWrite(ctx, (scope) => openapi.update(scope.db, specId, { processingState: 'progress' }));
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
