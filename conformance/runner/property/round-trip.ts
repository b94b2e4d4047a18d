// The checks `round-trip` and `use-after-delete`: what a write sends comes back as sent, in its answer and read back;
// a resource deleted answers 404 afterwards. On the families the phase creates itself (`exerciseFamily`), and with
// `roundTripAll` on every operation that writes a field its answer has, on the run's real ids.
import fc from 'fast-check';
import type { Operation } from '../../contract/contract.ts';
import type { Answer } from '../session.ts';
import { type CheckId, CheckFailure, type ExchangeRecord } from './checks.ts';
import { exceptions } from './exceptions.ts';
import { type GeneratedRequest, requestArbitrary } from './generate.ts';
import { keyField, pathNames } from '../ids.ts';
import { ensure, make } from './resources.ts';
import { ALWAYS, asFailure, type PropertyRun } from './run.ts';
import { allProperties, asWritten, type Family, families, onPath, readBackOf, roundTripFields, successRef, successSchema } from './shapes.ts';

/** An answer, and what to print about it. */
type Made = { answer: Answer; exchange: ExchangeRecord };

/**
 * The fields of `body` that `operation`'s answer has come back in it as sent, and as sent when read back by the
 * family's GET, else by the GET above the operation's path that answers the same schema (`itemPath`: the path
 * parameters of what was written).
 */
export async function roundTrip(run: PropertyRun, operation: Operation, body: unknown, made: Made, itemPath: Record<string, string>, known?: Family): Promise<void> {
  const { contract } = run;
  if (!run.enabled('round-trip') || typeof body !== 'object' || body === null) return;
  const sent = body as Record<string, unknown>;
  const written = roundTripFields(contract, operation).filter((field) => field in sent);
  if (written.length === 0) return;
  // Fields excepted for one value they were sent with (still read back, with the others).
  const byValue = exceptions().roundTrip.filter((entry) => (entry.operation === operation.operationId || entry.operation === '*') && 'value' in entry);
  const fields = written.filter((field) => !byValue.some((entry) => entry.field === field && asWritten(entry.value, sent[field]) && asWritten(sent[field], entry.value)));
  const answered = made.answer.json as Record<string, unknown> | undefined;
  for (const field of fields) {
    if (!asWritten(sent[field], answered?.[field])) {
      throw new CheckFailure('round-trip', `body.${field} sent as ${JSON.stringify(sent[field])}, answered as ${JSON.stringify(answered?.[field])}`, made.exchange);
    }
  }
  const family = known ?? [...run.familyOf.values()].find((candidate) => candidate.create === operation || candidate.updates.includes(operation));
  // Read back by the family's GET, else by the GET above the operation's path that answers the same schema.
  const above = family ? undefined : readBackOf(contract, operation);
  const reader = family?.read ?? (above && successRef(contract, above) === successRef(contract, operation) ? above : undefined);
  if (!reader) return;
  const readPath = Object.fromEntries(pathNames(reader.path).map((name) => [name, itemPath[name]!]));
  if (Object.values(readPath).some((value) => value === undefined)) return;
  const back = await run.judged(reader, { path: readPath, query: {} });
  for (const field of fields) {
    const value = (back.answer.json as Record<string, unknown> | undefined)?.[field];
    if (!asWritten(sent[field], value)) {
      throw new CheckFailure('round-trip', `body.${field} sent to ${operation.operationId} as ${JSON.stringify(sent[field])}, read back by ${reader.operationId} as ${JSON.stringify(value)}`, made.exchange);
    }
  }
}

/**
 * A family's resources made, round-tripped through their create and every update, then deleted and read again:
 * a property over generated creates and updates, shrunk on failure. A failure is reported against the operation
 * whose request it names (the delete, for `use-after-delete`).
 */
