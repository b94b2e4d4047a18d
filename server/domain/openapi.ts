// OpenAPI specifications: rows, the caller's permissions, how the API shows specs and versions, and how a
// processing outcome is recorded on a spec.
import type { Caller } from '../auth/caller.ts';
import { atLeast, type Membership } from '../auth/roles.ts';
import type { AppContext } from '../context.ts';
import { forbidden, notFound } from '../http/errors.ts';
import type { Model } from '../http/types.ts';
import { type Db, fromJson } from '../store/db.ts';
import { newId } from './ids.ts';
import { queueState } from './job-queue.ts';
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

export function getSpecBySlug(db: Db, organizationId: string, slug: string): OpenAPISpecRow | undefined {
  return db.prepare('SELECT * FROM openapi_specs WHERE organization_id = ? AND slug = ?').get(organizationId, slug) as
    | OpenAPISpecRow
    | undefined;
}

export function getSpecRow(db: Db, id: string): OpenAPISpecRow | undefined {
  const row = db.prepare('SELECT * FROM openapi_specs WHERE id = ?').get(id);
  return row === undefined ? undefined : parseOpenAPISpecRow(row);
}

export interface OpenAPIAccess {
  organization: OrganizationAccess;
  permissions: OpenAPISpecPermissions;
}

/** The organization's specs as the caller may use them: 404 outside the organization, 403 without `view`. */
export function openAPIAccess(ctx: AppContext, caller: Caller, organizationId: string): OpenAPIAccess {
  const organization = organizationAccess(ctx, caller, organizationId);
  const permissions = openAPISpecPermissions(organization.membership);
  return { organization, permissions };
}

/** A spec the caller may view: 404 when unknown, 403 without `view`. */
export function openAPISpecAccess(
  ctx: AppContext,
  caller: Caller,
  organizationId: string,
  slug: string,
): OpenAPIAccess & { spec: OpenAPISpecRow } {
  const access = openAPIAccess(ctx, caller, organizationId);
  const spec = getSpecBySlug(ctx.db, organizationId, slug);
  if (!spec) throw notFound(`OpenAPI specification ${slug}`);
  requireOpenAPISpec(access.permissions, 'view');
  return { ...access, spec };
}

export function getVersionRow(db: Db, spec: OpenAPISpecRow, versionId: string): OpenAPISpecVersionRow | undefined {
  return db.prepare('SELECT * FROM openapi_spec_versions WHERE id = ? AND spec_id = ?').get(versionId, spec.id) as
    | OpenAPISpecVersionRow
    | undefined;
}

/** A version of the spec, or its latest one (`latest`); 404 when there is none (yet). */
export function requireVersion(db: Db, spec: OpenAPISpecRow, versionId: string | 'latest'): OpenAPISpecVersionRow {
  const id = versionId === 'latest' ? spec.last_version_id : versionId;
  const version = id ? getVersionRow(db, spec, id) : undefined;
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
export function stateAfterQueueing(db: Db, specId: string): Model<'OpenAPISpecProcessingState'> {
  return queueState(db, specResource(specId)).running ? 'progress' : 'pending';
}

/**
 * Records the outcome of one processing (inside a write): a success adds a version and clears the error code, a
 * failure keeps the earlier versions and sets the code. Either way the spec is `complete`, or `pending` when
 * another processing is already queued. Nothing happens when the spec was deleted meanwhile.
 */
export function recordProcessing(
  ctx: AppContext,
  specId: string,
  outcome: { parsed: ParsedSpec } | { error: ProcessErrorCode },
): void {
  const { db } = ctx;
  if (!getSpecRow(db, specId)) return;
  const now = ctx.now();
  const state = queueState(db, specResource(specId)).queued ? 'pending' : 'complete';
  if ('error' in outcome) {
    db.prepare(
      `UPDATE openapi_specs SET processing_state = ?, last_process_error_code = ?, last_processed_at = ?, updated_at = ?
       WHERE id = ?`,
    ).run(state, outcome.error, now, now, specId);
    return;
  }
  const { parsed } = outcome;
  const versionId = newId();
  db.prepare(
    `INSERT INTO openapi_spec_versions (id, spec_id, number, created_at, file_name, content_type, text, document)
     VALUES (?, ?, (SELECT COALESCE(MAX(number), 0) + 1 FROM openapi_spec_versions WHERE spec_id = ?), ?, ?, ?, ?, ?)`,
  ).run(versionId, specId, specId, now, parsed.fileName, parsed.contentType, parsed.text, JSON.stringify(parsed.document));
  db.prepare(
    `UPDATE openapi_specs SET processing_state = ?, last_version_id = ?, last_process_error_code = NULL,
            last_processed_at = ?, updated_at = ? WHERE id = ?`,
  ).run(state, versionId, now, now, specId);
}
