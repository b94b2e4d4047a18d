// Integrations (global, named; owned by an organization), their installations in organizations, and the events an
// installation receives, with the trace of their handling (`seq` orders events and logs in the order they were
// written: an identity in PostgreSQL, AUTOINCREMENT in SQLite).
import { type Insertable, type Selectable, sql, type Updateable } from 'kysely';
import { columns, type Db } from './db.ts';
import { after, type Key } from './keyset.ts';
import type { Camelized, IntegrationEventLogsTable, IntegrationEventsTable, IntegrationInstallationsTable, IntegrationsTable } from './schema.ts';

export type IntegrationRecord = Camelized<Selectable<IntegrationsTable>>;
export type InstallationRecord = Camelized<Selectable<IntegrationInstallationsTable>>;
export type EventRecord = Camelized<Selectable<IntegrationEventsTable>>;

/** Whose installations (and their events) a caller sees: all, or those of these organizations. */
export type InstallationScope = { all: boolean; organizations: readonly string[] };

/** A condition on `organization_id` for a scope. */
const inScope = (db: Db, column: string, scope: InstallationScope) => (scope.all ? sql<boolean>`1 = 1` : db.specific.among(column, scope.organizations));

export function get(db: Db, name: string): Promise<IntegrationRecord | undefined> {
  return db.first(db.q.selectFrom('integrations').selectAll().where('name', '=', name));
}

/** The catalog a caller sees: the public integrations, and the private ones of the organizations `privateOf`. */
function catalog(db: Db, privateOf: readonly string[]) {
  return db.q.selectFrom('integrations')
    .where((eb) => eb.or([eb('visibility', '=', 'public'), eb.and([eb('visibility', '=', 'private'), db.specific.among('organization_id', privateOf)])]));
}

export async function countCatalog(db: Db, privateOf: readonly string[]): Promise<number> {
  return (await db.first(catalog(db, privateOf).select((eb) => eb.fn.countAll<number>().as('n'))))?.n ?? 0;
}

/** A page of the catalog by name, after `key`. */
export function catalogPage(db: Db, privateOf: readonly string[], key: Key | undefined, limit: number): Promise<IntegrationRecord[]> {
  let query = catalog(db, privateOf).selectAll();
  if (key) query = query.where(after(['name'], key));
  return db.all(query.orderBy('name').limit(limit));
}

export async function insert(db: Db, row: Camelized<Insertable<IntegrationsTable>>): Promise<void> {
  await db.send(db.q.insertInto('integrations').values(columns<Insertable<IntegrationsTable>>(row)));
}

export async function update(db: Db, name: string, changes: Camelized<Updateable<Omit<IntegrationsTable, 'name'>>>): Promise<void> {
  if (Object.keys(changes).length === 0) return;
  await db.send(db.q.updateTable('integrations').set(columns<Updateable<Omit<IntegrationsTable, 'name'>>>(changes)).where('name', '=', name));
}

/** Removes an integration, its installations and their events (cascade). */
export async function remove(db: Db, name: string): Promise<void> {
  await db.send(db.q.deleteFrom('integrations').where('name', '=', name));
}

export function getInstallation(db: Db, id: string): Promise<InstallationRecord | undefined> {
  return db.first(db.q.selectFrom('integration_installations').selectAll().where('id', '=', id));
}

/** The installations of an integration in a scope, optionally those with an external id. */
function installationsOf(db: Db, name: string, scope: InstallationScope, externalId: string | undefined) {
  let query = db.q.selectFrom('integration_installations').where('integration_name', '=', name).where(inScope(db, 'organization_id', scope));
  if (externalId !== undefined) {
    query = query.where(
      sql<boolean>`EXISTS (SELECT 1 FROM ${db.specific.jsonStrings('integration_installations.external_ids', 'external_id')} WHERE ${sql.ref('external_id.value')} = ${externalId})`,
    );
  }
  return query;
}

/** The installations of an integration in a scope, optionally those with an external id, oldest first. */
export function installations(db: Db, name: string, scope: InstallationScope, externalId?: string): Promise<InstallationRecord[]> {
  return db.all(installationsOf(db, name, scope, externalId).selectAll().orderBy('created_at').orderBy('id'));
}

export async function countInstallations(db: Db, name: string, scope: InstallationScope, externalId?: string): Promise<number> {
  return (await db.first(installationsOf(db, name, scope, externalId).select((eb) => eb.fn.countAll<number>().as('n'))))?.n ?? 0;
}

