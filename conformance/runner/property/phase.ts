// The property-based phase: after the scenario's steps, for every operation of the contract, requests generated from
// its schemas (fast-check) with the run's real ids, boundary values and invalid values, judged by the checks of
// checks.ts; a failure is shrunk to a minimal request, printed as a curl line, a `property` violation; `seed`
// reproduces the requests. The checks' modules (invalid-values.ts, head.ts, round-trip.ts, pagination.ts,
// framework.ts) share run.ts; what they read off the contract is in shapes.ts.
import fc from 'fast-check';
import type { Operation } from '../../contract/contract.ts';
import type { Session } from '../session.ts';
import { CHECKS, type CheckId, CheckFailure } from './checks.ts';
import { checkFrameworkAnswers, checkMethodsNotAllowed } from './framework.ts';
import { minimal, requestArbitrary } from './generate.ts';
import { checkHead } from './head.ts';
import { checkInvalidValues } from './invalid-values.ts';
import { checkPagination } from './pagination.ts';
import { exerciseFamily, roundTripAll } from './round-trip.ts';
import { ALWAYS, type CheckResult, PropertyRun } from './run.ts';
import { declaresAuth, type Family, isPaginated } from './shapes.ts';

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

export async function runPropertyPhase(session: Session, options: PropertyOptions = {}): Promise<PropertyReport> {
  const run = new PropertyRun(session, {
    seed: options.seed ?? Math.floor(Math.random() * 0x7fffffff),
    examples: options.examples ?? DEFAULT_EXAMPLES,
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    enabled: new Set<CheckId>(options.checks ?? (Object.keys(CHECKS) as CheckId[]).filter((id) => id !== 'invalid-named')),
  });
  const { seed, examples, maxResponseBytes } = run.settings;
  const only = options.operations ? new Set(options.operations) : undefined;
  const selected = [...session.contract.operations.values()].filter((operation) => (!only || only.has(operation.operationId)) && !session.isExcluded(operation.operationId as never));
  session.log(`# property phase: seed ${seed}, ${examples} examples per operation`);
  const started = Date.now();

  const doneFamilies = new Set<Family>();
  /** With `exhaustive`: how many invalid requests each operation was sent. */
  const invalidSent = new Map<string, number>();
  for (const operation of options.roundTripAll ? [] : selected) {
    const sent = await exerciseOperation(run, operation, doneFamilies, options.exhaustive ?? false);
    if (sent !== undefined) invalidSent.set(operation.operationId, sent);
  }
  const roundTripped = options.roundTripAll ? await roundTripAll(run, selected) : undefined;
  if (run.enabled('framework-answers')) await checkFrameworkAnswers(run, selected, options.largeBodyBytes);
  if (run.enabled('method-not-allowed')) await checkMethodsNotAllowed(run, selected);
  for (const undo of run.created.reverse()) await undo().catch(() => undefined);

  const { results, summary } = run.report();
  session.log(`# property phase: ${summary.checks} checks, ${summary.failed} failed`);
  return {
    seed,
    examples,
    maxResponseBytes,
    results,
    summary,
    ...(options.exhaustive ? { invalidRequests: Object.fromEntries(invalidSent) } : {}),
    ...(roundTripped ? { roundTripped: Object.fromEntries(roundTripped) } : {}),
    durationMs: Date.now() - started,
  };
}

/**
 * The checks of one operation, in order: any valid request (reads), HEAD, invalid values, its family's round-trip and
 * use after delete (once per family: `doneFamilies`), authentication, pagination. Returns how many invalid requests
 * it was sent, with `exhaustive`.
 */
async function exerciseOperation(run: PropertyRun, operation: Operation, doneFamilies: Set<Family>, exhaustive: boolean): Promise<number | undefined> {
  const { contract, session } = run;
  const paths = session.ids.pathsFor(operation);
  const valid = requestArbitrary(contract, operation, paths, { ids: run.ids });
  /** The plainest valid request (path parameters, the required query parameters and body), from its own seed. */
  const plainest = (salt: string) => minimal(contract, operation, fc.sample(valid, { numRuns: 1, seed: run.seedFor(operation.operationId, salt) })[0]!);

  // Reads: any valid request, boundary values included.
  if (operation.method === 'get') {
    await run.check(operation, 'valid', valid, async (request) => void (await run.judged(operation, request)), ALWAYS);
  }

  // HEAD, wherever GET is: answered as the GET, without a body.
  if (run.enabled('head') && operation.method === 'get') {
    await run.recorded(operation.operationId, () => checkHead(run, operation, plainest('head')));
    run.pass(operation.operationId, 'head');
  }

  // Invalid values, one rule broken at a time: refused with a 4xx, and nothing changed.
  const sent = await checkInvalidValues(run, operation, valid, exhaustive);

  // Writes on resources the phase creates itself: round-trip, then use after delete.
  const family = run.familyOf.get(operation.operationId);
  if (family && !doneFamilies.has(family)) {
    doneFamilies.add(family);
    await exerciseFamily(run, family);
  }

  // Authentication: no token, a wrong token.
  if (run.enabled('auth-required') && declaresAuth(contract, operation)) {
    const request = plainest('auth');
    await run.recorded(operation.operationId, async () => {
      for (const auth of ['none', { wrong: `docs-conformance-wrong-${run.seed}` }] as const) {
        const { answer, exchange } = await run.send(operation, request, auth);
        if (answer && answer.status !== 401) {
          throw new CheckFailure('auth-required', `${auth === 'none' ? 'without a token' : 'with a wrong token'}: answered ${answer.status}, expected 401`, exchange);
        }
      }
    });
    run.pass(operation.operationId, 'auth-required');
  }

  // Pagination: every item once, count agrees.
  if (run.enabled('pagination') && operation.method === 'get' && isPaginated(contract, operation)) {
    await run.recorded(operation.operationId, () => checkPagination(run, operation, paths[0]!));
    run.pass(operation.operationId, 'pagination');
  }
  return sent;
}
