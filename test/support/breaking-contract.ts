// The real contract as the random tests of the breaking-change comparison (contract/breaking-properties-*.test.ts)
// change it: its copy, fast-check's settings, the contexts each component and property travels in, and what a schema
// change must give there, all written here independently of the comparison.
// Why, and replaying a run: test/README.md, "Random changes to the real contract".
import type { Finding, SchemaContext, Severity } from '../../breaking/index.ts';
import { readDocument } from '../../breaking/files.ts';
import { child, isObject, resolvePointer } from '../../compare/pointer.ts';
import { schemaRule, type SchemaKind } from '../../compare/rules.ts';
import { openapiPath } from './repo.ts';

export type Json = Record<string, unknown>;

export const contract = readDocument(openapiPath) as Json;
const seed = process.env.BREAKING_SEED === undefined ? undefined : Number(process.env.BREAKING_SEED);
/** Each run compares the whole contract (about 0.1 s): the numbers keep each file to a few seconds. */
const SCALE = Number(process.env.BREAKING_RUNS ?? 1);
export const RUNS = { rewrites: Math.round(8 * SCALE), changes: Math.round(20 * SCALE) };
/** Vitest's limit for each property (the runs take about 0.15 s each, more on a busy machine). */
export const TIMEOUT = Math.max(60_000, 60_000 * SCALE);
export const options = (numRuns: number) => ({ numRuns, endOnFailure: true, ...(seed === undefined ? {} : { seed }) });

export const schemas = (document: Json) => (document.components as Json).schemas as Record<string, Json>;
export const SCHEMA = '#/components/schemas/';
export const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** Every node of a document with its pointer (objects only), in document order. */
export function nodes(document: unknown, path = '#', found: { node: Json; path: string }[] = []): { node: Json; path: string }[] {
  if (Array.isArray(document)) document.forEach((item, index) => nodes(item, child(path, index), found));
  else if (isObject(document)) {
    found.push({ node: document, path });
    for (const [key, value] of Object.entries(document)) nodes(value, child(path, key), found);
  }
  return found;
}

export function at<T = Json>(document: Json, pointer: string): T {
  return resolvePointer(document, pointer) as T;
}

export function parentOf(pointer: string): { parent: string; key: string } {
  const index = pointer.lastIndexOf('/');
  return { parent: pointer.slice(0, index), key: pointer.slice(index + 1).replace(/~1/g, '/').replace(/~0/g, '~') };
}

export function replaceAt(document: Json, pointer: string, value: unknown): void {
  const { parent, key } = parentOf(pointer);
  const holder = at<Json | unknown[]>(document, parent);
  if (Array.isArray(holder)) holder[Number(key)] = value;
  else holder[key] = value;
}

export function operationsOf(document: Json): { path: string; method: string; node: Json; pointer: string; item: Json }[] {
  const result = [];
  for (const [route, item] of Object.entries(document.paths as Record<string, Json>)) {
    for (const method of METHODS) {
      if (isObject(item[method])) result.push({ path: route, method, node: item[method] as Json, pointer: child('#/paths', route, method), item });
    }
  }
  return result;
}

// ---- the contexts a schema travels in, worked out independently ----------------------------------------------

export const direction = (context: SchemaContext) => (context.startsWith('request') ? 'request' : 'response');

export function flag(document: Json, node: unknown, key: 'readOnly' | 'writeOnly', depth = 0): boolean {
  if (!isObject(node) || depth > 5) return false;
  if (node[key] === true) return true;
  if (typeof node.$ref === 'string' && flag(document, resolvePointer(document, node.$ref), key, depth + 1)) return true;
  return Array.isArray(node.allOf) && node.allOf.some((member) => flag(document, member, key, depth + 1));
}

export function hidden(document: Json, property: unknown, context: SchemaContext): boolean {
  return flag(document, property, direction(context) === 'request' ? 'readOnly' : 'writeOnly');
}

