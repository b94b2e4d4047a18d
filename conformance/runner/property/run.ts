// What the checks of a property phase share: its settings, the results recorded so far (one per operation and
// check), requests sent and judged by the checks every answer must pass, properties run and shrunk by fast-check,
// and the resources the phase made to have a parent to work in, deleted when it ends.
import fc from 'fast-check';
import type { Contract, Operation } from '../../contract/contract.ts';
import type { Answer, Session } from '../session.ts';
import { CHECKS, type CheckId, CheckFailure, curlLine, type ExchangeRecord, judgeAnswer } from './checks.ts';
import type { GeneratedRequest, IdLookup } from './generate.ts';
import { pathNames } from '../ids.ts';
import { families, type Family } from './shapes.ts';

export interface CheckResult {
  operationId: string;
  checkId: CheckId;
  ok: boolean;
  message: string;
  request?: ExchangeRecord['request'];
  response?: ExchangeRecord['response'];
}

export interface RunSettings {
  seed: number;
  /** Generated requests per operation and property. */
  examples: number;
  maxResponseBytes: number;
  /** The checks that run; the others are neither passed nor failed. */
  enabled: Set<CheckId>;
}

/** The checks every answer is judged by (`judged`). */
export const ALWAYS: CheckId[] = ['no-5xx', 'status-declared', 'response-conforms', 'error-envelope', 'response-size'];

/** How a request authenticates: with the run's token, with none, or with a wrong one (as in curlLine). */
export type Auth = 'token' | 'none' | { wrong: string };

/** A stable 32-bit seed per operation from the run's seed. */
export function seedOf(seed: number, operationId: string, salt: string): number {
  let hash = seed | 0;
  for (const char of `${operationId}/${salt}`) hash = (Math.imul(hash ^ char.charCodeAt(0), 0x5bd1e995) + 0x6b43a9b5) | 0;
  return hash;
}

/** An answer's text as a report shows it: its first 1 000 characters. */
export const clip = (text: string) => (text.length > 1000 ? `${text.slice(0, 1000)}…` : text);

export class PropertyRun {
  readonly contract: Contract;
  readonly results = new Map<string, CheckResult>();
  /** Resources made to have a parent to work in (a comment for a reply): deleted when the phase ends. */
  readonly created: (() => Promise<unknown>)[] = [];
  /** The family each create, update and delete belongs to, of the families whose operations are all usable. */
  readonly familyOf = new Map<string, Family>();
  /** Real ids for a body field or a path parameter, by name. */
  readonly ids: IdLookup;

  constructor(
    readonly session: Session,
    readonly settings: RunSettings,
  ) {
    this.contract = session.contract;
    this.ids = (name) => session.ids.forField(name);
    for (const family of families(this.contract)) {
      if (!family.remove || ![family.create, family.read, ...family.updates, family.remove].every((operation) => this.usable(operation))) continue;
      for (const operation of [family.create, ...family.updates, family.remove]) if (!this.familyOf.has(operation.operationId)) this.familyOf.set(operation.operationId, family);
    }
  }

  get seed(): number {
    return this.settings.seed;
  }

  enabled(checkId: CheckId): boolean {
    return this.settings.enabled.has(checkId);
  }

  /** The seed of one property of an operation. */
  seedFor(operationId: string, salt: string): number {
    return seedOf(this.settings.seed, operationId, salt);
  }

  /** Whether the operation is there and not excluded from the run. */
  usable(operation: Operation | undefined): operation is Operation {
    return operation !== undefined && !this.session.isExcluded(operation.operationId as never);
  }

  /** The path parameters of `operation` among `values`. */
  pick(operation: Operation, values: Record<string, string>): Record<string, string> {
    return Object.fromEntries(pathNames(operation.path).map((name) => [name, values[name]!]));
  }

  /** Records a check passed, unless it has a result already or is not enabled. */
  pass(operationId: string, checkId: CheckId, message: string = CHECKS[checkId]): void {
    const key = `${operationId}\u0000${checkId}`;
    if (!this.results.has(key) && this.enabled(checkId)) this.results.set(key, { operationId, checkId, ok: true, message });
  }