export async function exerciseFamily(run: PropertyRun, family: Family): Promise<void> {
  const { contract, session } = run;
  const { create, read, updates } = family;
  const remove = family.remove!;
  const readParam = pathNames(read.path).at(-1)!;
  const createArbitrary = requestArbitrary(contract, create, session.ids.pathsFor(create), { ids: run.ids });
  const updateArbitraries = updates.map((update) => ({ update, body: requestArbitrary(contract, update, [{}], { ids: run.ids }) }));
  const members = [create, ...updates, remove];
  const readSchema = successSchema(contract, read);
  const softDelete = readSchema ? 'deletedAt' in allProperties(contract, readSchema) : false;
  let created = 0;
  const checks: CheckId[] = ['round-trip', 'use-after-delete', ...ALWAYS];
  const details = await fc.check(
    fc.asyncProperty(createArbitrary, fc.tuple(...updateArbitraries.map((entry) => entry.body)), async (request, updateRequests) => {
      const made = await run.judged(create, request);
      if (made.answer.status >= 300) return; // refused (a reference the generator could not know): nothing to read back
      const itemPath: Record<string, string> = { ...request.path };
      // The item path: the create's path parameters, and the new resource's key (or the create's own last
      // parameter, for a PUT): the answer's field named as the last word of the parameter (`spaceId` → `id`,
      // `specSlug` → `slug`, `integrationName` → `name`).
      if (!(readParam in itemPath)) {
        const key = (made.answer.json as Record<string, unknown> | undefined)?.[keyField(readParam)];
        if (typeof key !== 'string') return;
        itemPath[readParam] = key;
      }
      created++;
      try {
        await roundTrip(run, create, request.body, made, itemPath);
        for (const [index, { update }] of updateArbitraries.entries()) {
          const updateRequest: GeneratedRequest = { ...updateRequests[index]!, path: itemPath };
          const changed = await run.judged(update, updateRequest);
          if (changed.answer.status < 300) await roundTrip(run, update, updateRequest.body, changed, itemPath);
        }
      } finally {
        await deletedForGood(run, family, itemPath, softDelete);
      }
    }),
    { numRuns: run.settings.examples, seed: run.seedFor(create.operationId, 'family'), endOnFailure: false },
  );
  if (details.failed) {
    const failure = asFailure(details.errorInstance);
    const owner = failure.exchange ? (members.find((member) => failure.exchange!.request.method === member.method.toUpperCase() && onPath(member, failure.exchange!.request.url)) ?? create) : create;
    run.fail(failure.checkId === 'use-after-delete' ? remove.operationId : owner.operationId, failure);
  }
  for (const member of members) for (const id of checks) run.pass(member.operationId, id);
  if (created === 0) {
    for (const member of members) {
      const key = `${member.operationId}\u0000round-trip`;
      const result = run.results.get(key);
      if (result?.ok) run.results.set(key, { ...result, message: `not exercised: every generated ${create.operationId} was refused` });
    }
  }
}

/** Deletes a resource of the family; once deleted, its GET answers 404 (or, for a resource deleted to a trash, shows `deletedAt`). */
async function deletedForGood(run: PropertyRun, family: Family, itemPath: Record<string, string>, softDelete: boolean): Promise<void> {
  const remove = family.remove!;
  const gone = await run.judged(remove, { path: itemPath, query: {} });
  if (gone.answer.status >= 300) return;
  const after = await run.judged(family.read, { path: itemPath, query: {} });
  // A resource whose schema has `deletedAt` is deleted to a trash (it can be restored): read back, it shows it.
  const trashed = softDelete && after.answer.status === 200 && typeof (after.answer.json as { deletedAt?: unknown } | undefined)?.deletedAt === 'string';
  if (after.answer.status !== 404 && !trashed) {
    throw new CheckFailure('use-after-delete', `${remove.operationId} answered ${gone.answer.status}, then ${family.read.operationId} answered ${after.answer.status}, not 404`, after.exchange);
  }
}

/**
 * `roundTripAll`: every operation of `selected` that writes a field its answer has, round-tripped on the run's real
 * ids, last in the contract first: what the document lists first (the organization, its members, the caller's own
 * role) is changed last, so that a role taken away does not stop the rest. Returns the fields each operation wrote
 * and read back as written.
 */