/** For each component schema, the contexts it is reached in from the operations. */
function reach(document: Json): Map<string, Set<SchemaContext>> {
  const result = new Map<string, Set<SchemaContext>>();
  const seen = new Set<string>();
  const visit = (node: unknown, context: SchemaContext): void => {
    if (!isObject(node)) return;
    if (typeof node.$ref === 'string' && node.$ref.startsWith(SCHEMA)) {
      const name = node.$ref.slice(SCHEMA.length);
      if (seen.has(`${context} ${name}`)) return;
      seen.add(`${context} ${name}`);
      (result.get(name) ?? result.set(name, new Set()).get(name)!).add(context);
      visit(schemas(document)[name], context);
    }
    for (const keyword of ['allOf', 'anyOf', 'oneOf']) if (Array.isArray(node[keyword])) for (const member of node[keyword] as unknown[]) visit(member, context);
    for (const keyword of ['items', 'additionalProperties', 'unevaluatedProperties']) visit(node[keyword], context);
    if (isObject(node.properties)) {
      for (const property of Object.values(node.properties)) if (!hidden(document, property, context)) visit(property, context);
    }
  };
  const deref = (node: unknown): Json => (isObject(node) && typeof node.$ref === 'string' ? deref(resolvePointer(document, node.$ref)) : (node as Json));
  for (const operation of operationsOf(document)) {
    const parameters = [...((operation.item.parameters as unknown[]) ?? []), ...((operation.node.parameters as unknown[]) ?? [])];
    for (const parameter of parameters) visit(deref(parameter).schema, 'request-parameter');
    for (const media of Object.values((deref(operation.node.requestBody)?.content as Record<string, Json>) ?? {})) visit(media.schema, 'request-property');
    for (const response of Object.values((operation.node.responses as Record<string, unknown>) ?? {})) {
      const answer = deref(response);
      for (const media of Object.values((answer.content as Record<string, Json>) ?? {})) visit(media.schema, 'response-property');
      for (const header of Object.values((answer.headers as Record<string, unknown>) ?? {})) visit(deref(header).schema, 'response-header');
    }
  }
  return result;
}

export const REACH = reach(contract);

export interface PropertySite {
  component: string;
  property: string;
  pointer: string;
  node: Json;
  required: boolean;
  /** The contexts where the property travels. */
  contexts: SchemaContext[];
  /** The contexts of its component. */
  all: SchemaContext[];
}

export function propertySites(document: Json): PropertySite[] {
  const sites: PropertySite[] = [];
  for (const [component, schema] of Object.entries(schemas(document))) {
    const all = [...(REACH.get(component) ?? [])];
    if (all.length === 0 || !isObject(schema.properties)) continue;
    const required = new Set((schema.required as string[]) ?? []);
    for (const [property, node] of Object.entries(schema.properties as Record<string, Json>)) {
      sites.push({
        component,
        property,
        pointer: child(SCHEMA.slice(0, -1), component, 'properties', property),
        node,
        required: required.has(property),
        contexts: all.filter((context) => !hidden(document, node, context)),
        all,
      });
    }
  }
  return sites;
}

// ---- what a schema change must give --------------------------------------------------------------------------

export const BC: Severity = 'breaking-client';
export const BI: Severity = 'breaking-implementation';
export const BS: Severity = 'breaking-source';
export const NB: Severity = 'non-breaking';

/** The severity of each change by direction, written out here rather than read from the rules. */
const SEVERITY: Partial<Record<SchemaKind, { request?: Severity; response?: Severity }>> = {
  'max-length-decreased': { request: BC, response: BI },
  'max-length-increased': { request: BI, response: BC },
  'min-length-increased': { request: BC, response: BI },
  'min-increased': { request: BC, response: BI },
  'enum-value-removed': { request: BC, response: BI },
  'enum-value-added': { request: BI, response: 'warning' },
  removed: { request: BC, response: BC },
  added: { request: BI, response: NB },
  'became-required': { request: BC, response: BI },
  'became-optional': { request: BI, response: BC },
  'format-added': { request: BC, response: BI },
  'pattern-added': { request: BC, response: BI },
  'became-nullable': { request: BI, response: BC },
  'became-read-only': { request: BC },
  'became-writable': { request: BI },
  deprecated: { request: NB, response: NB },
  'default-added': { request: BI, response: NB },
  'discriminator-tag-added': { request: BI, response: BC },
  'discriminator-tag-removed': { request: BC, response: BI },
  'discriminator-tag-renamed': { request: BC, response: BC },
  'discriminator-mapping-changed': { request: BC, response: BC },
};

export type Expected = { rule: string; path: string; severity: Severity };

/** The schema a property names: its own `$ref` (OpenAPI 3.1 lets siblings stand beside it), or a lone `allOf` member's. */
export function referenceOf(node: Json): string {
  if (typeof node.$ref === 'string') return node.$ref;
  return Array.isArray(node.allOf) && node.allOf.length === 1 ? String((node.allOf as Json[])[0]!.$ref ?? '') : '';
}

/** What a schema change gives in each context: one finding per rule and path. */
export function expected(kind: SchemaKind, contexts: readonly SchemaContext[], path: string): Expected[] {
  const found = new Map<string, Expected>();
  for (const context of contexts) {
    const severity = SEVERITY[kind]![direction(context)];
    const rule = schemaRule(context, kind);
    if (!severity || !rule) continue;
    found.set(rule, { rule, path, severity });
  }
  return [...found.values()];
}

/** The properties of the components the operations reach, each where it travels in at least one context. */
export const properties = propertySites(contract).filter((site) => site.contexts.length > 0);

/** A finding as one line to compare; `found`: what the comparison found, as such lines in order. */
export const key = (entry: Expected) => `${entry.rule} ${entry.severity} ${entry.path}`;
export const found = (findings: Finding[]) => findings.map((finding) => key({ rule: finding.rule, path: finding.path, severity: finding.severity })).sort();
