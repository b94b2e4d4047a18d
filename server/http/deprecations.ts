// The deprecations of the served contract, read once at start: for each operation, whether it is deprecated and which
// of its parameters and request body fields are, with the headers an answer carries for each (`Deprecation`, RFC 9745;
// `Sunset`, RFC 8594; `Link` to the successor and to the docs). A request pays a map lookup; only one for an operation
// that has a deprecated parameter or field looks further, at those names alone (server/docs/wire-behaviour.md).
import type { Request } from 'express';
import { type Deprecation, deprecationOf, startOfDay } from '../../conformance/contract/deprecation.ts';
import { contractOperations, type OpenApiDocument } from './contract.ts';

/** One deprecated thing of an operation, and the headers an answer that used it carries. */
interface Deprecated {
  /** The operation itself, `query.name` (a parameter), or `/field/below` (a request body field). */
  use: string;
  deprecation: Deprecation;
  /** `Deprecation`, as seconds since the epoch. */
  since: number;
  /** `Sunset`, in milliseconds, when dated. */
  sunset?: number;
  links: string[];
}

export interface OperationDeprecations {
  operation?: Deprecated;
  parameters: (Deprecated & { in: string; name: string })[];
  /** Request body fields, each by its path of property names from the body. */
  fields: (Deprecated & { at: string[] })[];
}

