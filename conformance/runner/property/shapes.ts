// What the property phase reads off the contract: the families of resources it can create, read, change and delete
// itself, the creates that make what a path parameter names, the GET that reads back a write, the fields a write
// answers as written, and what an operation declares (authentication, pagination).
import type { Contract, Operation, Schema } from '../../contract/contract.ts';
import { exceptions } from './exceptions.ts';
import { flatten, writableProperties } from './generate.ts';
import { pathNames } from '../ids.ts';

/** The JSON schema of an operation's first success answer that has one. */
export const successSchema = (contract: Contract, operation: Operation): Schema | undefined => {
  for (const status of operation.successStatuses) {
    const raw = contract.document.paths[operation.path]?.[operation.method]?.responses?.[String(status)];
    const schema = raw && contract.resolve(raw as Schema & { content?: Record<string, { schema?: Schema }> }).content?.['application/json']?.schema;
    if (schema) return schema as Schema;
  }
  return undefined;
};

/** A resource the phase can create, read, change and delete itself: derived from the contract. */
export interface Family {
  create: Operation;
  read: Operation;
  updates: Operation[];
  remove?: Operation;
}

/** The name of a success schema when it is a reference (`#/components/schemas/Space`), to match operations on one resource. */
export const successRef = (contract: Contract, operation: Operation): string | undefined => successSchema(contract, operation)?.$ref;

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
  const answered = Object.keys(allProperties(contract, response));
  const skipped = new Set(exceptions().roundTrip.filter((entry) => (entry.operation === operation.operationId || entry.operation === '*') && !('value' in entry)).map((entry) => entry.field));
  return Object.keys(writableProperties(contract, operation.body.schema).properties).filter((name) => answered.includes(name) && !skipped.has(name));
}

/** Every property of a schema, its `allOf` parts' included, read-only ones too ({} for a schema that is no object). */
export const allProperties = (contract: Contract, schema: Schema) => {
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

/** Whether an operation declares authentication: a security requirement that is not empty, and a 401 answer. */
export function declaresAuth(contract: Contract, operation: Operation): boolean {
  const own = contract.document.paths[operation.path]?.[operation.method]?.security as unknown[] | undefined;
  const security = own ?? (contract.document.security as unknown[] | undefined) ?? [];
  return security.length > 0 && !security.some((requirement) => Object.keys(requirement as object).length === 0) && Object.keys(operation.responses).includes('401');
}

/** Whether an operation answers a page of a list: its success schema has `items` and `next`. */
export function isPaginated(contract: Contract, operation: Operation): boolean {
  const schema = successSchema(contract, operation);
  if (!schema) return false;
  const properties = allProperties(contract, schema);
  return 'items' in properties && 'next' in properties;
}

/** Whether `url` is on the path of `operation` (its parameters any one segment). */
export function onPath(operation: Operation, url: string): boolean {
  const pattern = new RegExp(`^${operation.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}(\\?|$)`);
  return pattern.test(new URL(url).pathname + new URL(url).search);
}
