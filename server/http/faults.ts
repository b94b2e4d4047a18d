// Declared faults on demand (the test harness's `server.faults`): for the next N matching requests, an operation
// answers an error status its contract declares, answers late, or drops the connection, once the request passed the
// contract's and the token's checks and before the operation runs; what the contract does not declare is refused when
// added (server/docs/harness.md, "Faults on demand").
import type { Request, Response } from 'express';
import type { OpenApiDocument } from './contract.ts';

export interface FaultSpec {
  /** The operation id. */
  operation: string;
  /** An error status the operation declares. */
  status?: number;
  /** The error message of the envelope (a generic one by default). */
  message?: string;
  /** Headers of the answer; those the status declares as required and that are not given are added. */
  headers?: Record<string, string>;
  /** Wait this long first; alone, the request is then served as always (a slow answer). */
  delayMs?: number;
  /** Close the connection without an answer (after `delayMs`, if given). */
  drop?: boolean;
  /** How many matching requests it applies to (all of them until cleared, by default). */
  times?: number;
  /** Only requests with these path parameters, or this caller's token. */
  when?: { params?: Record<string, string>; token?: string };
}

/** A fault refused when added: what was wrong with it. */
export class FaultError extends Error {}

interface Declared {
  /** Declared statuses: for each, the names of the headers it declares as required (lowercase). */
  statuses: Map<number, string[]>;
  pathParameters: Set<string>;
}

const MAX_DELAY_MS = 600_000;
const DEFAULT_HEADERS: Record<string, string> = { 'retry-after': '1' };

const STATUS_MESSAGES: Record<number, string> = {
  429: 'Too many requests (a fault of the test harness)',
  500: 'Internal server error (a fault of the test harness)',
  503: 'Service unavailable (a fault of the test harness)',
};

export class Faults {
  private readonly declared = new Map<string, Declared>();
  private readonly active: { spec: FaultSpec; left: number }[] = [];

  constructor(contract: OpenApiDocument) {
    for (const item of Object.values(contract.paths)) {
      const shared = (item.parameters ?? []) as { in?: string; name?: string; $ref?: string }[];
      for (const operation of Object.values(item) as { operationId?: string; responses?: Record<string, { headers?: Record<string, { required?: boolean }> }>; parameters?: { in?: string; name?: string; $ref?: string }[] }[]) {
        if (typeof operation?.operationId !== 'string') continue;
        const statuses = new Map<number, string[]>();
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          if (!/^[45]\d\d$/.test(status)) continue;
          const required = Object.entries(response.headers ?? {}).filter(([, header]) => header.required).map(([name]) => name.toLowerCase());
          statuses.set(Number(status), required);
        }
        const parameters = [...shared, ...(operation.parameters ?? [])].map((parameter) => resolved(contract, parameter));
        const pathParameters = new Set(parameters.filter((p) => p.in === 'path').map((p) => p.name!));
        this.declared.set(operation.operationId, { statuses, pathParameters });
      }
    }
  }

  /** Adds a fault after the others; throws a FaultError saying what is wrong with it. */
  add(spec: FaultSpec): void {
    this.active.push({ spec: this.checked(spec), left: spec.times ?? Number.POSITIVE_INFINITY });
  }

  /** Removes every fault. */
  clear(): void {
    this.active.length = 0;
  }

  /** The fault the request takes (counting it), or undefined; `token` gives the caller's token, when a fault asks. */
  take(operationId: string, req: Request, token: () => string | undefined): FaultSpec | undefined {
    if (this.active.length === 0) return undefined;
    for (let index = 0; index < this.active.length; index++) {
      const fault = this.active[index]!;
      const { spec } = fault;
      if (spec.operation !== operationId || !matches(spec, req, token)) continue;
      if (--fault.left <= 0) this.active.splice(index, 1);
      return spec;
    }
    return undefined;
  }

  private checked(spec: FaultSpec): FaultSpec {
    if (spec === null || typeof spec !== 'object') throw new FaultError('a fault is an object: { operation, status?, delayMs?, drop?, headers?, times?, when? }');
    const known = new Set(['operation', 'status', 'message', 'headers', 'delayMs', 'drop', 'times', 'when']);
    const unknown = Object.keys(spec).filter((key) => !known.has(key));
    if (unknown.length > 0) throw new FaultError(`unknown field${unknown.length > 1 ? 's' : ''} of a fault: ${unknown.join(', ')}`);
    const declared = this.declared.get(spec.operation);
    if (!declared) {
      const nearest = typeof spec.operation === 'string' ? nearestName(spec.operation, [...this.declared.keys()]) : undefined;
      throw new FaultError(`operation: ${JSON.stringify(spec.operation)} is not an operation of the contract${nearest ? ` (did you mean ${nearest}?)` : ''}`);
    }
    const name = spec.operation;
    if (spec.status === undefined && spec.delayMs === undefined && !spec.drop) {
      throw new FaultError(`${name}: a fault needs a status, a delayMs or drop: true`);
    }
    if (spec.drop !== undefined && typeof spec.drop !== 'boolean') throw new FaultError(`${name}: drop must be true or false`);
    if (spec.drop && spec.status !== undefined) throw new FaultError(`${name}: a dropped connection has no status: give one of them`);
    let headers: Record<string, string> = {};
    if (spec.status !== undefined) {
      const required = declared.statuses.get(spec.status);
      if (required === undefined) {
        const statuses = [...declared.statuses.keys()].join(', ');
        throw new FaultError(`${name}: status ${JSON.stringify(spec.status)} is not an error status it declares (it declares ${statuses})`);
      }
      if (spec.headers !== undefined && (spec.headers === null || typeof spec.headers !== 'object' || Object.values(spec.headers).some((value) => typeof value !== 'string'))) {
        throw new FaultError(`${name}: headers must be an object of strings`);
      }
      headers = Object.fromEntries(Object.entries(spec.headers ?? {}).map(([header, value]) => [header.toLowerCase(), value]));
      for (const header of required) {
        const value = headers[header] ?? DEFAULT_HEADERS[header];
        if (value === undefined) throw new FaultError(`${name}: status ${spec.status} declares the header ${header}: give it in headers`);
        headers[header] = value;
      }
    } else if (spec.headers !== undefined) {
      throw new FaultError(`${name}: headers go with a status`);
    }
    if (spec.message !== undefined && (typeof spec.message !== 'string' || spec.status === undefined)) {
      throw new FaultError(`${name}: message is a string, and goes with a status`);
    }
    if (spec.delayMs !== undefined && !(Number.isInteger(spec.delayMs) && spec.delayMs >= 0 && spec.delayMs <= MAX_DELAY_MS)) {
      throw new FaultError(`${name}: delayMs must be a whole number of milliseconds from 0 to ${MAX_DELAY_MS}`);
    }
    if (spec.times !== undefined && !(Number.isInteger(spec.times) && spec.times >= 1)) {
      throw new FaultError(`${name}: times must be a whole number from 1`);
    }
    const when = spec.when;
    if (when !== undefined) {
      if (when === null || typeof when !== 'object') throw new FaultError(`${name}: when is an object: { params?, token? }`);
      const extra = Object.keys(when).filter((key) => key !== 'params' && key !== 'token');
      if (extra.length > 0) throw new FaultError(`${name}: unknown field of when: ${extra.join(', ')}`);
      for (const [parameter, value] of Object.entries(when.params ?? {})) {
        if (!declared.pathParameters.has(parameter)) {
          const names = [...declared.pathParameters].join(', ') || 'none';
          throw new FaultError(`${name}: when.params.${parameter} is not a path parameter of the operation (it has ${names})`);
        }
        if (typeof value !== 'string') throw new FaultError(`${name}: when.params.${parameter} must be a string`);
      }
      if (when.token !== undefined && typeof when.token !== 'string') throw new FaultError(`${name}: when.token must be a string`);
    }
    return { ...spec, headers };
  }
}

