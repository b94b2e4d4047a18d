// The real ids of a run: every path parameter of a successful call, by name, forgotten when a DELETE of that path
// succeeds. The property phase fills path parameters (and body fields named after them) from here.
import type { Operation } from '../contract/contract.ts';

export class IdPool {
  private readonly byName = new Map<string, string[]>();
  private readonly byOperation = new Map<string, Record<string, string>[]>();
  private readonly dead = new Set<string>();
  private readonly fields = new Map<string, string[]>();
  private readonly bodies = new Map<string, Record<string, unknown>>();

  constructor(private readonly parameterNames: Set<string> = new Set()) {}

  /**
   * The body of a successful call: kept as that operation's accepted body, and its top-level string fields that
   * hold a real id (a value some path parameter had, or a field named after a path parameter: `organization`,
   * `space`) remembered by field name.
   */
  recordBody(operationId: string, body: unknown): void {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
    this.bodies.set(operationId, body as Record<string, unknown>);
    const known = new Set([...this.byName.values()].flat());
    for (const [name, value] of Object.entries(body)) {
      const values = [value].flat().filter((item): item is string => typeof item === 'string');
      for (const item of values) {
        if (!known.has(item) && !this.parameterNames.has(`${name}Id`) && !this.parameterNames.has(name)) continue;
        const list = this.fields.get(name) ?? [];
        if (!list.includes(item)) list.push(item);
        this.fields.set(name, list);
      }
    }
  }

  /** The last body of an operation that was accepted. */
  acceptedBody(operationId: string): Record<string, unknown> | undefined {
    return this.bodies.get(operationId);
  }

  /** Real ids for a body field: by parameter name (`spaceId`, `space` → `spaceId`), else the ids sent in that field. */
  forField(name: string): string[] | undefined {
    const live = (list: string[] | undefined) => list?.filter((value) => ![...this.dead].some((key) => key.endsWith(`\u0000${value}`)));
    const found = this.values(name) ?? this.values(`${name}Id`) ?? live(this.fields.get(name));
    return found && found.length > 0 ? found : undefined;
  }

  /** A successful call of `operation` with these path parameters. */
  record(operation: Operation, path: Record<string, unknown>): void {
    const names = pathNames(operation.path);
    const values: Record<string, string> = {};
    for (const name of names) {
      const value = path[name];
      if (value === undefined || value === null) return;
      values[name] = String(value);
    }
    if (operation.method === 'delete') {
      const last = names.at(-1);
      if (last) this.forget(last, values[last]!);
      return;
    }
    for (const [name, value] of Object.entries(values)) this.add(name, value);
    const known = this.byOperation.get(operation.operationId) ?? [];
    if (!known.some((candidate) => sameRecord(candidate, values))) known.push(values);
    this.byOperation.set(operation.operationId, known);
  }

  add(name: string, value: string): void {
    this.dead.delete(`${name}\u0000${value}`);
    const list = this.byName.get(name) ?? [];
    if (!list.includes(value)) list.push(value);
    this.byName.set(name, list);
  }

  /** An id to use first for its name. */
  prefer(name: string, value: string): void {
    this.add(name, value);
    this.byName.set(name, [value, ...this.byName.get(name)!.filter((candidate) => candidate !== value)]);
  }

  /** Whether the operation was called with path parameters that are all still alive. */
  hasKnownPath(operation: Operation): boolean {
    const names = pathNames(operation.path);
    return (this.byOperation.get(operation.operationId) ?? []).some((values) => names.every((name) => !this.dead.has(`${name}\u0000${values[name]}`)));
  }

  /** The path parameters the operation was first called with, alive or not. */
  recordedPath(operationId: string): Record<string, string> | undefined {
    return this.byOperation.get(operationId)?.[0];
  }

  isAlive(name: string, value: string): boolean {
    return !this.dead.has(`${name}\u0000${value}`);
  }

  forget(name: string, value: string): void {
    this.dead.add(`${name}\u0000${value}`);
    const list = this.byName.get(name);
    if (list) this.byName.set(name, list.filter((candidate) => candidate !== value));
  }

  /** The live ids of a parameter name. */
  values(name: string): string[] | undefined {
    const list = this.byName.get(name);
    return list && list.length > 0 ? [...list] : undefined;
  }

  /**
   * Path parameters for an operation: the ones it was called with (still alive), else one combination of the live
   * ids of each name; a name with no id gets a value that names nothing (the answer is then a 404).
   */
  pathsFor(operation: Operation): Record<string, string>[] {
    const names = pathNames(operation.path);
    if (names.length === 0) return [{}];
    const alive = (values: Record<string, string>) => names.every((name) => !this.dead.has(`${name}\u0000${values[name]}`));
    const known = (this.byOperation.get(operation.operationId) ?? []).filter(alive);
    if (known.length > 0) return known;
    const composed: Record<string, string> = {};
    for (const name of names) composed[name] = this.values(name)?.[0] ?? 'docs-conformance-missing';
    return [composed];
  }

  /** Whether every path parameter of the operation has a live id. */
  covers(operation: Operation): boolean {
    return pathNames(operation.path).every((name) => this.values(name) !== undefined);
  }
}

export const pathNames = (template: string): string[] => [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);

/** The field of a resource that a path parameter names: its last camel-case word (`spaceId` → `id`). */
export const keyField = (parameter: string): string => {
  const words = parameter.split(/(?=[A-Z])/);
  return words.length > 1 ? words.at(-1)!.toLowerCase() : parameter;
};

const sameRecord = (a: Record<string, string>, b: Record<string, string>) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([key, value]) => b[key] === value);
