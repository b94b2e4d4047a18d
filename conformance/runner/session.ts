// A run's session: the one typed `call` through which the scenario and the property phase reach the implementation.
// Each answer is validated against the contract and recorded per operation; the invalid inputs derived from the
// contract follow an operation's first successful call; `report()` sums it up. The runner (runner.ts) creates the
// session and hands it to its phases (scenario.ts, property/phase.ts), which import it from here, not the runner.
import { request as plainRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { type Contract, type Operation, loadContract, type OpenApiDocument } from '../contract/contract.ts';
import { deriveProbes } from '../contract/invalid.ts';
import { type LeftBehind, Ledger } from './ledger.ts';
import { IdPool } from './ids.ts';
import type { CallInit, CheckResult, OperationId, SuccessBody } from '../contract/types.ts';
import { contractAnswerProblem, dialectProblem, type Problem, type ProblemKind, type ResponseValidator, validatorOf } from '../contract/validate.ts';

/** What a session needs of the runner's options (ConformanceOptions, runner.ts, adds the property phase's). */
export interface SessionOptions {
  /** Address of the implementation, without `/v1` (such as `http://127.0.0.1:3000`). */
  baseUrl: string;
  /** A token that is admin of (at least) one organization. */
  token: string;
  /** The organization to run in (default: the first one the token is admin of). */
  organization?: string;
  /** A second organization for transferSpace and transferCollection (default: another one where the token may create content). */
  targetOrganization?: string;
  /** Operations not to call and not to require (their dependants are skipped too). */
  exclude?: string[];
  /** Host or address under which the implementation reaches the runner's website and tunnel (default 127.0.0.1). */
  serveHost?: string;
  /** Interface the runner's HTTP server listens on (default: serveHost). */
  serveBind?: string;
  /** Port of the runner's HTTP server (default: a free one). */
  servePort?: number;
  /** A Git repository URL for the Git export and import, instead of a local bare repository. */
  gitUrl?: string;
  /** A branch of `gitUrl` whose content a Git import brings when the website import does not succeed. */
  contentRef?: string;
  /** The template applied by applySpaceTemplate (default `getting-started`). */
  template?: string;
  /** Longest wait for background work (processing, runs, Git, event delivery), in ms (default 30 000). */
  waitMs?: number;
  /** Timeout of each request, in ms (default 30 000). */
  timeoutMs?: number;
  /** The OpenAPI document to check against: a file path or a parsed document (default generated/openapi.yaml). */
  contract?: string | OpenApiDocument;
  /** Receives progress lines (the CLI's --verbose). */
  log?: (line: string) => void;
  /** Receives one line when each group of steps ends (the CLI writes them to stderr). */
  progress?: (line: string) => void;
  /** When it fires, the run stops calling operations, deletes what it created, and returns its report (`interrupted`). */
  signal?: AbortSignal;
  /** fetch to use (default the global one). */
  fetch?: typeof globalThis.fetch;
}

export interface Violation {
  operationId: string;
  /** A problem of a response, or `property` for a failed check of the property phase (its id leads the message). */
  kind: ProblemKind | 'property';
  message: string;
  /** The scenario step or invalid input that made the request. */
  step: string;
  request: { method: string; url: string; body?: unknown };
  response?: { status: number; body?: string };
}

export interface OperationReport {
  method: string;
  path: string;
  /** Called at least once with its expected success status and a conforming response. */
  exercised: boolean;
  excluded?: boolean;
  /** Every status seen, in order of first appearance. */
  statuses: number[];
  /** Requests made: scenario steps, polls, invalid inputs and clean-up. */
  calls: number;
  /** Invalid inputs sent (each expecting 400). */
  invalidInputs: number;
  violations: Violation[];
}

export interface CallRecord {
  operationId: string;
  kind: CallKind;
  method: string;
  url: string;
  status: number;
  ms: number;
}

/** The report of a session (the runner's Report adds the property phase's). */
export interface SessionReport {
  baseUrl: string;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  contract: string;
  organization?: string;
  targetOrganization?: string;
  operations: Record<string, OperationReport>;
  violations: Violation[];
  /** Operations of the document not exercised (excluded ones left out). */
  notExercised: string[];
  /** What stopped a group of steps, waits that ran out, clean-up that failed. */
  notes: string[];
  calls: CallRecord[];
  summary: { operations: number; exercised: number; violations: number; excluded: number };
  /** Why an operation of `notExercised` could not be exercised, when the runner knows (a refused address, no file…). */
  notExercisedReasons: Record<string, string>;
  /** Where the main space's content came from: the runner's website, or the template when that import failed. */
  contentSource?: 'website' | 'git' | 'template';
  /** The implementation refused the runner's own address (imports, tunnel): what to change, in one line. */
  addressHint?: string;
  /** Set when SIGINT or SIGTERM (or `options.signal`) stopped the run; what it created was deleted. */
  interrupted?: string;
  /** Results of further checks (the property phase), each `{operationId, checkId, ok, message, request?, response?}`. */
  checks?: CheckResult[];
  /**
   * Operations of `notExercised` skipped for a reason the runner knows (in `notExercisedReasons`): the
   * implementation refused to reach the runner's address or repository, or what needed it. With no violation and
   * nothing else unexercised, the command exits 4 rather than 1.
   */
  skipped?: string[];
  /** What the run created and could not delete by its id at the end (a warning each; not a violation). */
  leftBehind?: LeftBehind[];
}

export type CallKind = 'scenario' | 'poll' | 'invalid' | 'cleanup' | 'property';

export interface StepOptions<K extends OperationId> {
  /** Statuses the step expects (default: the operation's declared success status). */
  expect?: number | number[];
  /** Count an expected non-2xx answer as exercising the operation (the transfer to the same organization: 409). */
  exercises?: boolean;
  /** When to send the invalid inputs: after the first successful call (default), before it (default for DELETE), or never. */
  invalid?: 'after' | 'before' | false;
  /** Undoes what an invalid input that was wrongly accepted created (given its answer). */
  undo?: (body: SuccessBody<K>) => Promise<unknown>;
  /** Names the step in the report (default: the operationId). */
  step?: string;
  /**
   * The step needs the implementation to reach the runner's own address: a declared 4xx answer is a refusal, not a
   * violation; the operation is then left unexercised with this reason.
   */
  refusable?: string;
}

export interface Result<K extends OperationId> {
  /** The status was expected and the response conforms. */
  ok: boolean;
  /** 0 when no answer came (network error, timeout) or the call was not made (excluded operation). */
  status: number;
  body: SuccessBody<K> | undefined;
  headers: Headers;
}

/** A step whose outcome later steps need did not succeed: the group stops there (its clean-up still runs). */
export class StepFailed extends Error {}

interface OperationState extends OperationReport {
  probed: boolean;
}

export const DEFAULTS = { serveHost: '127.0.0.1', template: 'getting-started', waitMs: 30_000, timeoutMs: 30_000 };


export class Session {
  readonly contract: Contract;
  private readonly validator: ResponseValidator;
  readonly operations = new Map<string, OperationState>();
  readonly violations: Violation[] = [];
  readonly notes: string[] = [];
  readonly calls: CallRecord[] = [];
  readonly reasons = new Map<string, string>();
  addressHint?: string;
  contentSource?: 'website' | 'git' | 'template';
  private readonly excluded: Set<string>;
  private readonly fetch: typeof globalThis.fetch;
  readonly baseUrl: string;
  /** The real ids of the run, by path parameter name (the property phase's path parameters). */
  readonly ids: IdPool;
  /** Runs once, before the clean-up of the first top-level group that has clean-up (the scenario's shared resources). */
  beforeSharedCleanup: (() => Promise<void>) | undefined;
  /** What the implementation created for the run, by id (ledger.ts): deleted by `sweep()` at the end. */
  readonly ledger: Ledger;
  private readonly leftBehind: LeftBehind[] = [];
  private depth = 0;

  constructor(readonly options: SessionOptions) {
    this.contract = loadContract(options.contract);
    const dialect = dialectProblem(this.contract.document);
    if (dialect) throw new UsageError(dialect);
    this.ids = new IdPool(new Set([...this.contract.operations.values()].flatMap((operation) => operation.parameters.filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name))));
    this.validator = validatorOf(this.contract);
    this.ledger = new Ledger(this.contract);
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetch = options.fetch ?? globalThis.fetch;
    this.excluded = new Set(options.exclude ?? []);
    const unknown = [...this.excluded].filter((id) => !this.contract.operations.has(id));
    if (unknown.length > 0) throw new UsageError(`--exclude names no operation of the contract: ${unknown.join(', ')}`);
    for (const operation of this.contract.operations.values()) {
      this.operations.set(operation.operationId, {
        method: operation.method.toUpperCase(),
        path: operation.path,
        exercised: false,
        ...(this.excluded.has(operation.operationId) ? { excluded: true } : {}),
        statuses: [],
        calls: 0,
        invalidInputs: 0,
        violations: [],
        probed: false,
      });
    }
  }

  /** The run was interrupted: no more steps, polls or invalid inputs; clean-up still runs. */
  get stopping(): boolean {
    return this.options.signal?.aborted ?? false;
  }

  /** Records why an operation could not be exercised (shown with `notExercised`). */
  unexercisable(ids: string[], reason: string): void {
    for (const id of ids) if (!this.operations.get(id)?.exercised && !this.reasons.has(id)) this.reasons.set(id, reason);
  }

  get waitMs(): number {
    return this.options.waitMs ?? DEFAULTS.waitMs;
  }

  log(line: string): void {
    this.options.log?.(line);
  }

  note(line: string): void {
    this.notes.push(line);
    this.log(`note: ${line}`);
  }

  /** Calls an operation as a scenario step: validates the answer, checks the expected status, records it all. */
  async call<K extends OperationId>(id: K, init: CallInit<K>, options: StepOptions<K> = {}): Promise<Result<K>> {
    return this.step(id, init, options, 'scenario');
  }

  /** A scenario step whose answer later steps need: returns the body, or stops the group (StepFailed). */
  async must<K extends OperationId>(id: K, init: CallInit<K>, options: StepOptions<K> = {}): Promise<SuccessBody<K>> {
    const result = await this.step(id, init, options, 'scenario');
    if (!result.ok) {
      const why = this.isExcluded(id) ? ' (excluded)' : result.status ? ` (status ${result.status})` : '';
      throw new StepFailed(`${options.step ?? id} did not succeed${why}`);
    }
    return result.body as SuccessBody<K>;
  }

  /** Clean-up: a delete that must succeed (expected statuses as given, 204 by default); never stops anything. */
  async cleanup<K extends OperationId>(id: K, init: CallInit<K>, expect: number[] = [204]): Promise<void> {
    if (this.isExcluded(id)) {
      this.note(`clean-up: ${id} is excluded: ${JSON.stringify(init.path ?? {})} is left as it is`);
      return;
    }
    const result = await this.step(id, init, { expect, invalid: false }, 'cleanup');
    if (!result.ok) this.note(`clean-up: ${id} ${JSON.stringify(init.path ?? {})} answered ${result.status || 'nothing'}`);
  }

  /**
   * Calls an operation until `done(body)` or until the wait for background work runs out (a note then); returns the
   * last successful body. The first call is a scenario step; the others are polls.
   */
  async poll<K extends OperationId>(
    id: K,
    init: CallInit<K>,
    done: (body: SuccessBody<K>) => boolean,
    what: string,
  ): Promise<SuccessBody<K> | undefined> {
    const deadline = Date.now() + this.waitMs;
    let delay = 20;
    let last: SuccessBody<K> | undefined;
    for (let attempt = 0; ; attempt++) {
      const result = await this.step(id, init, {}, attempt === 0 ? 'scenario' : 'poll');
      // A wrong answer is already a violation (polling again would only repeat it); no answer, likewise.
      if (!result.ok || result.body === undefined) return last;
      last = result.body;
      if (done(result.body) || this.stopping) return last;
      if (Date.now() + delay > deadline) {
        this.note(`${what}: not done after ${this.waitMs} ms`);
        return last;
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 500);
    }
  }

  /** Waits until `check()` holds, with the same bounded wait; a note when it never does. */
  async waitFor(check: () => boolean, what: string): Promise<boolean> {
    const deadline = Date.now() + this.waitMs;
    let delay = 20;
    while (!check()) {
      if (this.stopping) return false;
      if (Date.now() + delay > deadline) {
        this.note(`${what}: not done after ${this.waitMs} ms`);
        return false;
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 500);
    }
    return true;
  }

  /** Runs a group of steps: a failed step stops the group, and its deferred clean-up runs whatever happened. */
  async group(name: string, body: (defer: (cleanup: () => Promise<unknown>) => void) => Promise<void>): Promise<void> {
    const cleanups: (() => Promise<unknown>)[] = [];
    this.log(`# ${name}`);
    const started = Date.now();
    const calls = this.calls.length;
    const violations = this.violations.length;
    this.depth++;
    try {
      await body((cleanup) => void cleanups.push(cleanup));
    } catch (error) {
      if (this.stopping) this.log(`${name}: stopped: interrupted`);
      else if (error instanceof StepFailed) this.note(`${name}: stopped: ${error.message}`);
      else this.note(`${name}: runner error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    } finally {
      this.depth--;
      const hook = this.depth === 0 && cleanups.length > 0 && !this.stopping ? this.beforeSharedCleanup : undefined;
      if (hook) {
        this.beforeSharedCleanup = undefined;
        await hook().catch((error: unknown) => this.note(`property phase: runner error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`));
      }
      for (const cleanup of cleanups.reverse()) {
        try {
          await cleanup();
        } catch (error) {
          this.note(`${name}: clean-up failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      const found = this.violations.length - violations;
      this.options.progress?.(
        `docs-conformance: ${name}: ${this.calls.length - calls} calls, ${found} violation${found === 1 ? '' : 's'}, ` +
          `${this.exercisedCount()}/${this.operations.size} operations exercised so far (${Date.now() - started} ms)`,
      );
    }
  }

  private exercisedCount(): number {
    return [...this.operations.values()].filter((state) => state.exercised).length;
  }

  isExcluded(id: OperationId): boolean {
    return this.excluded.has(id);
  }

  private operation(id: string): Operation | undefined {
    return this.contract.operations.get(id);
  }

  private async step<K extends OperationId>(
    id: K,
    init: CallInit<K>,
    options: StepOptions<K>,
    kind: CallKind,
  ): Promise<Result<K>> {
    const none: Result<K> = { ok: false, status: 0, body: undefined, headers: new Headers() };
    const operation = this.operation(id);
    const state = this.operations.get(id);
    if (!operation || !state) {
      this.note(`${options.step ?? id}: ${id} is not an operation of the contract; not called`);
      return none;
    }
    if (state.excluded) return none;
    if (this.stopping && kind !== 'cleanup') return none;
    const expected = [options.expect ?? operation.successStatuses].flat();
    const step = options.step ?? id;
    const query = (init.query ?? {}) as Record<string, unknown>;
    const path = (init.path ?? {}) as Record<string, unknown>;

    // Invalid inputs go after the first successful call, or before it for a DELETE (after it, the resource is gone).
    const when = options.invalid ?? (operation.method === 'delete' ? 'before' : 'after');
    const probe = kind === 'scenario' && when !== false && !state.probed;
    if (probe && when === 'before') {
      state.probed = true;
      await this.sendProbes(operation, state, path, query, init.body, options);
    }
    const answer = await this.send(operation, state, { path, query, body: init.body }, kind, step);
    if (!answer) return none;
    const problems = [...answer.problems];
    const declaredOk = !problems.some((problem) => problem.kind === 'undeclared-status');
    if (options.refusable && declaredOk && answer.status >= 400 && answer.status < 500 && answer.status !== 401) {
      // The implementation refuses to reach the runner: not a violation (the answer is still validated).
      this.reasons.set(id, `${options.refusable}: answered ${answer.status}${errorMessage(answer.json)}`);
      this.record(operation, state, step, answer, problems);
      return { ok: false, status: answer.status, body: undefined, headers: answer.headers };
    }
    if (!expected.includes(answer.status) && declaredOk) {
      problems.unshift({
        kind: 'unexpected-status',
        message: `expected ${expected.join(' or ')}, got ${answer.status}${errorMessage(answer.json)}`,
      });
    } else if (!declaredOk) {
      problems[0] = { ...problems[0]!, message: `${problems[0]!.message} (expected ${expected.join(' or ')})` };
    }
    this.record(operation, state, step, answer, problems);
    const ok = problems.length === 0;
    if (ok && (answer.status < 300 || options.exercises)) state.exercised = true;
    if (ok && answer.status < 300) {
      this.ids.record(operation, path);
      if (kind === 'scenario') this.ids.recordBody(id, init.body);
    }
    if (probe && ok && when === 'after') {
      state.probed = true;
      await this.sendProbes(operation, state, path, query, init.body, options);
    }
    return {
      ok,
      status: answer.status,
      body: answer.status < 300 ? (answer.json as SuccessBody<K>) : undefined,
      headers: answer.headers,
    };
  }

  private async sendProbes<K extends OperationId>(
    operation: Operation,
    state: OperationState,
    path: Record<string, unknown>,
    query: Record<string, unknown>,
    body: unknown,
    options: StepOptions<K>,
  ): Promise<void> {
    for (const probe of deriveProbes(this.contract, operation, { query, body })) {
      if (this.stopping) return;
      const step = `invalid input: ${probe.rule}`;
      const answer = await this.send(operation, state, { path, query: probe.query, body: probe.body }, 'invalid', step);
      if (!answer) continue;
      state.invalidInputs++;
      const problems = [...answer.problems];
      if (answer.status >= 200 && answer.status < 300) {
        problems.unshift({ kind: 'invalid-input-accepted', message: `${probe.rule}: accepted with ${answer.status}, expected 400` });
        if (options.undo && answer.json !== undefined) {
          await options.undo(answer.json as SuccessBody<K>).catch(() => undefined);
        }
      } else if (answer.status !== 400 && !problems.some((problem) => problem.kind === 'undeclared-status')) {
        problems.unshift({ kind: 'unexpected-status', message: `${probe.rule}: expected 400, got ${answer.status}${errorMessage(answer.json)}` });
      } else if (answer.status === 400 && !isEnvelope(answer.json)) {
        problems.push({ kind: 'error-envelope', message: `${probe.rule}: the 400 answer has no {error: {code, message}} envelope` });
      }
      this.record(operation, state, step, answer, problems);
    }
  }

  private record(operation: Operation, state: OperationState, step: string, answer: Answer, problems: Problem[]): void {
    for (const problem of problems) {
      const violation: Violation = {
        operationId: operation.operationId,
        kind: problem.kind,
        message: problem.message,
        step,
        request: { method: answer.method, url: answer.url, ...(answer.requestBody !== undefined ? { body: answer.requestBody } : {}) },
        ...(answer.status ? { response: { status: answer.status, ...(answer.text ? { body: clip(answer.text) } : {}) } } : {}),
      };
      state.violations.push(violation);
      this.violations.push(violation);
      this.log(`  ✗ ${operation.operationId}: ${problem.message} (${answer.method} ${answer.url})`);
    }
  }

  /**
   * One request of the property phase: validated against the contract and counted as a call, but judged by the
   * phase's checks (a failed one becomes a `property` violation). `token`: the run's token by default, `null` for
   * none, or another one.
   */
  async exchange(
    operationId: string,
    input: { path: Record<string, unknown>; query: Record<string, unknown>; body?: unknown },
    token?: string | null,
  ): Promise<Answer | undefined> {
    const operation = this.operation(operationId);
    const state = this.operations.get(operationId);
    if (!operation || !state || state.excluded) return undefined;
    return this.send(operation, state, { path: input.path, query: input.query, body: input.body }, 'property', 'property', token);
  }

  /** Records a failed check of the property phase as a violation. */
  propertyViolation(violation: Omit<Violation, 'kind'>): void {
    const full: Violation = { ...violation, kind: 'property' };
    this.operations.get(violation.operationId)?.violations.push(full);
    this.violations.push(full);
  }

  private async send(
    operation: Operation,
    state: OperationState,
    input: { path: Record<string, unknown>; query: Record<string, unknown>; body: unknown },
    kind: CallKind,
    step: string,
    token: string | null = this.options.token,
  ): Promise<Answer | undefined> {
    const url = this.url(operation, input.path, input.query);
    const method = operation.method.toUpperCase();
    const headers: Record<string, string> = {
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      accept: 'application/json',
      'user-agent': 'docs-conformance',
    };
    if (input.body !== undefined) headers['content-type'] = 'application/json';
    if (kind !== 'invalid' && kind !== 'poll' && operation.operationId === 'deleteTranslation') await this.settleTranslation(input.path);
    const started = Date.now();
    state.calls++;
    let response: Response;
    let text: string;
    try {
      response = await this.fetch(url, {
        method,
        headers,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.options.timeoutMs ?? DEFAULTS.timeoutMs),
        ...(input.body !== undefined ? { body: JSON.stringify(input.body) } : {}),
      });
      text = await response.text();
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${this.options.timeoutMs ?? DEFAULTS.timeoutMs} ms` : (cause?.code ?? cause?.message ?? (error as Error).message);
      const answer: Answer = { method, url, requestBody: input.body, status: 0, headers: new Headers(), text: '', json: undefined, problems: [] };
      this.calls.push({ operationId: operation.operationId, kind, method, url, status: 0, ms: Date.now() - started });
      this.record(operation, state, step, answer, [{ kind: 'network', message: `the request failed: ${reason}` }]);
      return undefined;
    }
    const ms = Date.now() - started;
    this.calls.push({ operationId: operation.operationId, kind, method, url, status: response.status, ms });
    if (!state.statuses.includes(response.status)) state.statuses.push(response.status);
    this.log(`  ${kind === 'scenario' ? '→' : kind === 'invalid' ? '×' : kind === 'poll' ? '…' : kind === 'property' ? '∀' : '⌫'} ${method} ${url.slice(this.baseUrl.length)} ${response.status}`);
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    const problems = this.validator.validate(operation, { status: response.status, headers: response.headers, text });
    const fromContract = contractAnswerProblem(response.headers);
    if (fromContract) problems.push(fromContract);
    this.ledger.observe(operation, input.path, response.status, json);
    if (operation.operationId === 'createSite' && response.status === 201 && (input.body as { spaces?: unknown } | undefined)?.spaces === 'new') {
      await this.siteSpaces(input.path, json, 'createSite');
    }
    return { method, url, requestBody: input.body, status: response.status, headers: response.headers, text, json, problems };
  }

  /** A site created with `spaces: "new"`: the implementation made a space for it, which the site's deletion leaves. */
  private async siteSpaces(path: Record<string, unknown>, json: unknown, source: string): Promise<void> {
    const siteId = (json as { id?: unknown } | undefined)?.id;
    const list = this.operation('listSiteSpaces');
    const state = this.operations.get('listSiteSpaces');
    if (typeof siteId !== 'string' || typeof path.organizationId !== 'string' || !list || !state || state.excluded) return;
    const answer = await this.send(list, state, { path: { organizationId: path.organizationId, siteId }, query: { limit: 1000 }, body: undefined }, 'cleanup', 'clean-up: the spaces of a new site');
    if (!answer) return;
    if (answer.problems.length > 0) this.record(list, state, 'clean-up: the spaces of a new site', answer, answer.problems);
    for (const item of (answer.json as { items?: { space?: { id?: unknown } }[] } | undefined)?.items ?? []) {
      if (typeof item.space?.id === 'string') this.ledger.trackSpace(item.space.id, source);
    }
  }

  /**
   * Before a translation the run created is deleted: its runs finished (within the wait for background work), so that
   * its result space is known and no run writes one after the deletion. The poll's answers put it on the ledger. A
   * translation without a `source` has nothing to translate: no run is queued for it (its status stays `pending`, the
   * state a run would start from), so there is nothing to wait for.
   */
  private async settleTranslation(path: Record<string, unknown>): Promise<void> {
    const read = this.operation('getTranslation');
    const state = this.operations.get('getTranslation');
    const { organizationId, translationId } = path;
    if (!read || !state || state.excluded || typeof organizationId !== 'string' || typeof translationId !== 'string') return;
    if (!this.ledger.has(this.ledger.kindOf(read), translationId, organizationId)) return;
    const deadline = Date.now() + this.waitMs;
    let delay = 20;
    for (;;) {
      const answer = await this.send(read, state, { path: { organizationId, translationId }, query: {}, body: undefined }, 'poll', 'clean-up: the runs of the translation');
      const translation = answer?.json as { status?: unknown; source?: unknown } | undefined;
      if (!answer || answer.status !== 200 || translation?.status === 'completed' || translation?.source === undefined) return;
      if (Date.now() + delay > deadline) {
        this.note(`clean-up: translation ${translationId} still ${String(translation.status)} after ${this.waitMs} ms: a result space its run writes after its deletion is left`);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 500);
    }
  }

  /**
   * The end of the run: deletes by its id everything on the ledger (deleted already or not: a DELETE of what is gone
   * answers 204 or 404). What answers otherwise, or cannot be deleted (its DELETE excluded), is left behind.
   */
  async sweep(): Promise<void> {
    for (const item of this.ledger.pending()) {
      const state = this.operations.get(item.remove.operationId)!;
      const url = this.url(item.remove, item.path, {});
      const request = { method: item.remove.method.toUpperCase(), url };
      if (state.excluded) {
        this.leftBehind.push({ what: item.what, source: item.source, request, status: 0, reason: `${item.remove.operationId} is excluded` });
        continue;
      }
      const step = `clean-up: ${item.what}`;
      const answer = await this.send(item.remove, state, { path: item.path, query: {}, body: undefined }, 'cleanup', step);
      if (answer && answer.problems.length > 0) this.record(item.remove, state, step, answer, answer.problems);
      if (answer && ((answer.status >= 200 && answer.status < 300) || answer.status === 404)) continue;
      this.leftBehind.push({
        what: item.what,
        source: item.source,
        request,
        status: answer?.status ?? 0,
        reason: answer ? `${item.remove.operationId} answered ${answer.status}${errorMessage(answer.json)}` : `${item.remove.operationId} got no answer`,
      });
    }
  }

  /**
   * A request written by hand (node:http, as fetch cannot send a body with GET or stream one it stops early): a body
   * in any form, or `size` bytes of JSON text sent in chunks with that Content-Length until the answer comes (an
   * implementation that refuses a body by its length answers before most of it is sent; the rest is never sent).
   * The answer is validated against `operation` when given (a method of no operation has no declared answer).
   */
  async raw(
    operation: Operation | undefined,
    request: { method: string; url: string; headers?: Record<string, string>; body?: string | { size: number }; token?: string | null },
  ): Promise<Answer | undefined> {
    const httpRequest = request.url.startsWith('https:') ? httpsRequest : plainRequest;
    const token = request.token === undefined ? this.options.token : request.token;
    const size = typeof request.body === 'object' ? request.body.size : request.body === undefined ? undefined : Buffer.byteLength(request.body);
    const headers: Record<string, string> = {
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      'user-agent': 'docs-conformance',
      ...(size !== undefined ? { 'content-length': String(size) } : {}),
      ...request.headers,
    };
    const state = operation ? this.operations.get(operation.operationId) : undefined;
    if (state) state.calls++;
    const started = Date.now();
    const timeoutMs = this.options.timeoutMs ?? DEFAULTS.timeoutMs;
    const answer = await new Promise<{ status: number; headers: Headers; text: string } | undefined>((resolve) => {
      let answered = false;
      const outgoing = httpRequest(request.url, { method: request.method, headers, timeout: timeoutMs }, (response) => {
        answered = true;
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : String(value));
          }
          resolve({ status: response.statusCode ?? 0, headers: responseHeaders, text: Buffer.concat(chunks).toString('utf8') });
          outgoing.destroy();
        });
        response.on('error', () => resolve(undefined));
      });
      outgoing.on('error', () => {
        if (!answered) resolve(undefined);
      });
      outgoing.on('timeout', () => outgoing.destroy(new Error('timeout')));
      if (typeof request.body === 'object') {
        // `{"a":"xxxx…` (JSON cut short: only its size matters), written as the socket drains, stopped by the answer.
        const total = request.body.size;
        const chunk = Buffer.concat([Buffer.from('{"a":"'), Buffer.alloc(64 * 1024, 'x')]);
        let sent = 0;
        const write = () => {
          while (!answered && !outgoing.destroyed) {
            if (sent >= total) return void outgoing.end();
            const piece = chunk.subarray(sent === 0 ? 0 : 6, (sent === 0 ? 0 : 6) + Math.min(total - sent, 64 * 1024));
            sent += piece.length;
            if (!outgoing.write(piece)) return void outgoing.once('drain', write);
          }
        };
        write();
      } else {
        outgoing.end(request.body);
      }
    });
    const ms = Date.now() - started;
    this.calls.push({ operationId: operation?.operationId ?? '', kind: 'property', method: request.method, url: request.url, status: answer?.status ?? 0, ms });
    if (!answer) return undefined;
    if (state && !state.statuses.includes(answer.status)) state.statuses.push(answer.status);
    this.log(`  ∀ ${request.method} ${request.url.slice(this.baseUrl.length)} ${answer.status}`);
    let json: unknown;
    try {
      json = answer.text ? JSON.parse(answer.text) : undefined;
    } catch {
      json = undefined;
    }
    const problems = operation ? this.validator.validate(operation, answer) : [];
    return { method: request.method, url: request.url, requestBody: undefined, status: answer.status, headers: answer.headers, text: answer.text, json, problems };
  }

  /** The request URL: the operation's path template filled with the path parameters, and the query. */
  url(operation: Operation, path: Record<string, unknown>, query: Record<string, unknown>): string {
    const filled = operation.path.replace(/\{([^}]+)\}/g, (_match, name: string) => {
      const value = path[name];
      if (value === undefined || value === null) throw new Error(`${operation.operationId}: path parameter ${name} is missing`);
      return encodeURIComponent(String(value));
    });
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      if (value === undefined) continue;
      const parameter = operation.parameters.find((candidate) => candidate.in === 'query' && candidate.name === name);
      if (Array.isArray(value)) {
        if (parameter?.explode === false) search.append(name, value.map(String).join(','));
        else for (const item of value) search.append(name, String(item));
      } else {
        search.append(name, String(value));
      }
    }
    const qs = search.toString();
    return `${this.baseUrl}${filled}${qs ? `?${qs}` : ''}`;
  }

  report(startedAt: Date, extra: { organization?: string; targetOrganization?: string }): SessionReport {
    const operations: Record<string, OperationReport> = {};
    for (const [id, { probed: _probed, ...state }] of this.operations) operations[id] = state;
    const counted = [...this.operations.entries()].filter(([, state]) => !state.excluded);
    const finishedAt = new Date();
    const notExercised = counted.filter(([, state]) => !state.exercised).map(([id]) => id);
    const reasons = Object.fromEntries(notExercised.filter((id) => this.reasons.has(id)).map((id) => [id, this.reasons.get(id)!]));
    const skipped = notExercised.filter((id) => this.reasons.has(id));
    return {
      baseUrl: this.baseUrl,
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      durationMs: finishedAt.getTime() - startedAt.getTime(),
      contract: this.contract.source,
      ...extra,
      operations,
      violations: this.violations.filter((violation) => !this.excluded.has(violation.operationId)),
      notExercised,
      notes: this.notes,
      calls: this.calls,
      summary: {
        operations: this.operations.size,
        exercised: counted.filter(([, state]) => state.exercised).length,
        violations: this.violations.filter((violation) => !this.excluded.has(violation.operationId)).length,
        excluded: this.operations.size - counted.length,
      },
      notExercisedReasons: reasons,
      ...(this.contentSource ? { contentSource: this.contentSource } : {}),
      ...(this.addressHint ? { addressHint: this.addressHint } : {}),
      ...(this.options.signal?.aborted ? { interrupted: signalName(this.options.signal.reason) } : {}),
      ...(skipped.length > 0 ? { skipped } : {}),
      ...(this.leftBehind.length > 0 ? { leftBehind: this.leftBehind } : {}),
    };
  }
}

export interface Answer {
  method: string;
  url: string;
  requestBody: unknown;
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
  problems: Problem[];
}

/** A wrong invocation of the runner (the CLI exits 2). */
export class UsageError extends Error {}

const signalName = (reason: unknown) => (typeof reason === 'string' ? reason : reason instanceof Error ? reason.message : 'aborted');

const isEnvelope = (json: unknown) => {
  const error = (json as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  return typeof error?.code === 'number' && typeof error.message === 'string';
};

export const errorMessage = (json: unknown) => {
  const message = (json as { error?: { message?: unknown } } | undefined)?.error?.message;
  return typeof message === 'string' ? ` (${message.length > 160 ? `${message.slice(0, 160)}…` : message})` : '';
};

const clip = (text: string) => (text.length > 1000 ? `${text.slice(0, 1000)}…` : text);