  /** Records a check failed (its first failure only), logs it and reports it as a violation of the run. */
  fail(operationId: string, failure: CheckFailure): void {
    const key = `${operationId}\u0000${failure.checkId}`;
    if (this.results.get(key)?.ok === false || !this.enabled(failure.checkId)) return;
    const result: CheckResult = {
      operationId,
      checkId: failure.checkId,
      ok: false,
      message: failure.message,
      ...(failure.exchange ? { request: failure.exchange.request, ...(failure.exchange.response ? { response: failure.exchange.response } : {}) } : {}),
    };
    this.results.set(key, result);
    this.session.log(`  ✗ ${operationId} ${failure.message}${failure.exchange ? `\n    ${failure.exchange.request.curl}` : ''}`);
    this.session.propertyViolation({
      operationId,
      message: `${failure.message}${failure.exchange ? ` — reproduce: ${failure.exchange.request.curl}` : ''}`,
      step: `property: ${failure.checkId}`,
      request: { method: failure.exchange?.request.method ?? '', url: failure.exchange?.request.url ?? '', ...(failure.exchange?.request.body !== undefined ? { body: failure.exchange.request.body } : {}) },
      ...(failure.exchange?.response ? { response: failure.exchange.response } : {}),
    });
  }

  /** Runs `work`; a CheckFailure it throws is recorded against the operation, anything else thrown on. */
  async recorded(operationId: string, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      if (error instanceof CheckFailure) this.fail(operationId, error);
      else throw error;
    }
  }

  /** Sends a request, returns the answer and what to print about it. */
  async send(operation: Operation, request: GeneratedRequest, auth: Auth = 'token'): Promise<{ answer: Answer | undefined; exchange: ExchangeRecord }> {
    const input = { path: request.path, query: request.query, ...(request.body !== undefined ? { body: request.body } : {}) };
    const token = auth === 'token' ? undefined : auth === 'none' ? null : auth.wrong;
    const answer = await this.session.exchange(operation.operationId, input, token);
    const url = this.session.url(operation, request.path, request.query);
    const method = operation.method.toUpperCase();
    const exchange: ExchangeRecord = {
      request: { method, url, ...(request.body !== undefined ? { body: request.body } : {}), curl: curlLine(method, url, request.body, auth) },
      ...(answer ? { response: { status: answer.status, ...(answer.text ? { body: clip(answer.text) } : {}) } } : {}),
    };
    return { answer, exchange };
  }

  /** Sends a request with the token; an answer that fails a check every answer must pass is thrown (ALWAYS). */
  async judged(operation: Operation, request: GeneratedRequest): Promise<{ answer: Answer; exchange: ExchangeRecord }> {
    const sent = await this.send(operation, request);
    if (!sent.answer) throw new CheckFailure('no-5xx', 'no answer (network error or timeout)', sent.exchange);
    judgeAnswer(sent.answer, sent.exchange, this.settings.maxResponseBytes);
    return { answer: sent.answer, exchange: sent.exchange };
  }

  /** Runs a property; a failure is shrunk by fast-check and reported with the check it broke; `checks` pass otherwise. */
  async check<T>(operation: Operation, salt: string, arbitrary: fc.Arbitrary<T>, predicate: (value: T) => Promise<void>, checks: CheckId[]): Promise<void> {
    const details = await fc.check(
      fc.asyncProperty(arbitrary, async (value) => {
        await predicate(value);
      }),
      { numRuns: this.settings.examples, seed: this.seedFor(operation.operationId, salt), endOnFailure: false },
    );
    if (details.failed) this.fail(operation.operationId, asFailure(details.errorInstance));
    for (const id of checks) this.pass(operation.operationId, id);
  }

  /** The results recorded, and how many checks ran and failed. */
  report(): { results: CheckResult[]; summary: { checks: number; failed: number } } {
    const results = [...this.results.values()];
    return { results, summary: { checks: results.length, failed: results.filter((result) => !result.ok).length } };
  }
}

/** What a property threw, as a failed check: a CheckFailure as it is, anything else an error of the runner. */
export function asFailure(error: unknown): CheckFailure {
  return error instanceof CheckFailure ? error : new CheckFailure('no-5xx', `runner error: ${error instanceof Error ? error.message : String(error)}`);
}
