// What the run made the implementation create, by id, so that the run leaves nothing behind: the session puts on the
// ledger every item of the organization's lists an answer shows (derived from the contract: a 201 whose schema is an
// item's), and at the end of the run (runner.ts) every item still on it is deleted by its id, what could not be
// reported. What counts as an item, and why: conformance/README.md ("Everything else it deletes, by id").
import type { Contract, Operation, Schema } from '../contract/contract.ts';
import { keyField, pathNames } from './ids.ts';

/** A kind of item the organization lists: its schema, its GET and DELETE, its key. */
interface Kind {
  schema: string;
  read: Operation;
  remove: Operation;
  /** The path parameter naming the item (`spaceId`), and the answer's field holding it (`id`). */
  parameter: string;
  field: string;
}

export interface TrackedItem {
  /** `space 0Vbz…`: the schema's name and the key. */
  what: string;
  /** The operation whose answer made it known (`createSite`, `duplicateSpace`, `getTranslation`…). */
  source: string;
  remove: Operation;
  path: Record<string, string>;
}

/** Something the run created that its clean-up could not delete by id (a warning, not a violation). */
export interface LeftBehind {
  /** `space 0Vbz…`. */
  what: string;
  /** The operation whose answer made it known. */
  source: string;
  /** The DELETE tried, and what came of it. */
  request: { method: string; url: string };
  status: number;
  reason: string;
}

/** The `$ref` of an operation's JSON success schema (`#/components/schemas/Space`), if it has one. */
function successRef(contract: Contract, operation: Operation): string | undefined {
  for (const status of operation.successStatuses) {
    const raw = contract.document.paths[operation.path]?.[operation.method]?.responses?.[String(status)];
    const schema = raw && contract.resolve(raw as Schema & { content?: Record<string, { schema?: Schema }> }).content?.['application/json']?.schema;
    if (schema?.$ref) return schema.$ref;
  }
  return undefined;
}

export class Ledger {
  private readonly kinds = new Map<string, Kind>();
  /** By the DELETE's URL path, in the order they became known. */
  private readonly items = new Map<string, TrackedItem>();

  constructor(private readonly contract: Contract) {
    const operations = [...contract.operations.values()];
    for (const remove of operations) {
      if (remove.method !== 'delete') continue;
      const names = pathNames(remove.path);
      const parameter = names.at(-1);
      if (!parameter || !remove.path.endsWith(`{${parameter}}`) || !names.slice(0, -1).every((name) => name === 'organizationId')) continue;
      const read = operations.find((candidate) => candidate.method === 'get' && candidate.path === remove.path);
      const schema = read && successRef(contract, read);
      if (!read || !schema || this.kinds.has(schema)) continue;
      this.kinds.set(schema, { schema, read, remove, parameter, field: keyField(parameter) });
    }
  }

  /** The kind of item an answer of `operation` describes, if any. */
  kindOf(operation: Operation): Kind | undefined {
    const schema = successRef(this.contract, operation);
    return schema ? this.kinds.get(schema) : undefined;
  }

  private kindNamed(name: string): Kind | undefined {
    return this.kinds.get(`#/components/schemas/${name}`);
  }

  /** Puts an item on the ledger (once). `organizationId`: the organization it was created in, for kinds that need it. */
  track(kind: Kind, key: string, source: string, organizationId?: string): void {
    const path: Record<string, string> = { [kind.parameter]: key };
    if (pathNames(kind.remove.path).includes('organizationId')) {
      if (!organizationId) return;
      path.organizationId = organizationId;
    }
    const id = kind.remove.path.replace(/\{([^}]+)\}/g, (_match, name: string) => encodeURIComponent(path[name]!));
    if (!this.items.has(id)) this.items.set(id, { what: `${kind.schema.split('/').at(-1)!.toLowerCase()} ${key}`, source, remove: kind.remove, path });
  }

  /** A space made on the runner's behalf (a site's new space, a translation's result). */
  trackSpace(spaceId: string, source: string): void {
    const kind = this.kindNamed('Space');
    if (kind) this.track(kind, spaceId, source);
  }

  has(kind: Kind | undefined, key: string, organizationId?: string): boolean {
    if (!kind) return false;
    const path: Record<string, string> = { [kind.parameter]: key, ...(organizationId ? { organizationId } : {}) };
    const id = kind.remove.path.replace(/\{([^}]+)\}/g, (_match, name: string) => encodeURIComponent(path[name] ?? ''));
    return this.items.has(id);
  }

  /**
   * Learns from an answer: a 201 whose schema is an item's is a new item (whoever sent it: a step, an invalid input
   * wrongly accepted, the property phase); a tracked item's answer that names a result space (a translation) adds
   * that space.
   */
  observe(operation: Operation, path: Record<string, unknown>, status: number, json: unknown): void {
    if (status < 200 || status >= 300 || typeof json !== 'object' || json === null) return;
    const kind = this.kindOf(operation);
    if (!kind) return;
    const body = json as Record<string, unknown>;
    const key = body[kind.field];
    if (typeof key !== 'string') return;
    const organizationId = typeof path.organizationId === 'string' ? path.organizationId : undefined;
    if (status === 201 && (operation.method === 'post' || operation.method === 'put')) this.track(kind, key, operation.operationId, organizationId);
    const result = (body.result as { space?: unknown } | undefined)?.space;
    if (typeof result === 'string' && this.has(kind, key, organizationId)) this.trackSpace(result, operation.operationId);
  }

  /** Everything on the ledger, the last known first (what was made inside another goes before it). */
  pending(): TrackedItem[] {
    return [...this.items.values()].reverse();
  }
}