/** A page of the installations of an integration in a scope (optionally with an external id), oldest first, after `key`. */
export function pageOfInstallations(db: Db, name: string, scope: InstallationScope, externalId: string | undefined, key: Key | undefined, limit: number): Promise<InstallationRecord[]> {
  let query = installationsOf(db, name, scope, externalId).selectAll();
  if (key) query = query.where(after(['created_at', 'id'], key));
  return db.all(query.orderBy('created_at').orderBy('id').limit(limit));
}

export async function isInstalled(db: Db, name: string, organizationId: string): Promise<boolean> {
  return (
    (await db.first(
      db.q.selectFrom('integration_installations').select('id').where('integration_name', '=', name).where('organization_id', '=', organizationId),
    )) !== undefined
  );
}

/** How many organizations other than `organizationId` have the integration installed. */
export async function installedElsewhere(db: Db, name: string, organizationId: string): Promise<number> {
  const row = await db.first(
    db.q.selectFrom('integration_installations').select((eb) => eb.fn.countAll<number>().as('n'))
      .where('integration_name', '=', name).where('organization_id', '<>', organizationId),
  );
  return row?.n ?? 0;
}

export async function insertInstallation(db: Db, row: Pick<InstallationRecord, 'id' | 'integrationName' | 'organizationId' | 'createdAt' | 'updatedAt'>): Promise<void> {
  await db.send(db.q.insertInto('integration_installations').values(columns<Insertable<IntegrationInstallationsTable>>(row)));
}

/** What an integration's answer changed of its installation (JSON texts; a missing one is kept). */
export async function updateInstallation(db: Db, id: string, changes: { externalIds?: string; configuration?: string; updatedAt: string }): Promise<void> {
  await db.send(
    db.q.updateTable('integration_installations')
      .set({
        ...(changes.externalIds !== undefined ? { external_ids: changes.externalIds } : {}),
        ...(changes.configuration !== undefined ? { configuration: changes.configuration } : {}),
        updated_at: changes.updatedAt,
      })
      .where('id', '=', id),
  );
}

export async function insertEvent(db: Db, row: Omit<EventRecord, 'seq'>): Promise<void> {
  await db.send(db.q.insertInto('integration_events').values(columns<Insertable<IntegrationEventsTable>>(row)));
}

export function getEvent(db: Db, id: string): Promise<EventRecord | undefined> {
  return db.first(db.q.selectFrom('integration_events').selectAll().where('id', '=', id));
}

export async function setEventStatus(db: Db, id: string, status: string): Promise<void> {
  await db.send(db.q.updateTable('integration_events').set({ status }).where('id', '=', id));
}

/** Events waiting for their delivery to the development tunnel are shown once it is over. */
function handledEvents(db: Db, name: string, scope: InstallationScope) {
  return db.q.selectFrom('integration_events').where('integration_name', '=', name).where('status', '<>', 'pending')
    .where(inScope(db, 'organization_id', scope));
}

/** A handled event of the integration in a scope. */
export function getHandledEvent(db: Db, name: string, id: string, scope: InstallationScope): Promise<EventRecord | undefined> {
  return db.first(handledEvents(db, name, scope).selectAll().where('id', '=', id));
}

export async function countEvents(db: Db, name: string, scope: InstallationScope): Promise<number> {
  return (await db.first(handledEvents(db, name, scope).select((eb) => eb.fn.countAll<number>().as('n'))))?.n ?? 0;
}

/** A page of the handled events of an integration in a scope, newest first (seq), after `key`. */
export function pageOfEvents(db: Db, name: string, scope: InstallationScope, key: Key | undefined, limit: number): Promise<EventRecord[]> {
  let query = handledEvents(db, name, scope).selectAll();
  if (key) query = query.where(after(['seq'], key, 'desc'));
  return db.all(query.orderBy('seq', 'desc').limit(limit));
}

export async function addLog(db: Db, log: Camelized<Insertable<Omit<IntegrationEventLogsTable, 'seq'>>>): Promise<void> {
  await db.send(db.q.insertInto('integration_event_logs').values(columns<Insertable<IntegrationEventLogsTable>>(log)));
}

/** The trace of an event, in the order it was written. */
export function logs(db: Db, eventId: string): Promise<{ message: string; timestamp: string; level: string }[]> {
  return db.all(db.q.selectFrom('integration_event_logs').select(['message', 'timestamp', 'level']).where('event_id', '=', eventId).orderBy('seq'));
}