export async function roundTripAll(run: PropertyRun, selected: Operation[]): Promise<Map<string, string[]>> {
  const roundTripped = new Map<string, string[]>();
  const allFamilies = families(run.contract);
  for (const operation of [...selected].reverse()) {
    const fields = roundTripFields(run.contract, operation);
    if (operation.method === 'get' || fields.length === 0) continue;
    const verified = await roundTripOperation(run, operation, fields, allFamilies);
    if (verified.size > 0) roundTripped.set(operation.operationId, [...verified]);
  }
  return roundTripped;
}

/** The fields of one operation round-tripped: on the resource of the run, else on one made for it. Returns those verified. */
async function roundTripOperation(run: PropertyRun, operation: Operation, fields: string[], allFamilies: Family[]): Promise<Set<string>> {
  const { contract, session } = run;
  const ensured = await ensure(run, operation, 0);
  const paths = ensured ? [ensured] : session.ids.pathsFor(operation);
  const family = allFamilies.find((candidate) => candidate.create === operation || candidate.updates.includes(operation));
  const verified = new Set<string>();
  /** Sends one request; when accepted, checks its fields come back as sent, then puts the resource back as it was. */
  const attempt = async (request: GeneratedRequest) => {
    const above = family ? undefined : readBackOf(contract, operation);
    const before = above ? await session.exchange(above.operationId, { path: run.pick(above, request.path), query: {} }) : undefined;
    const made = await run.judged(operation, request);
    if (made.answer.status >= 300) return;
    let itemPath: Record<string, string> = request.path;
    if (family?.create === operation) {
      const readParam = pathNames(family.read.path).at(-1)!;
      const key = (made.answer.json as Record<string, unknown> | undefined)?.[keyField(readParam)];
      if (!(readParam in itemPath) && typeof key === 'string') itemPath = { ...itemPath, [readParam]: key };
    }
    await roundTrip(run, operation, request.body, made, itemPath, family);
    for (const field of fields) if (field in (request.body as object)) verified.add(field);
    // Put back what was there (a locked space, a lost role would stop what follows).
    const previous = before?.status === 200 ? (before.json as Record<string, unknown>) : undefined;
    if (previous) {
      const restore = Object.fromEntries(fields.filter((field) => field in previous).map((field) => [field, previous[field]]));
      if (Object.keys(restore).length > 0) await session.exchange(operation.operationId, { path: request.path, query: request.query, body: restore });
    }
  };
  /** Every field at once; else each field on top of the body the scenario had accepted (its other values real). */
  const roundTripOn = async (paths: Record<string, string>[], salt: string) => {
    await run.check(operation, `round-trip-all${salt}`, requestArbitrary(contract, operation, paths, { ids: run.ids, require: fields }), async (request) => {
      if (verified.size === 0) await attempt(request);
    }, ['round-trip', ...ALWAYS]);
    const accepted = session.ids.acceptedBody(operation.operationId);
    if (verified.size < fields.length && accepted) {
      for (const field of fields.filter((name) => !verified.has(name))) {
        await run.check(operation, `round-trip-${field}${salt}`, requestArbitrary(contract, operation, paths, { ids: run.ids, require: [field] }), async (request) => {
          if (!verified.has(field)) await attempt({ ...request, body: { ...accepted, [field]: (request.body as Record<string, unknown>)[field] } });
        }, ['round-trip', ...ALWAYS]);
      }
      if (fields.some((name) => !verified.has(name) && name in accepted)) {
        await run.recorded(operation.operationId, () => attempt({ path: paths[0]!, query: {}, body: accepted }));
      }
    }
  };
  await roundTripOn(paths, '');
  // The resource of the run refuses the write (a merged change request) or was not there: the same on a new one,
  // made under the same parents by the create that makes what the operation's last path parameter names.
  const last = pathNames(operation.path).at(-1);
  if (verified.size < fields.length && last && operation.path.endsWith(`{${last}}`) && family?.create !== operation) {
    const key = await make(run, last, new Set(pathNames(operation.path)), paths[0]!);
    if (key !== undefined) await roundTripOn([{ ...paths[0]!, [last]: key }], '-new');
  }
  return verified;
}
