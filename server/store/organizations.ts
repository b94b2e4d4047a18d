// Organizations.
import type { Insertable, Selectable, Updateable } from 'kysely';
import { columns, type Db, prepared } from './db.ts';
import { after, type Key } from './keyset.ts';
import type { Camelized, OrganizationsTable } from './schema.ts';

export type OrganizationRecord = Camelized<Selectable<OrganizationsTable>>;

const GET = prepared((q, p: { id: string }) => q.selectFrom('organizations').selectAll().where('id', '=', p.id));

export function get(db: Db, id: string): Promise<OrganizationRecord | undefined> {
  return db.first(GET, { id });
}

/** How many organizations a user is an enabled member of. */
export async function countOfMember(db: Db, userId: string): Promise<number> {
  const row = await db.first(
    db.q.selectFrom('members').select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', userId).where('disabled', '=', 0),
  );
  return row?.n ?? 0;
}

/** A page of the organizations a user is an enabled member of, by creation (created_at, id), after `key`. */
export function pageOfMember(db: Db, userId: string, key: Key | undefined, limit: number): Promise<OrganizationRecord[]> {
  let query = db.q
    .selectFrom('organizations')
    .innerJoin('members', (join) =>
      join.onRef('members.organization_id', '=', 'organizations.id').on('members.user_id', '=', userId).on('members.disabled', '=', 0),
    )
    .selectAll('organizations');
  if (key) query = query.where(after(['organizations.created_at', 'organizations.id'], key));
  return db.all(query.orderBy('organizations.created_at').orderBy('organizations.id').limit(limit));
}

/** Whether another organization than `exceptId` has this hostname. */
export async function hostnameTaken(db: Db, hostname: string, exceptId: string): Promise<boolean> {
  const row = await db.first(db.q.selectFrom('organizations').select('id').where('hostname', '=', hostname).where('id', '<>', exceptId));
  return row !== undefined;
}

/** Changes columns of an organization. */
export async function update(db: Db, id: string, changes: Camelized<Updateable<Omit<OrganizationsTable, 'id'>>>): Promise<void> {
  if (Object.keys(changes).length === 0) return;
  await db.send(db.q.updateTable('organizations').set(columns<Updateable<Omit<OrganizationsTable, 'id'>>>(changes)).where('id', '=', id));
}

/** Removes an invite link of an organization. */
export async function removeInviteLink(db: Db, organizationId: string, inviteId: string): Promise<void> {
  await db.send(db.q.deleteFrom('invite_links').where('id', '=', inviteId).where('organization_id', '=', organizationId));
}

/** The organizations that list this email domain (kept by triggers in organization_email_domains), by creation. */
export function byEmailDomain(db: Db, domain: string): Promise<OrganizationRecord[]> {
  return db.all(
    db.q.selectFrom('organization_email_domains')
      .innerJoin('organizations', 'organizations.id', 'organization_email_domains.organization_id')
      .selectAll('organizations')
      .where('organization_email_domains.domain', '=', domain)
      .orderBy('organizations.created_at')
      .orderBy('organizations.id'),
  );
}

/** Whether an organization with this id exists. */
export async function exists(db: Db, id: string): Promise<boolean> {
  return (await db.first(db.q.selectFrom('organizations').select('id').where('id', '=', id))) !== undefined;
}

/** Whether the database holds any organization. */
export async function any(db: Db): Promise<boolean> {
  return (await db.first(db.q.selectFrom('organizations').select('id').limit(1))) !== undefined;
}

/** A new organization, with the defaults of the schema for what is not given. */
export async function insert(db: Db, organization: { id: string; title: string; createdAt: string; type: string; emailDomains: string }): Promise<void> {
  await db.send(db.q.insertInto('organizations').values(columns<Insertable<OrganizationsTable>>(organization)));
}

/** The organization with this id, or else with this hostname. */
export function byIdOrHostname(db: Db, reference: string): Promise<OrganizationRecord | undefined> {
  return db.first(db.q.selectFrom('organizations').selectAll().where((eb) => eb.or([eb('id', '=', reference), eb('hostname', '=', reference)])).limit(1));
}
