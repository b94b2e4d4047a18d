// Organizations.
import type { Insertable, Selectable, Updateable } from 'kysely';
import { columns, type Db, prepared, type Store } from './db.ts';
import { after, type Key } from './keyset.ts';
import type { Camelized, OrganizationsTable } from './schema.ts';

export type OrganizationRecord = Camelized<Selectable<OrganizationsTable>>;

/** Most records each store remembers the organization of (`noteOrganization`); the oldest are forgotten first. */
const MOST_NOTED = 20_000;
const noted = new WeakMap<Store, Map<string, string>>();

/**
 * Remembers that the record `key` (`spaceId:abc`, `collectionId:def`: a path parameter and its value) belongs to
 * `organizationId`, as read or written through `db`: a hint for the queue a write of it takes after a conflict
 * (WriteOptions.wider), never a rule (a space transferred since belongs to another).
 */
export function noteOrganization(db: Db, key: string, organizationId: string): void {
  let known = noted.get(db.store);
  if (known === undefined) noted.set(db.store, (known = new Map()));
  if (known.get(key) === organizationId) return;
  known.delete(key);
  if (known.size >= MOST_NOTED) known.delete(known.keys().next().value!);
  known.set(key, organizationId);
}

/** The organization of the record `key` as this store last saw it (`noteOrganization`), if it did. */
export const notedOrganization = (store: Store, key: string): string | undefined => noted.get(store)?.get(key);

/**
 * The queue every write that conflicted takes when the store does not know the organization of its record (an
 * integration's installations are in other organizations): such writes then run one group at a time.
 */
export const CONFLICTED_QUEUE = 'writes:conflicted';

/**
 * The queue a write of `queue` takes after a conflict (WriteOptions.wider): its record's organization's, when the store
 * noted it, or else CONFLICTED_QUEUE; none for a write of no queue or one queued behind its organization already.
 */
export function widerQueue(store: Store, queue: string | undefined): string | undefined {
  if (queue === undefined || queue.startsWith('organizationId:')) return undefined;
  const organization = notedOrganization(store, queue);
  return organization === undefined ? CONFLICTED_QUEUE : `organizationId:${organization}`;
}

const GET = prepared((q, p: { id: string }) => q.selectFrom('organizations').selectAll().where('id', '=', p.id));

export function get(db: Db, id: string): Promise<OrganizationRecord | undefined> {
  return db.first(GET, { id });
}

const OWNER_OF_INTEGRATION = prepared((q, p: { name: string }) =>
  q.selectFrom('organizations').selectAll('organizations').where('organizations.id', '=', q.selectFrom('integrations').select('organization_id').where('name', '=', p.name)),
);

/** The organization that owns integration `name`: read by the integration's name, so that it can leave with the integration's own read. */
export function ownerOfIntegration(db: Db, name: string): Promise<OrganizationRecord | undefined> {
  return db.first(OWNER_OF_INTEGRATION, { name });
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
