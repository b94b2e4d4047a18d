// The property-based phase: after the scenario's steps (before its shared resources are deleted), for every
// operation of the contract, requests generated from its schemas (fast-check) with the run's real ids, boundary
// values and invalid values, judged by the checks of checks.ts. A failure is shrunk to a minimal request, printed as
// a curl line, and becomes a `property` violation. `seed` reproduces the generated requests exactly.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import type { Contract, Operation, Schema } from '../contract.ts';
import type { Answer, Session } from '../session.ts';
import { CHECKS, type CheckId, CheckFailure, curlLine, type ExchangeRecord, isEnvelope, judgeAnswer } from './checks.ts';
import { flatten, type GeneratedRequest, invalidVariants, minimal, requestArbitrary, writableProperties } from './generate.ts';
import { pathNames } from './ids.ts';

export interface PropertyOptions {
  /** Generated requests per operation and property (default 3). */
  examples?: number;
  /** Seed of the generators: the same seed makes the same requests (default: a random one, in the report). */
  seed?: number;
  /** Size bound of an answer, in bytes (default 4 MiB). */
  maxResponseBytes?: number;
  /** Size of the body sent to find an implementation's body size limit (check framework-answers; default 16 MiB). */
  largeBodyBytes?: number;
  /** Only these operations (default all of the contract, excluded ones left out). */
  operations?: string[];
  /** Only these checks (default all but `invalid-named`). */
  checks?: CheckId[];
  /** Send every invalid variant of every operation once (on one generated valid request) instead of sampling them. */
  exhaustive?: boolean;
  /**
   * Round-trip every operation that writes a field its answer also has, on the run's real ids (not only the families
   * the phase creates itself): each request carries every such field. It changes the scenario's resources, the
   * organization and the caller's membership, and makes resources where the run's are gone or refuse the write (by
   * their create; those without a DELETE stay): for a disposable server only (test/api/round-trip.test.ts).
   */
  roundTripAll?: boolean;
}

export interface CheckResult {
  operationId: string;
  checkId: CheckId;
  ok: boolean;
  message: string;
  request?: ExchangeRecord['request'];
  response?: ExchangeRecord['response'];
}

export interface PropertyReport {
  seed: number;
  examples: number;
  maxResponseBytes: number;
  results: CheckResult[];
  summary: { checks: number; failed: number };
  /** With `exhaustive`: the invalid requests sent, by operation. */
  invalidRequests?: Record<string, number>;
  /** With `roundTripAll`: the fields each operation wrote and read back as written (absent: none was accepted). */
  roundTripped?: Record<string, string[]>;
  /** How long the phase took, in ms. */
  durationMs: number;
}

export const DEFAULT_EXAMPLES = 3;
export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
/** The body sent to find a body size limit: larger than an implementation's limit usually is (the reference server: 5 MiB). */
export const DEFAULT_LARGE_BODY_BYTES = 16 * 1024 * 1024;
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
/** Pages followed at most by the pagination check. */
const MAX_PAGES = 50;

interface Exceptions {
  /** `value`: the exception holds only when that value was sent (an empty string that clears a field). */
  roundTrip: { operation: string; field: string; kind: string; reason: string; value?: unknown }[];
  volatile: { field: string; reason: string }[];
}

export const EXCEPTIONS_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../exceptions.json');
let exceptionsCache: Exceptions | undefined;
/** conformance/exceptions.json: the round-trip fields that do not come back as sent, and the volatile fields. */
export function exceptions(): Exceptions {
  exceptionsCache ??= JSON.parse(readFileSync(EXCEPTIONS_FILE, 'utf8')) as Exceptions;
  return exceptionsCache;
}

/** A resource the phase can create, read, change and delete itself: derived from the contract. */
export interface Family {
  create: Operation;
  read: Operation;
  updates: Operation[];
  remove?: Operation;
}

const successSchema = (contract: Contract, operation: Operation): Schema | undefined => {
  for (const status of operation.successStatuses) {
    const raw = contract.document.paths[operation.path]?.[operation.method]?.responses?.[String(status)];
    const schema = raw && contract.resolve(raw as Schema & { content?: Record<string, { schema?: Schema }> }).content?.['application/json']?.schema;
    if (schema) return schema as Schema;
  }
  return undefined;
};

/** The name of a success schema when it is a reference (`#/components/schemas/Space`), to match operations on one resource. */
const successRef = (contract: Contract, operation: Operation): string | undefined => successSchema(contract, operation)?.$ref;

/**
 * The families of the contract: a POST or PUT answering 201 with a body, the GET with the same response schema
 * whose path ends with a parameter (the item), the PATCH or PUT on the item path (updates) and its DELETE.
 */
export function families(contract: Contract): Family[] {
  const operations = [...contract.operations.values()];
  const result: Family[] = [];
  for (const create of operations) {
    if (!(create.method === 'post' || create.method === 'put') || !create.successStatuses.includes(201) || !create.body) continue;
    const ref = successRef(contract, create);
    if (!ref) continue;
    // The item: a GET of the same schema whose path parameters, but its last, are the create's own.
    const own = new Set(pathNames(create.path));
    const reads = operations.filter(
      (candidate) =>
        candidate.method === 'get' &&
        /\}$/.test(candidate.path) &&
        candidate.path !== create.path &&
        successRef(contract, candidate) === ref &&
        pathNames(candidate.path).slice(0, -1).every((name) => own.has(name)),
    );
    const read = reads.find((candidate) => candidate.path.startsWith(`${create.path}/`)) ?? reads[0];
    if (!read) continue;
    const updates = operations.filter((candidate) => (candidate.method === 'patch' || candidate.method === 'put') && candidate.path === read.path && candidate.body && candidate !== create);
    const remove = operations.find((candidate) => candidate.method === 'delete' && candidate.path === read.path);
    result.push({ create, read, updates, ...(remove ? { remove } : {}) });
  }
  return result;
}