export interface DeprecationSetting {
  /** The server's public address (PUBLIC_URL), the base of the links. */
  publicUrl: string;
  /** What an undated deprecation sends as its `Deprecation` date, in milliseconds: the moment the server started. */
  startedAt: number;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Follows local `$ref`s; keeps the siblings of the first (a property's `deprecated: true` beside its `$ref`). */
function resolved(document: OpenApiDocument, node: unknown): Record<string, unknown> | undefined {
  const seen = new Set<string>();
  let here = node;
  while (isObject(here) && typeof here.$ref === 'string' && here.$ref.startsWith('#/') && !seen.has(here.$ref)) {
    seen.add(here.$ref);
    let target: unknown = document;
    for (const segment of here.$ref.slice(2).split('/')) target = isObject(target) ? target[segment.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
    here = target;
  }
  return isObject(here) ? here : undefined;
}

const deprecationAt = (document: OpenApiDocument, node: unknown) => deprecationOf(node) ?? deprecationOf(resolved(document, node));

/** The deprecated properties below a request body schema (through `allOf`), each by its path of names. */
function deprecatedFields(document: OpenApiDocument, schema: unknown, at: string[] = [], seen = new Set<unknown>()): { at: string[]; deprecation: Deprecation }[] {
  const here = resolved(document, schema);
  if (!here || seen.has(here) || at.length > 8) return [];
  seen.add(here);
  const found: { at: string[]; deprecation: Deprecation }[] = [];
  for (const part of Array.isArray(here.allOf) ? here.allOf : []) found.push(...deprecatedFields(document, part, at, seen));
  for (const [name, property] of Object.entries(isObject(here.properties) ? here.properties : {})) {
    const deprecation = deprecationAt(document, property);
    if (deprecation) found.push({ at: [...at, name], deprecation });
    found.push(...deprecatedFields(document, property, [...at, name], seen));
  }
  seen.delete(here);
  return found;
}

/** The address of an operation's entry on the /docs page (Swagger UI's deep link: `#/<tag>/<operationId>`). */
const docsLink = (publicUrl: string, tag: string, operationId: string) => `${publicUrl}/docs#/${encodeURIComponent(tag)}/${encodeURIComponent(operationId)}`;

/** The deprecations of each operation of `document` that has any, by operation id. */
export function deprecationsOf(document: OpenApiDocument, setting: DeprecationSetting): Map<string, OperationDeprecations> {
  const operations = contractOperations(document);
  const byId = new Map(operations.map((operation) => [operation.operationId, { ...operation, node: document.paths[operation.path]![operation.method] as Record<string, unknown> }]));
  const tagOf = (node: Record<string, unknown>) => (Array.isArray(node.tags) && typeof node.tags[0] === 'string' ? node.tags[0] : 'default');
  const deprecated = (use: string, deprecation: Deprecation, operationId: string, node: Record<string, unknown>): Deprecated => {
    const links: string[] = [];
    const successor = deprecation.successor === undefined ? undefined : byId.get(deprecation.successor);
    if (successor) links.push(`<${docsLink(setting.publicUrl, tagOf(successor.node), successor.operationId)}>; rel="successor-version"`);
    links.push(`<${docsLink(setting.publicUrl, tagOf(node), operationId)}>; rel="deprecation"; type="text/html"`);
    return {
      use,
      deprecation,
      since: Math.floor((deprecation.since === undefined ? setting.startedAt : startOfDay(deprecation.since)) / 1000),
      ...(deprecation.sunset === undefined ? {} : { sunset: startOfDay(deprecation.sunset) }),
      links,
    };
  };
  const found = new Map<string, OperationDeprecations>();
  for (const { operationId, path, node } of byId.values()) {
    const entry: OperationDeprecations = { parameters: [], fields: [] };
    const own = deprecationOf(node);
    if (own) entry.operation = deprecated('operation', own, operationId, node);
    const parameters = [...(document.paths[path]!.parameters ?? []), ...((node.parameters as unknown[] | undefined) ?? [])];
    for (const parameter of parameters.map((each) => resolved(document, each))) {
      const deprecation = parameter && deprecationOf(parameter);
      if (!deprecation || typeof parameter.name !== 'string' || typeof parameter.in !== 'string') continue;
      const name = parameter.in === 'header' ? parameter.name.toLowerCase() : parameter.name;
      entry.parameters.push({ ...deprecated(`${parameter.in}.${parameter.name}`, deprecation, operationId, node), in: parameter.in, name });
    }
    const body = resolved(document, node.requestBody);
    const schema = isObject(body?.content) ? (body.content['application/json'] as { schema?: unknown } | undefined)?.schema : undefined;
    for (const field of deprecatedFields(document, schema)) entry.fields.push({ ...deprecated(`/${field.at.join('/')}`, field.deprecation, operationId, node), at: field.at });
    if (entry.operation || entry.parameters.length > 0 || entry.fields.length > 0) found.set(operationId, entry);
  }
  return found;
}

/** Whether a request sent a parameter. */
function sentParameter(req: Request, place: string, name: string): boolean {
  if (place === 'query') return isObject(req.query) && Object.hasOwn(req.query, name);
  if (place === 'header') return req.headers[name] !== undefined;
  if (place === 'cookie') return (req.headers.cookie ?? '').split(';').some((pair) => pair.trim().startsWith(`${name}=`));
  return true;
}

/** Whether a request body holds a field, by its path of names. */
function sentField(body: unknown, at: readonly string[]): boolean {
  let here = body;
  for (const name of at) {
    if (!isObject(here) || !Object.hasOwn(here, name)) return false;
    here = here[name];
  }
  return true;
}

/** What of an operation's deprecations a request used: the operation itself, and each parameter and field it sent. */
export function usedDeprecations(deprecations: OperationDeprecations, req: Request): Deprecated[] {
  const used: Deprecated[] = deprecations.operation ? [deprecations.operation] : [];
  for (const parameter of deprecations.parameters) if (sentParameter(req, parameter.in, parameter.name)) used.push(parameter);
  for (const field of deprecations.fields) if (sentField(req.body, field.at)) used.push(field);
  return used;
}

/**
 * The headers of an answer to a request that used `used` (at least one): the earliest deprecation (a structured
 * field date, `@<seconds>`), the earliest sunset (an HTTP-date), and every link once.
 */
export function deprecationHeaders(used: readonly Deprecated[]): Record<string, string> {
  const since = Math.min(...used.map((each) => each.since));
  const sunsets = used.flatMap((each) => (each.sunset === undefined ? [] : [each.sunset]));
  return {
    deprecation: `@${since}`,
    ...(sunsets.length > 0 ? { sunset: new Date(Math.min(...sunsets)).toUTCString() } : {}),
    link: [...new Set(used.flatMap((each) => each.links))].join(', '),
  };
}