/** A parameter, or the component its `$ref` names (`#/components/parameters/...`). */
function resolved(contract: OpenApiDocument, parameter: { in?: string; name?: string; $ref?: string }): { in?: string; name?: string } {
  const name = parameter.$ref?.match(/^#\/components\/parameters\/(.+)$/)?.[1];
  if (name === undefined) return parameter;
  const components = contract.components as { parameters?: Record<string, { in?: string; name?: string }> } | undefined;
  return components?.parameters?.[name.replace(/~1/g, '/').replace(/~0/g, '~')] ?? {};
}

function matches(spec: FaultSpec, req: Request, token: () => string | undefined): boolean {
  const when = spec.when;
  if (!when) return true;
  if (when.token !== undefined && when.token !== token()) return false;
  for (const [parameter, value] of Object.entries(when.params ?? {})) {
    if (String(req.params[parameter]) !== value) return false;
  }
  return true;
}

/**
 * Answers `req` as `fault` says: waits its delay, then drops the connection or answers its status. True when the
 * request was answered (or dropped); false for a delay alone, after which the request is served as always.
 */
export async function applyFault(fault: FaultSpec, req: Request, res: Response): Promise<boolean> {
  if (fault.delayMs) {
    let gone = false;
    res.once('close', () => (gone = true));
    await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
    // The client gave up meanwhile (its timeout): nothing to answer, and the operation is not run for nobody.
    if (gone) return true;
  }
  if (fault.drop) {
    req.socket.destroy();
    return true;
  }
  if (fault.status === undefined) return false;
  const message = fault.message ?? STATUS_MESSAGES[fault.status] ?? `Status ${fault.status} (a fault of the test harness)`;
  res.set(fault.headers ?? {}).status(fault.status).json({ error: { code: fault.status, message } });
  return true;
}

/**
 * The name of `names` nearest to `name`, when one is near enough to be what was meant: the fewest single-character
 * edits (Levenshtein's distance, case aside), at most a third of the name's length; the first of equals.
 */
function nearestName(name: string, names: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of names) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (!best || distance < best.distance) best = { name: candidate, distance };
  }
  return best && best.distance <= Math.max(1, Math.floor(name.length / 3)) ? best.name : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}