/**
 * A create that makes a resource with an item path of its own (`POST …/section-groups` makes
 * `…/section-groups/{siteSectionGroupId}`): a POST or PUT answering 201 with a body and some operation on the path
 * below it ending with one more parameter (the new resource's key), and that path's DELETE when there is one (to
 * clean up). Unlike a family it needs no GET: the round-trip uses it to make a resource it can write to.
 */
export interface Maker {
  create: Operation;
  /** The path parameter naming what it makes (`siteSectionGroupId`). */
  parameter: string;
  remove?: Operation;
}

export function makers(contract: Contract): Maker[] {
  const operations = [...contract.operations.values()];
  // A family's create makes what its GET reads; other creates, what the path below them names.
  const result: Maker[] = families(contract)
    .map((family) => ({ create: family.create, parameter: pathNames(family.read.path).at(-1)!, ...(family.remove ? { remove: family.remove } : {}) }))
    .filter((maker) => !pathNames(maker.create.path).includes(maker.parameter));
  for (const create of operations) {
    if (result.some((maker) => maker.create === create)) continue;
    if (!(create.method === 'post' || create.method === 'put') || !create.successStatuses.includes(201) || !create.body || !successRef(contract, create)) continue;
    const below = operations.filter((candidate) => candidate.path.startsWith(`${create.path}/{`) && /^\{[^}/]+\}$/.test(candidate.path.slice(create.path.length + 1)));
    const parameter = below[0] && pathNames(below[0].path).at(-1)!;
    if (!parameter || pathNames(create.path).includes(parameter)) continue;
    const remove = below.find((candidate) => candidate.method === 'delete');
    result.push({ create, parameter, ...(remove ? { remove } : {}) });
  }
  return result;
}

/** The GET that reads back what an operation changes: at its path, or the nearest item path above it. */
export function readBackOf(contract: Contract, operation: Operation): Operation | undefined {
  const gets = [...contract.operations.values()].filter((candidate) => candidate.method === 'get');
  let template = operation.path;
  while (template.includes('/')) {
    const found = gets.find((candidate) => candidate.path === template && /\}$/.test(candidate.path));
    if (found) return found;
    template = template.slice(0, template.lastIndexOf('/'));
  }
  return undefined;
}

/** Deep "as written": every key of `sent` equal in `got` (objects recursively, arrays item by item). */
export function asWritten(sent: unknown, got: unknown): boolean {
  if (Array.isArray(sent)) return Array.isArray(got) && got.length === sent.length && sent.every((item, index) => asWritten(item, got[index]));
  if (typeof sent === 'object' && sent !== null) {
    if (typeof got !== 'object' || got === null || Array.isArray(got)) return false;
    return Object.entries(sent).every(([key, value]) => asWritten(value, (got as Record<string, unknown>)[key]));
  }
  return Object.is(sent, got) || (sent === 0 && got === 0);
}

/** The fields of a request body that the success response's schema also has (minus the exceptions). */
export function roundTripFields(contract: Contract, operation: Operation): string[] {
  if (!operation.body) return [];
  const response = successSchema(contract, operation);
  if (!response) return [];
  const answered = Object.keys(writablePropertiesOrAll(contract, response));
  const skipped = new Set(exceptions().roundTrip.filter((entry) => (entry.operation === operation.operationId || entry.operation === '*') && !('value' in entry)).map((entry) => entry.field));
  return Object.keys(writableProperties(contract, operation.body.schema).properties).filter((name) => answered.includes(name) && !skipped.has(name));
}

const writablePropertiesOrAll = (contract: Contract, schema: Schema) => {
  const flat = flatten(contract, schema);
  if (flat.type !== 'object' && !flat.properties && !flat.allOf) return {};
  // Read-only properties of the response are what the server sets; a request field of the same name is still compared.
  const properties: Record<string, Schema> = {};
  const visit = (raw: Schema) => {
    const current = flatten(contract, raw);
    Object.assign(properties, current.properties ?? {});
    for (const part of current.allOf ?? []) visit(part);
  };
  visit(schema);
  return properties;
};

function withoutVolatile(value: unknown): unknown {
  const volatile = new Set(exceptions().volatile.map((entry) => entry.field));
  const strip = (current: unknown): unknown => {
    if (Array.isArray(current)) return current.map(strip);
    if (typeof current !== 'object' || current === null) return current;
    return Object.fromEntries(Object.entries(current).filter(([key]) => !volatile.has(key)).map(([key, inner]) => [key, strip(inner)]));
  };
  return strip(value);
}

/** A stable 32-bit seed per operation from the run's seed. */
function seedOf(seed: number, operationId: string, salt: string): number {
  let hash = seed | 0;
  for (const char of `${operationId}/${salt}`) hash = (Math.imul(hash ^ char.charCodeAt(0), 0x5bd1e995) + 0x6b43a9b5) | 0;
  return hash;
}

