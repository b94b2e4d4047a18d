// OpenAPI specifications: rows, the caller's permissions, how the API shows specs and versions, and how a
// processing outcome is recorded on a spec.
import type { Caller } from '../auth/caller.ts';
import { atLeast, type Membership } from '../auth/roles.ts';
import type { AppContext, Scope } from '../context.ts';
import { forbidden, notFound } from '../errors.ts';
import type { Model } from './contract.ts';
import { type Db, fromJson } from '../store/db.ts';
import { queueState } from '../store/jobs.ts';
import * as openapi from '../store/openapi.ts';
import { newId } from './ids.ts';
import { rowParser } from './enums.ts';
import type { ParsedSpec, ProcessErrorCode } from './openapi-source.ts';
import { organizationAccess, organizationPermissions, type OrganizationAccess } from './organizations.ts';

/** Per `OpenAPISpecVisibility`: whether the spec's documents are served to anyone, without a token. */
export const OPENAPI_SPEC_VISIBILITIES = {
  public: { open: true },
  private: { open: false },
} satisfies Record<Model<'OpenAPISpecVisibility'>, { open: boolean }>;

export type OpenAPISpecRow = {
  id: string;
  organization_id: string;
  slug: string;
  source_url: string | null;
  visibility: Model<'OpenAPISpecVisibility'>;
  processing_state: Model<'OpenAPISpecProcessingState'>;
  last_version_id: string | null;
  last_processed_at: string | null;
  last_process_error_code: ProcessErrorCode | null;
  created_at: string;
  updated_at: string;
};

/** An `openapi_specs` row checked: its visibility is one of the contract's. */
export const parseOpenAPISpecRow = rowParser<OpenAPISpecRow>('openapi_specs', { visibility: OPENAPI_SPEC_VISIBILITIES });

export type OpenAPISpecVersionRow = {
  id: string;
  spec_id: string;
  number: number;
  created_at: string;
  file_name: string;
  content_type: string;
  text: string;
  document: string;
};

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
  const access = await openAPIAccess(ctx, caller, organizationId);
  const spec = await getSpecBySlug(ctx.db, organizationId, slug);
  if (!spec) throw notFound(`OpenAPI specification ${slug}`);
  requireOpenAPISpec(access.permissions, 'view');
  return { ...access, spec };
}

export function getVersionRow(db: Db, spec: OpenAPISpecRow, versionId: string): Promise<OpenAPISpecVersionRow | undefined> {
  return openapi.getVersion(db, spec.id, versionId);
}

/** A version of the spec, or its latest one (`latest`); 404 when there is none (yet). */
export async function requireVersion(db: Db, spec: OpenAPISpecRow, versionId: string | 'latest'): Promise<OpenAPISpecVersionRow> {
  const id = versionId === 'latest' ? spec.last_version_id : versionId;
  const version = id ? await getVersionRow(db, spec, id) : undefined;
  if (!version) {
    throw notFound(versionId === 'latest' ? `a version of OpenAPI specification ${spec.slug}` : `version ${versionId}`);
  }
  return version;
}

const specPath = (spec: OpenAPISpecRow) => `/v1/orgs/${spec.organization_id}/openapi/${spec.slug}`;

/** Where the spec's documents are served, outside `/v1` (see openAPISpecRoutes). */
export const servedPath = (spec: OpenAPISpecRow, versionId?: string) =>
  `/openapi/${spec.organization_id}/${spec.slug}${versionId ? `/versions/${versionId}` : ''}`;

export function presentOpenAPISpec(
  ctx: AppContext,
  row: OpenAPISpecRow,
  permissions: OpenAPISpecPermissions,
): Model<'OpenAPISpec'> {
  return {
    object: 'openapi-spec',
    id: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    slug: row.slug,
    ...(row.source_url ? { sourceURL: row.source_url } : {}),
    processingState: row.processing_state,
    visibility: row.visibility,
    ...(row.last_version_id ? { lastVersion: row.last_version_id } : {}),
    ...(row.last_processed_at ? { lastProcessedAt: row.last_processed_at } : {}),
    ...(row.last_process_error_code ? { lastProcessErrorCode: row.last_process_error_code } : {}),
    permissions,
    urls: {
      location: ctx.urls.api(specPath(row)),
      app: ctx.urls.app(`/o/${row.organization_id}/openapi/${row.slug}`),
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
    createdAt: version.created_at,
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
    filesystem: { [version.file_name]: fromJson<unknown>(version.document, {}) },
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
    await openapi.update(db, specId, { processing_state: state, last_process_error_code: outcome.error, last_processed_at: now, updated_at: now });
    return;
  }
  const { parsed } = outcome;
  const versionId = newId();
  await openapi.insertVersion(db, {
    id: versionId,
    spec_id: specId,
    created_at: now,
    file_name: parsed.fileName,
    content_type: parsed.contentType,
    text: parsed.text,
    document: JSON.stringify(parsed.document),
  });
  await openapi.update(db, specId, {
    processing_state: state,
    last_version_id: versionId,
    last_process_error_code: null,
    last_processed_at: now,
    updated_at: now,
  });
}
