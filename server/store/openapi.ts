// OpenAPI specifications of organizations and their processed versions.
import type { Insertable, Selectable, Updateable } from 'kysely';
import { columns, type Db } from './db.ts';
import { after, type Key } from './keyset.ts';
import type { Camelized, OpenapiSpecsTable, OpenapiSpecVersionsTable } from './schema.ts';

/** The parsed document (JSON text) of the latest processed version of the organization's specification `slug`. */
export async function latestDocument(db: Db, organizationId: string, slug: string): Promise<string | undefined> {
  const row = await db.first(
    db.q.selectFrom('openapi_specs').innerJoin('openapi_spec_versions', 'openapi_spec_versions.id', 'openapi_specs.last_version_id')
      .select('openapi_spec_versions.document').where('openapi_specs.organization_id', '=', organizationId).where('openapi_specs.slug', '=', slug),
  );
  return row?.document;
}

export type SpecRecord = Camelized<Selectable<OpenapiSpecsTable>>;
export type VersionRecord = Camelized<Selectable<OpenapiSpecVersionsTable>>;

export function getBySlug(db: Db, organizationId: string, slug: string): Promise<SpecRecord | undefined> {
  return db.first(db.q.selectFrom('openapi_specs').selectAll().where('organization_id', '=', organizationId).where('slug', '=', slug));
}

export function get(db: Db, id: string): Promise<SpecRecord | undefined> {
  return db.first(db.q.selectFrom('openapi_specs').selectAll().where('id', '=', id));
}

export async function insert(db: Db, spec: { id: string; organizationId: string; slug: string; createdAt: string; updatedAt: string }): Promise<void> {
  await db.send(db.q.insertInto('openapi_specs').values(columns<Insertable<OpenapiSpecsTable>>(spec)));
}

/** Changes columns of a spec; resolves to whether it exists. */
export async function update(db: Db, id: string, changes: Camelized<Updateable<Omit<OpenapiSpecsTable, 'id'>>>): Promise<boolean> {
  return (await db.run(db.q.updateTable('openapi_specs').set(columns<Updateable<Omit<OpenapiSpecsTable, 'id'>>>(changes)).where('id', '=', id))) > 0;
}

/** Removes a spec and its versions (cascade). */
export async function remove(db: Db, id: string): Promise<void> {
  await db.send(db.q.deleteFrom('openapi_specs').where('id', '=', id));
}

export async function count(db: Db, organizationId: string): Promise<number> {
  return (await db.first(db.q.selectFrom('openapi_specs').select((eb) => eb.fn.countAll<number>().as('n')).where('organization_id', '=', organizationId)))?.n ?? 0;
}

/** A page of an organization's specs by creation (created_at, id), after `key`. */
export function page(db: Db, organizationId: string, key: Key | undefined, limit: number): Promise<SpecRecord[]> {
  let query = db.q.selectFrom('openapi_specs').selectAll().where('organization_id', '=', organizationId);
  if (key) query = query.where(after(['created_at', 'id'], key));
  return db.all(query.orderBy('created_at').orderBy('id').limit(limit));
}

export function getVersion(db: Db, specId: string, versionId: string): Promise<VersionRecord | undefined> {
  return db.first(db.q.selectFrom('openapi_spec_versions').selectAll().where('id', '=', versionId).where('spec_id', '=', specId));
}

/**
 * The version `versionId` of the organization's specification `slug`, or its latest (`latest`): read by the spec's slug,
 * so that it can leave with the spec's own read instead of after it.
 */
export function getVersionBySlug(db: Db, organizationId: string, slug: string, versionId: string | 'latest'): Promise<VersionRecord | undefined> {
  const query = db.q
    .selectFrom('openapi_specs')
    .innerJoin('openapi_spec_versions', 'openapi_spec_versions.spec_id', 'openapi_specs.id')
    .selectAll('openapi_spec_versions')
    .where('openapi_specs.organization_id', '=', organizationId)
    .where('openapi_specs.slug', '=', slug);
  return db.first(
    versionId === 'latest'
      ? query.whereRef('openapi_spec_versions.id', '=', 'openapi_specs.last_version_id')
      : query.where('openapi_spec_versions.id', '=', versionId),
  );
}

/**
 * Adds a version, numbered one more than the spec's highest. Processings of one spec run one at a time (their jobs
 * share a resource), and UNIQUE (spec_id, number) stands behind it.
 */
export async function insertVersion(db: Db, version: Omit<VersionRecord, 'number'>): Promise<void> {
  const last = await db.first(db.q.selectFrom('openapi_spec_versions').select((eb) => eb.fn.max('number').as('n')).where('spec_id', '=', version.specId));
  const row = columns<Omit<Insertable<OpenapiSpecVersionsTable>, 'number'>>(version);
  await db.send(db.q.insertInto('openapi_spec_versions').values({ ...row, number: (last?.n ?? 0) + 1 }));
}

export async function countVersions(db: Db, specId: string): Promise<number> {
  return (await db.first(db.q.selectFrom('openapi_spec_versions').select((eb) => eb.fn.countAll<number>().as('n')).where('spec_id', '=', specId)))?.n ?? 0;
}

/** A page of a spec's versions, newest first (number), after `key`. */
export function pageOfVersions(db: Db, specId: string, key: Key | undefined, limit: number): Promise<VersionRecord[]> {
  let query = db.q.selectFrom('openapi_spec_versions').selectAll().where('spec_id', '=', specId);
  if (key) query = query.where(after(['number'], key, 'desc'));
  return db.all(query.orderBy('number', 'desc').limit(limit));
}