export async function runPropertyPhase(session: Session, options: PropertyOptions = {}): Promise<PropertyReport> {
  const contract = session.contract;
  const examples = options.examples ?? DEFAULT_EXAMPLES;
  const seed = options.seed ?? Math.floor(Math.random() * 0x7fffffff);
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const enabled = new Set<CheckId>(options.checks ?? (Object.keys(CHECKS) as CheckId[]).filter((id) => id !== 'invalid-named'));
  const only = options.operations ? new Set(options.operations) : undefined;
  const selected = [...contract.operations.values()].filter((operation) => (!only || only.has(operation.operationId)) && !session.isExcluded(operation.operationId as never));
  const results = new Map<string, CheckResult>();
  const ids = (name: string) => session.ids.forField(name);
  session.log(`# property phase: seed ${seed}, ${examples} examples per operation`);
  const started = Date.now();

  const pass = (operationId: string, checkId: CheckId, message = CHECKS[checkId]) => {
    const key = `${operationId}\u0000${checkId}`;
    if (!results.has(key) && enabled.has(checkId)) results.set(key, { operationId, checkId, ok: true, message });
  };
  const fail = (operationId: string, failure: CheckFailure) => {
    const key = `${operationId}\u0000${failure.checkId}`;
    if (results.get(key)?.ok === false || !enabled.has(failure.checkId)) return;
    const result: CheckResult = {
      operationId,
      checkId: failure.checkId,
      ok: false,
      message: failure.message,
      ...(failure.exchange ? { request: failure.exchange.request, ...(failure.exchange.response ? { response: failure.exchange.response } : {}) } : {}),
    };
    results.set(key, result);
    session.log(`  ✗ ${operationId} ${failure.message}${failure.exchange ? `\n    ${failure.exchange.request.curl}` : ''}`);
    session.propertyViolation({
      operationId,
      message: `${failure.message}${failure.exchange ? ` — reproduce: ${failure.exchange.request.curl}` : ''}`,
      step: `property: ${failure.checkId}`,
      request: { method: failure.exchange?.request.method ?? '', url: failure.exchange?.request.url ?? '', ...(failure.exchange?.request.body !== undefined ? { body: failure.exchange.request.body } : {}) },
      ...(failure.exchange?.response ? { response: failure.exchange.response } : {}),
    });
  };

  /** Sends a request, returns the answer and what to print about it; `auth` as in curlLine. */
  const send = async (operation: Operation, request: GeneratedRequest, auth: 'token' | 'none' | { wrong: string } = 'token'): Promise<{ answer: Answer | undefined; exchange: ExchangeRecord }> => {
    const input = { path: request.path, query: request.query, ...(request.body !== undefined ? { body: request.body } : {}) };
    const token = auth === 'token' ? undefined : auth === 'none' ? null : auth.wrong;
    const answer = await session.exchange(operation.operationId, input, token);
    const url = session.url(operation, request.path, request.query);
    const method = operation.method.toUpperCase();
    const exchange: ExchangeRecord = {
      request: { method, url, ...(request.body !== undefined ? { body: request.body } : {}), curl: curlLine(method, url, request.body, auth) },
      ...(answer ? { response: { status: answer.status, ...(answer.text ? { body: clip(answer.text) } : {}) } } : {}),
    };
    return { answer, exchange };
  };
  const judged = async (operation: Operation, request: GeneratedRequest) => {
    const sent = await send(operation, request);
    if (!sent.answer) throw new CheckFailure('no-5xx', 'no answer (network error or timeout)', sent.exchange);
    judgeAnswer(sent.answer, sent.exchange, maxResponseBytes);
    return { answer: sent.answer, exchange: sent.exchange };
  };
  const ALWAYS: CheckId[] = ['no-5xx', 'status-declared', 'response-conforms', 'error-envelope', 'response-size'];

  /** Runs a property; a failure is shrunk by fast-check and reported with the check it broke. */
  const check = async <T>(operation: Operation, salt: string, arbitrary: fc.Arbitrary<T>, predicate: (value: T) => Promise<void>, checks: CheckId[]) => {
    const details = await fc.check(
      fc.asyncProperty(arbitrary, async (value) => {
        await predicate(value);
      }),
      { numRuns: examples, seed: seedOf(seed, operation.operationId, salt), endOnFailure: false },
    );
    if (details.failed) {
      const error = details.errorInstance;
      if (error instanceof CheckFailure) fail(operation.operationId, error);
      else fail(operation.operationId, new CheckFailure('no-5xx', `runner error: ${error instanceof Error ? error.message : String(error)}`));
    }
    for (const id of checks) pass(operation.operationId, id);
  };

  /** Resources made to have a parent to work in (a comment for a reply): deleted when the phase ends. */
  const created: (() => Promise<unknown>)[] = [];
  const pick = (operation: Operation, values: Record<string, string>) => Object.fromEntries(pathNames(operation.path).map((name) => [name, values[name]!]));

  /**
   * Path parameters for an operation, all alive: those it was called with, else each parameter from that call while
   * it lives, and a missing one made by the create that makes it under the same parents (a space comment for a reply
   * to one); undefined when none could be made.
   */
  async function ensure(operation: Operation, depth: number): Promise<Record<string, string> | undefined> {
    if (depth > 4) return undefined;
    if (session.ids.hasKnownPath(operation)) return session.ids.pathsFor(operation)[0];
    const own = new Set(pathNames(operation.path));
    const recorded = session.ids.recordedPath(operation.operationId) ?? {};
    const values: Record<string, string> = {};
    for (const name of pathNames(operation.path)) {
      const previous = recorded[name];
      if (previous !== undefined && session.ids.isAlive(name, previous)) {
        values[name] = previous;
        continue;
      }
      const key = await make(name, own, values);
      if (key !== undefined) {
        values[name] = key;
        continue;
      }
      values[name] = session.ids.values(name)?.[0] ?? 'docs-conformance-missing';
    }
    return values;
  }

  /**
   * Makes a new resource named by path parameter `name` under `parents` with the create that makes it (its DELETE,
   * when there is one, cleans it up when the phase ends): the body the scenario had accepted, else generated ones.
   * Returns its key, or undefined when no create makes it or every body was refused.
   */
  async function make(name: string, own: Set<string>, parents: Record<string, string>): Promise<string | undefined> {
    const maker = makers(contract)
      .filter((candidate) => candidate.parameter === name && usable(candidate.create) && (!candidate.remove || usable(candidate.remove)) && pathNames(candidate.create.path).every((parent) => own.has(parent) && parent in parents))
      .sort((a, b) => Number(!a.remove) - Number(!b.remove))[0];
    if (!maker) return undefined;
    const path = pick(maker.create, parents);
    const accepted = session.ids.acceptedBody(maker.create.operationId);
    const generated = fc.sample(requestArbitrary(contract, maker.create, [path], { ids }), { numRuns: examples, seed: seedOf(seed, maker.create.operationId, 'make') });
    const bodies = [...(accepted ? [accepted] : []), ...generated.map((request) => minimal(contract, maker.create, request).body)];
    for (const body of bodies) {
      const answer = await session.exchange(maker.create.operationId, { path, query: {}, ...(body !== undefined ? { body } : {}) });
      const key = (answer?.json as Record<string, unknown> | undefined)?.[keyField(name)];
      if (!answer || answer.status >= 300 || typeof key !== 'string') continue;
      session.ids.add(name, key);
      if (maker.remove) {
        const itemPath = { ...path, [name]: key };
        created.push(() => session.exchange(maker.remove!.operationId, { path: pick(maker.remove!, itemPath), query: {} }));
      }
      return key;
    }
    return undefined;
  }

  const usable = (operation: Operation | undefined) => operation !== undefined && !session.isExcluded(operation.operationId as never);
  const familyOf = new Map<string, Family>();
  for (const family of families(contract)) {
    if (!family.remove || ![family.create, family.read, ...family.updates, family.remove].every(usable)) continue;
    for (const operation of [family.create, ...family.updates, family.remove]) if (!familyOf.has(operation.operationId)) familyOf.set(operation.operationId, family);
  }
  const doneFamilies = new Set<Family>();
  /** With `exhaustive`: how many invalid requests each operation was sent. */
  const invalidSent = new Map<string, number>();

  for (const operation of options.roundTripAll ? [] : selected) {
    const paths = session.ids.pathsFor(operation);
    const valid = requestArbitrary(contract, operation, paths, { ids });

    // Reads: any valid request, boundary values included.
    if (operation.method === 'get') {
      await check(operation, 'valid', valid, async (request) => void (await judged(operation, request)), ALWAYS);
    }

    // HEAD, wherever GET is: answered as the GET, without a body.
    if (enabled.has('head') && operation.method === 'get') {
      try {
        await checkHead(operation, minimal(contract, operation, fc.sample(valid, { numRuns: 1, seed: seedOf(seed, operation.operationId, 'head') })[0]!));
        pass(operation.operationId, 'head');
      } catch (error) {
        if (error instanceof CheckFailure) fail(operation.operationId, error);
        else throw error;
      }
    }

    // Invalid values, one rule broken at a time: refused with a 4xx, and nothing changed.
    const variants = invalidVariants(contract, operation);
    if (variants.length > 0 && (enabled.has('invalid-refused') || enabled.has('invalid-unchanged'))) {
      const candidate = operation.method === 'get' ? undefined : readBackOf(contract, operation);
      const readBack = usable(candidate) ? candidate : undefined;
      const refuse = async ([base, variant]: [GeneratedRequest, (typeof variants)[number]]) => {
        const request = variant.apply(base);
        const before = readBack ? await snapshot(readBack, base.path) : undefined;
        const { answer, exchange } = await judged(operation, request);
        if (answer.status < 400) throw new CheckFailure('invalid-refused', `${request.invalid!.where} ${request.invalid!.rule}: accepted with ${answer.status}`, exchange);
        if (readBack && before !== undefined) {
          const after = await snapshot(readBack, base.path);
          if (after !== before) throw new CheckFailure('invalid-unchanged', `${request.invalid!.where} ${request.invalid!.rule}: refused with ${answer.status}, but ${readBack.operationId} reads differently afterwards`, exchange);
        }
        if (enabled.has('invalid-named')) {
          const message = (answer.json as { error?: { message?: unknown } } | undefined)?.error?.message;
          const field = request.invalid!.where.split('.').at(-1)!;
          if (answer.status !== 400 || typeof message !== 'string' || !message.includes(field)) {
            throw new CheckFailure('invalid-named', `${request.invalid!.where} ${request.invalid!.rule}: answered ${answer.status} ${JSON.stringify(message)}, not a 400 naming ${field}`, exchange);
          }
        }
      };
      const judges: CheckId[] = ['invalid-refused', 'invalid-named', ...(readBack ? (['invalid-unchanged'] as CheckId[]) : []), ...ALWAYS];
      if (options.exhaustive) {
        const base = minimal(contract, operation, fc.sample(valid, { numRuns: 1, seed: seedOf(seed, operation.operationId, 'exhaustive') })[0]!);
        for (const variant of variants) {
          try {
            await refuse([base, variant]);
          } catch (error) {
            if (error instanceof CheckFailure) fail(operation.operationId, error);
            else throw error;
          }
        }
        invalidSent.set(operation.operationId, variants.length);
        for (const id of judges) pass(operation.operationId, id);
      } else {
        await check(operation, 'invalid', fc.tuple(valid, fc.constantFrom(...variants)), refuse, judges);
      }
    }

    // Writes on resources the phase creates itself: round-trip, then use after delete.
    const family = familyOf.get(operation.operationId);
    if (family && !doneFamilies.has(family)) {
      doneFamilies.add(family);
      await exerciseFamily(family);
    }

    // Authentication: no token, a wrong token.
    if (enabled.has('auth-required') && declaresAuth(contract, operation)) {
      // The plainest request: its path parameters, the required query parameters and body.
      const request = minimal(contract, operation, fc.sample(valid, { numRuns: 1, seed: seedOf(seed, operation.operationId, 'auth') })[0]!);
      try {
        for (const auth of ['none', { wrong: `docs-conformance-wrong-${seed}` }] as const) {
          const { answer, exchange } = await send(operation, request, auth);
          if (answer && answer.status !== 401) {
            throw new CheckFailure('auth-required', `${auth === 'none' ? 'without a token' : 'with a wrong token'}: answered ${answer.status}, expected 401`, exchange);
          }
        }
        pass(operation.operationId, 'auth-required');
      } catch (error) {
        if (error instanceof CheckFailure) fail(operation.operationId, error);
        else throw error;
      }
    }

    // Pagination: every item once, count agrees.
    if (enabled.has('pagination') && operation.method === 'get' && isPaginated(contract, operation)) {
      try {
        await paginate(operation, paths[0]!);
        pass(operation.operationId, 'pagination');
      } catch (error) {
        if (error instanceof CheckFailure) fail(operation.operationId, error);
        else throw error;
      }
    }
  }

  async function snapshot(readBack: Operation, pathValues: Record<string, string>): Promise<string | undefined> {
    const names = pathNames(readBack.path);
    const values = Object.fromEntries(names.map((name) => [name, pathValues[name]!]));
    const answer = await session.exchange(readBack.operationId, { path: values, query: {} });
    if (!answer || answer.status !== 200) return undefined;
    return JSON.stringify(withoutVolatile(answer.json));
  }

  async function exerciseFamily(family: Family): Promise<void> {
    const { create, read, updates, remove } = family;
    const createPaths = session.ids.pathsFor(create);
    const readParam = pathNames(read.path).at(-1)!;
    const createArbitrary = requestArbitrary(contract, create, createPaths, { ids });
    const updateArbitraries = updates.map((update) => ({ update, body: requestArbitrary(contract, update, [{}], { ids }) }));
    const members = [create, ...updates, remove!];
    const readSchema = successSchema(contract, read);
    const softDelete = readSchema ? 'deletedAt' in writablePropertiesOrAll(contract, readSchema) : false;
    let created = 0;
    const checks: CheckId[] = ['round-trip', 'use-after-delete', ...ALWAYS];
    const details = await fc.check(
      fc.asyncProperty(createArbitrary, fc.tuple(...updateArbitraries.map((entry) => entry.body)), async (request, updateRequests) => {
        const made = await judged(create, request);
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
          await roundTrip(create, request.body, made, itemPath);
          for (const [index, { update }] of updateArbitraries.entries()) {
            const updateRequest: GeneratedRequest = { ...updateRequests[index]!, path: itemPath };
            const changed = await judged(update, updateRequest);
            if (changed.answer.status < 300) await roundTrip(update, updateRequest.body, changed, itemPath);
          }
        } finally {
          const gone = await judged(remove!, { path: itemPath, query: {} });
          if (gone.answer.status < 300) {
            const after = await judged(read, { path: itemPath, query: {} });
            // A resource whose schema has `deletedAt` is deleted to a trash (it can be restored): read back, it shows it.
            const trashed = softDelete && after.answer.status === 200 && typeof (after.answer.json as { deletedAt?: unknown } | undefined)?.deletedAt === 'string';
            if (after.answer.status !== 404 && !trashed) {
              throw new CheckFailure('use-after-delete', `${remove!.operationId} answered ${gone.answer.status}, then ${read.operationId} answered ${after.answer.status}, not 404`, after.exchange);
            }
          }
        }
      }),
      { numRuns: examples, seed: seedOf(seed, create.operationId, 'family'), endOnFailure: false },
    );
    if (details.failed) {
      const error = details.errorInstance;
      const failure = error instanceof CheckFailure ? error : new CheckFailure('no-5xx', `runner error: ${error instanceof Error ? error.message : String(error)}`);
      const owner = failure.exchange ? (members.find((member) => failure.exchange!.request.method === member.method.toUpperCase() && matches(member, failure.exchange!.request.url)) ?? create) : create;
      fail(failure.checkId === 'use-after-delete' ? remove!.operationId : owner.operationId, failure);
    }
    for (const member of members) for (const id of checks) pass(member.operationId, id);
    if (created === 0) {
      for (const member of members) {
        const key = `${member.operationId}\u0000round-trip`;
        const result = results.get(key);
        if (result?.ok) results.set(key, { ...result, message: `not exercised: every generated ${create.operationId} was refused` });
      }
    }
  }

  async function roundTrip(
    operation: Operation,
    body: unknown,
    made: { answer: Answer; exchange: ExchangeRecord },
    itemPath: Record<string, string>,
    known?: Family,
  ): Promise<void> {
    if (!enabled.has('round-trip') || typeof body !== 'object' || body === null) return;
    const fields = roundTripFields(contract, operation).filter((field) => field in (body as Record<string, unknown>));
    if (fields.length === 0) return;
    const sent = body as Record<string, unknown>;
    // Fields excepted for one value they were sent with.
    const byValue = exceptions().roundTrip.filter((entry) => (entry.operation === operation.operationId || entry.operation === '*') && 'value' in entry);
    fields.splice(0, fields.length, ...fields.filter((field) => !byValue.some((entry) => entry.field === field && asWritten(entry.value, sent[field]) && asWritten(sent[field], entry.value))));
    const answered = made.answer.json as Record<string, unknown> | undefined;
    for (const field of fields) {
      if (!asWritten(sent[field], answered?.[field])) {
        throw new CheckFailure('round-trip', `body.${field} sent as ${JSON.stringify(sent[field])}, answered as ${JSON.stringify(answered?.[field])}`, made.exchange);
      }
    }
    const family = known ?? [...familyOf.values()].find((candidate) => candidate.create === operation || candidate.updates.includes(operation));
    // Read back by the family's GET, else by the GET above the operation's path that answers the same schema.
    const above = family ? undefined : readBackOf(contract, operation);
    const reader = family?.read ?? (above && successRef(contract, above) === successRef(contract, operation) ? above : undefined);
    if (!reader) return;
    const readPath = Object.fromEntries(pathNames(reader.path).map((name) => [name, itemPath[name]!]));
    if (Object.values(readPath).some((value) => value === undefined)) return;
    const back = await judged(reader, { path: readPath, query: {} });
    for (const field of fields) {
      const value = (back.answer.json as Record<string, unknown> | undefined)?.[field];
      if (!asWritten(sent[field], value)) {
        throw new CheckFailure('round-trip', `body.${field} sent to ${operation.operationId} as ${JSON.stringify(sent[field])}, read back by ${reader.operationId} as ${JSON.stringify(value)}`, made.exchange);
      }
    }
  }

  /**
   * HEAD (RFC 9110, section 9.3.2) on a GET operation's plainest request, with the token, without one (when the
   * operation declares authentication) and on path parameters that name nothing: each answered as the GET sent just
   * before it. A difference is checked once more with a new pair, so that a resource changed in between (by
   * background work) is not taken for one.
   */
  async function checkHead(operation: Operation, request: GeneratedRequest): Promise<void> {
    const names = pathNames(operation.path);
    const variants: { what: string; path: Record<string, unknown>; auth: 'token' | 'none' }[] = [
      { what: 'with the token', path: request.path, auth: 'token' },
      ...(declaresAuth(contract, operation) ? [{ what: 'without a token', path: request.path, auth: 'none' as const }] : []),
      ...(names.length > 0 ? [{ what: 'on ids that name nothing', path: Object.fromEntries(names.map((name) => [name, `docs-conformance-none-${seed}`])), auth: 'token' as const }] : []),
    ];
    for (const variant of variants) {
      const url = session.url(operation, variant.path, request.query);
      const token = variant.auth === 'none' ? null : undefined;
      let difference: string | undefined;
      let exchange: ExchangeRecord | undefined;
      for (let attempt = 0; attempt < 2; attempt++) {
        const get = await session.raw(operation, { method: 'GET', url, token });
        const head = await session.raw(operation, { method: 'HEAD', url, token });
        exchange = {
          request: { method: 'HEAD', url, curl: curlLine('HEAD', url, undefined, variant.auth).replace('-X HEAD', '-I') },
          ...(head ? { response: { status: head.status } } : {}),
        };
        difference = !get || !head ? `no answer to the ${get ? 'HEAD' : 'GET'} (network error or timeout)` : headDifference(get, head);
        if (difference === undefined) break;
      }
      if (difference !== undefined) throw new CheckFailure('head', `${variant.what}: ${difference}`, exchange);
    }
  }

  async function paginate(operation: Operation, pathValues: Record<string, string>): Promise<void> {
    const limit = operation.parameters.find((parameter) => parameter.in === 'query' && parameter.name === 'limit');
    const minimum = limit?.schema ? Math.max(1, Number(flatten(contract, limit.schema).minimum ?? 1)) : 1;
    const seen = new Map<string, number>();
    let count: number | undefined;
    let cursor: string | undefined;
    let total = 0;
    for (let page = 1; page <= MAX_PAGES; page++) {
      const query: Record<string, unknown> = { ...(limit ? { limit: minimum } : {}), ...(cursor ? { page: cursor } : {}) };
      const { answer, exchange } = await judged(operation, { path: pathValues, query });
      if (answer.status !== 200) return; // a list the run cannot read: nothing to follow
      const json = answer.json as { items?: unknown[]; count?: number; next?: { page?: string } };
      count ??= json.count;
      for (const item of json.items ?? []) {
        const key = typeof (item as { id?: unknown })?.id === 'string' ? (item as { id: string }).id : JSON.stringify(item);
        if (seen.has(key)) throw new CheckFailure('pagination', `item ${key} of page ${page} was already on page ${seen.get(key)}`, exchange);
        seen.set(key, page);
        total++;
      }
      cursor = json.next?.page;
      if (!cursor) {
        if (typeof count === 'number' && count !== total) throw new CheckFailure('pagination', `count is ${count}, but the ${page} pages held ${total} items`, exchange);
        return;
      }
    }
  }

  function isPaginated(contractRef: Contract, operation: Operation): boolean {
    const schema = successSchema(contractRef, operation);
    if (!schema) return false;
    const properties = writablePropertiesOrAll(contractRef, schema);
    return 'items' in properties && 'next' in properties;
  }

  function matches(operation: Operation, url: string): boolean {
    const pattern = new RegExp(`^${operation.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}(\\?|$)`);
    return pattern.test(new URL(url).pathname + new URL(url).search);
  }

  const roundTripped = new Map<string, string[]>();
  if (options.roundTripAll) {
    const allFamilies = families(contract);
    // Last in the contract first: what the document lists first (the organization, its members, the caller's own
    // role) is changed last, so that a role taken away does not stop the rest.
    for (const operation of [...selected].reverse()) {
      const fields = roundTripFields(contract, operation);
      if (operation.method === 'get' || fields.length === 0) continue;
      const ensured = await ensure(operation, 0);
      const paths = ensured ? [ensured] : session.ids.pathsFor(operation);
      const family = allFamilies.find((candidate) => candidate.create === operation || candidate.updates.includes(operation));
      const verified = new Set<string>();
      /** Sends one request; when accepted, checks its fields come back as sent, then puts the resource back as it was. */
      const attempt = async (request: GeneratedRequest) => {
        const above = family ? undefined : readBackOf(contract, operation);
        const before = above ? await session.exchange(above.operationId, { path: pick(above, request.path), query: {} }) : undefined;
        const made = await judged(operation, request);
        if (made.answer.status >= 300) return;
        let itemPath: Record<string, string> = request.path;
        if (family?.create === operation) {
          const readParam = pathNames(family.read.path).at(-1)!;
          const key = (made.answer.json as Record<string, unknown> | undefined)?.[keyField(readParam)];
          if (!(readParam in itemPath) && typeof key === 'string') itemPath = { ...itemPath, [readParam]: key };
        }
        await roundTrip(operation, request.body, made, itemPath, family);
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
        await check(operation, `round-trip-all${salt}`, requestArbitrary(contract, operation, paths, { ids, require: fields }), async (request) => {
          if (verified.size === 0) await attempt(request);
        }, ['round-trip', ...ALWAYS]);
        const accepted = session.ids.acceptedBody(operation.operationId);
        if (verified.size < fields.length && accepted) {
          for (const field of fields.filter((name) => !verified.has(name))) {
            await check(operation, `round-trip-${field}${salt}`, requestArbitrary(contract, operation, paths, { ids, require: [field] }), async (request) => {
              if (!verified.has(field)) await attempt({ ...request, body: { ...accepted, [field]: (request.body as Record<string, unknown>)[field] } });
            }, ['round-trip', ...ALWAYS]);
          }
          if (fields.some((name) => !verified.has(name) && name in accepted)) {
            await attempt({ path: paths[0]!, query: {}, body: accepted }).catch((error: unknown) => {
              if (error instanceof CheckFailure) fail(operation.operationId, error);
              else throw error;
            });
          }
        }
      };
      await roundTripOn(paths, '');
      // The resource of the run refuses the write (a merged change request) or was not there: the same on a new one,
      // made under the same parents by the create that makes what the operation's last path parameter names.
      const last = pathNames(operation.path).at(-1);
      if (verified.size < fields.length && last && operation.path.endsWith(`{${last}}`) && family?.create !== operation) {
        const key = await make(last, new Set(pathNames(operation.path)), paths[0]!);
        if (key !== undefined) await roundTripOn([{ ...paths[0]!, [last]: key }], '-new');
      }
      if (verified.size > 0) roundTripped.set(operation.operationId, [...verified]);
    }
  }
  if (enabled.has('framework-answers') || enabled.has('method-not-allowed')) await frameworkAnswers();
  for (const undo of created.reverse()) await undo().catch(() => undefined);

  /**
   * The answers the HTTP layer of an implementation gives before its handlers (a body parser, a router, a
   * validator): each operation, on path parameters that name nothing (so that nothing is changed, whatever the
   * implementation does with the body), with a body it cannot take; each path, with the methods it does not declare.
   */
  async function frameworkAnswers(): Promise<void> {
    const none = `docs-conformance-none-${seed}`;
    const large = options.largeBodyBytes ?? DEFAULT_LARGE_BODY_BYTES;
    const bodies: { what: string; headers: Record<string, string>; body: string | { size: number } }[] = [
      { what: 'a JSON body in latin1', headers: { 'content-type': 'application/json; charset=latin1' }, body: '{}' },
      { what: 'a text/plain body', headers: { 'content-type': 'text/plain' }, body: 'plain text' },
      { what: 'malformed JSON', headers: { 'content-type': 'application/json' }, body: '{"a":' },
      { what: 'an unknown content encoding', headers: { 'content-type': 'application/json', 'content-encoding': 'docs-conformance' }, body: '{}' },
      { what: `a body of ${large} bytes`, headers: { 'content-type': 'application/json' }, body: { size: large } },
    ];
    const urlOf = (template: string, query: Record<string, unknown> = {}) =>
      session.url({ path: template, parameters: [] } as unknown as Operation, Object.fromEntries(pathNames(template).map((name) => [name, none])), query);
    if (enabled.has('framework-answers')) {
      for (const operation of selected) {
        // Required query parameters as the generator makes them, so that only the body is wrong.
        const nothing = Object.fromEntries(pathNames(operation.path).map((name) => [name, none]));
        const request = minimal(contract, operation, fc.sample(requestArbitrary(contract, operation, [nothing], { ids }), { numRuns: 1, seed: seedOf(seed, operation.operationId, 'framework') })[0]!);
        const url = session.url(operation, nothing, request.query);
        try {
          for (const { what, headers, body } of bodies) {
            const answer = await session.raw(operation, { method: operation.method.toUpperCase(), url, headers, body });
            const exchange: ExchangeRecord = {
              request: { method: operation.method.toUpperCase(), url, curl: `${curlLine(operation.method.toUpperCase(), url, undefined, 'token')} -H '${Object.entries(headers).map(([name, value]) => `${name}: ${value}`).join("' -H '")}' # ${what}` },
              ...(answer ? { response: { status: answer.status, ...(answer.text ? { body: clip(answer.text) } : {}) } } : {}),
            };
            if (!answer) throw new CheckFailure('framework-answers', `${what}: no answer (network error or timeout)`, exchange);
            if (answer.status >= 500) throw new CheckFailure('framework-answers', `${what}: answered ${answer.status}`, exchange);
            const undeclared = answer.problems.find((problem) => problem.kind === 'undeclared-status');
            if (undeclared) throw new CheckFailure('framework-answers', `${what}: ${undeclared.message}`, exchange);
            if (answer.status >= 400 && !isEnvelope(answer.json)) throw new CheckFailure('framework-answers', `${what}: the ${answer.status} answer has no {error: {code, message}} envelope`, exchange);
          }
          pass(operation.operationId, 'framework-answers');
        } catch (error) {
          if (error instanceof CheckFailure) fail(operation.operationId, error);
          else throw error;
        }
      }
    }
    if (enabled.has('method-not-allowed')) {
      for (const [template, item] of Object.entries(contract.document.paths)) {
        const owner = selected.find((operation) => operation.path === template);
        if (!owner) continue;
        const declared: string[] = HTTP_METHODS.filter((method) => (item as Record<string, unknown>)[method] !== undefined);
        // HEAD is supported wherever GET is (the check `head`): elsewhere it is a method the path does not have.
        const supported = declared.includes('get') ? [...declared, 'head'] : declared;
        const url = urlOf(template);
        try {
          for (const method of [...HTTP_METHODS, 'head'].filter((candidate) => !supported.includes(candidate))) {
            const bodyless = method === 'get' || method === 'head';
            const answer = await session.raw(undefined, { method: method.toUpperCase(), url, ...(bodyless ? {} : { headers: { 'content-type': 'application/json' }, body: '{}' }) });
            const exchange: ExchangeRecord = {
              request: { method: method.toUpperCase(), url, curl: curlLine(method.toUpperCase(), url, bodyless ? undefined : {}, 'token') },
              ...(answer ? { response: { status: answer.status, ...(answer.text ? { body: clip(answer.text) } : {}) } } : {}),
            };
            const where = `${method.toUpperCase()} ${template} (not declared)`;
            if (!answer) throw new CheckFailure('method-not-allowed', `${where}: no answer`, exchange);
            if (answer.status !== 404 && answer.status !== 405) throw new CheckFailure('method-not-allowed', `${where}: answered ${answer.status}, expected 405 or 404`, exchange);
            // The answer to a HEAD has no body to hold the envelope.
            if (method !== 'head' && !isEnvelope(answer.json)) throw new CheckFailure('method-not-allowed', `${where}: the ${answer.status} answer has no {error: {code, message}} envelope`, exchange);
            const allow = (answer.headers.get('allow') ?? '').split(',').map((value) => value.trim().toLowerCase()).filter(Boolean);
            // RFC 9110, section 15.5.6: a 405's Allow lists the methods the resource supports; OPTIONS may be among them.
            if (answer.status === 405 && (allow.length === 0 || allow.some((value) => !supported.includes(value) && value !== 'options') || !supported.every((value) => allow.includes(value)))) {
              throw new CheckFailure('method-not-allowed', `${where}: a 405 whose Allow (${allow.join(', ') || 'none'}) is not the supported methods (${supported.join(', ')})`, exchange);
            }
          }
          pass(owner.operationId, 'method-not-allowed');
        } catch (error) {
          if (error instanceof CheckFailure) fail(owner.operationId, error);
          else throw error;
        }
      }
    }
  }

  const list = [...results.values()];
  const summary = { checks: list.length, failed: list.filter((result) => !result.ok).length };
  session.log(`# property phase: ${summary.checks} checks, ${summary.failed} failed`);
  return {
    seed,
    examples,
    maxResponseBytes,
    results: list,
    summary,
    ...(options.exhaustive ? { invalidRequests: Object.fromEntries(invalidSent) } : {}),
    ...(options.roundTripAll ? { roundTripped: Object.fromEntries(roundTripped) } : {}),
    durationMs: Date.now() - started,
  };
}

