// SAML identity providers of an organization.
import type { Insertable, Selectable, Updateable } from 'kysely';
import { columns, type Db } from './db.ts';
import { after, type Key } from './keyset.ts';
import type { Camelized, SamlProvidersTable } from './schema.ts';

export type SamlProviderRecord = Camelized<Selectable<SamlProvidersTable>>;

export function get(db: Db, organizationId: string, id: string): Promise<SamlProviderRecord | undefined> {
  return db.first(db.q.selectFrom('saml_providers').selectAll().where('id', '=', id).where('organization_id', '=', organizationId));
}

export async function count(db: Db, organizationId: string): Promise<number> {
  const row = await db.first(
    db.q.selectFrom('saml_providers').select((eb) => eb.fn.countAll<number>().as('n')).where('organization_id', '=', organizationId),
  );
  return row?.n ?? 0;
}

/** A page of an organization's providers by creation (created_at, id), after `key`. */
export function page(db: Db, organizationId: string, key: Key | undefined, limit: number): Promise<SamlProviderRecord[]> {
  let query = db.q.selectFrom('saml_providers').selectAll().where('organization_id', '=', organizationId);
  if (key) query = query.where(after(['created_at', 'id'], key));
  return db.all(query.orderBy('created_at').orderBy('id').limit(limit));
}

/** Every provider of an organization, by creation (an organization has at most a few dozen). */
export function all(db: Db, organizationId: string): Promise<SamlProviderRecord[]> {
  return db.all(db.q.selectFrom('saml_providers').selectAll().where('organization_id', '=', organizationId).orderBy('created_at').orderBy('id'));
}

export async function insert(db: Db, row: SamlProviderRecord): Promise<void> {
  await db.send(db.q.insertInto('saml_providers').values(columns<Insertable<SamlProvidersTable>>(row)));
}

export async function update(db: Db, id: string, changes: Camelized<Updateable<Omit<SamlProvidersTable, 'id'>>>): Promise<void> {
  if (Object.keys(changes).length === 0) return;
  await db.send(db.q.updateTable('saml_providers').set(columns<Updateable<Omit<SamlProvidersTable, 'id'>>>(changes)).where('id', '=', id));
}

export async function remove(db: Db, organizationId: string, id: string): Promise<void> {
  await db.send(db.q.deleteFrom('saml_providers').where('id', '=', id).where('organization_id', '=', organizationId));
}