/** The field of a resource that a path parameter names: its last camel-case word (`spaceId` → `id`). */
export const keyField = (parameter: string): string => {
  const words = parameter.split(/(?=[A-Z])/);
  return words.length > 1 ? words.at(-1)!.toLowerCase() : parameter;
};

function declaresAuth(contract: Contract, operation: Operation): boolean {
  const own = contract.document.paths[operation.path]?.[operation.method]?.security as unknown[] | undefined;
  const security = own ?? (contract.document.security as unknown[] | undefined) ?? [];
  return security.length > 0 && !security.some((requirement) => Object.keys(requirement as object).length === 0) && Object.keys(operation.responses).includes('401');
}

const clip = (text: string) => (text.length > 1000 ? `${text.slice(0, 1000)}…` : text);

/** Headers of one message, not of the resource: a HEAD may answer them otherwise than its GET. */
const PER_MESSAGE_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/**
 * How a HEAD's answer differs from its GET's, or undefined: the status, a body, the Content-Type, the Content-Length
 * when the GET sent one (a GET sent without a length, in chunks, leaves the HEAD's free), and any other header the
 * GET sent (by name: a request id differs from one answer to the next).
 */
export function headDifference(get: Pick<Answer, 'status' | 'headers'>, head: Pick<Answer, 'status' | 'headers' | 'text'>): string | undefined {
  if (head.status !== get.status) return `HEAD answered ${head.status}, GET ${get.status}`;
  if (head.text !== '') return `HEAD answered a body of ${Buffer.byteLength(head.text)} bytes`;
  const same = (name: string) => head.headers.get(name) === get.headers.get(name);
  if (!same('content-type')) return `Content-Type ${JSON.stringify(head.headers.get('content-type'))} for HEAD, ${JSON.stringify(get.headers.get('content-type'))} for GET`;
  const length = get.headers.get('content-length');
  if (length !== null && !same('content-length')) return `Content-Length ${head.headers.get('content-length') ?? 'missing'} for HEAD, ${length} for GET`;
  const missing = [...get.headers.keys()].filter((name) => !PER_MESSAGE_HEADERS.has(name) && !head.headers.has(name));
  if (missing.length > 0) return `HEAD answered without ${missing.join(', ')}, which the GET sent`;
  return undefined;
}
