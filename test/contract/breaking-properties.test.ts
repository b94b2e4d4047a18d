// The breaking-change comparison on the real contract, at random (fast-check): equivalence-preserving rewrites (allOf
// members split off or extracted, $refs inlined, inline schemas extracted, parameters moved to the path item, the
// other spellings of sealing, null and const, reordering, redundant members) must give no difference; a single
// change drawn from the rule catalogue must give exactly its rule, at its path, with its severity, in every context
// the changed schema travels in. What each change must give is worked out here, independently of the comparison:
// the contexts a component is reached in come from a walk of the document written for this test.
// A failure prints fast-check's seed and path; BREAKING_SEED=<seed> replays a run, BREAKING_RUNS=<n> multiplies the
// number of runs (for a longer search than npm test affords).
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { compareDocuments, type Finding, type SchemaContext, type Severity } from '../../breaking/index.ts';
import { readDocument } from '../../breaking/files.ts';
import { child, isObject, resolvePointer } from '../../breaking/pointer.ts';
import { schemaRule, type SchemaKind } from '../../breaking/rules.ts';
import { openapiPath } from '../support/repo.ts';

type Json = Record<string, unknown>;

const contract = readDocument(openapiPath) as Json;
const seed = process.env.BREAKING_SEED === undefined ? undefined : Number(process.env.BREAKING_SEED);
/** Each run compares the whole contract (about 0.1 s): the numbers keep the file to a few seconds. */
const SCALE = Number(process.env.BREAKING_RUNS ?? 1);
const RUNS = { rewrites: Math.round(8 * SCALE), changes: Math.round(20 * SCALE) };
/** Vitest's limit for each property (the runs take about 0.15 s each, more on a busy machine). */
const TIMEOUT = Math.max(60_000, 60_000 * SCALE);
const options = (numRuns: number) => ({ numRuns, endOnFailure: true, ...(seed === undefined ? {} : { seed }) });

const schemas = (document: Json) => (document.components as Json).schemas as Record<string, Json>;
const SCHEMA = '#/components/schemas/';
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** Every node of a document with its pointer (objects only), in document order. */
function nodes(document: unknown, path = '#', found: { node: Json; path: string }[] = []): { node: Json; path: string }[] {
  if (Array.isArray(document)) document.forEach((item, index) => nodes(item, child(path, index), found));
  else if (isObject(document)) {
    found.push({ node: document, path });
    for (const [key, value] of Object.entries(document)) nodes(value, child(path, key), found);
  }
  return found;
}

function at<T = Json>(document: Json, pointer: string): T {
  return resolvePointer(document, pointer) as T;
}

function parentOf(pointer: string): { parent: string; key: string } {
  const index = pointer.lastIndexOf('/');
  return { parent: pointer.slice(0, index), key: pointer.slice(index + 1).replace(/~1/g, '/').replace(/~0/g, '~') };
}

function replaceAt(document: Json, pointer: string, value: unknown): void {
  const { parent, key } = parentOf(pointer);
  const holder = at<Json | unknown[]>(document, parent);
  if (Array.isArray(holder)) holder[Number(key)] = value;
  else holder[key] = value;
}

function operationsOf(document: Json): { path: string; method: string; node: Json; pointer: string; item: Json }[] {
  const result = [];
  for (const [route, item] of Object.entries(document.paths as Record<string, Json>)) {
    for (const method of METHODS) {
      if (isObject(item[method])) result.push({ path: route, method, node: item[method] as Json, pointer: child('#/paths', route, method), item });
    }
  }
  return result;
}

// ---- the contexts a schema travels in, worked out independently ----------------------------------------------

const direction = (context: SchemaContext) => (context.startsWith('request') ? 'request' : 'response');

function flag(document: Json, node: unknown, key: 'readOnly' | 'writeOnly', depth = 0): boolean {
  if (!isObject(node) || depth > 5) return false;
  if (node[key] === true) return true;
  if (typeof node.$ref === 'string' && flag(document, resolvePointer(document, node.$ref), key, depth + 1)) return true;
  return Array.isArray(node.allOf) && node.allOf.some((member) => flag(document, member, key, depth + 1));
}

function hidden(document: Json, property: unknown, context: SchemaContext): boolean {
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

const REACH = reach(contract);

interface PropertySite {
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

function propertySites(document: Json): PropertySite[] {
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

// ---- changes from the rule catalogue, each with what it must give --------------------------------------------

const BC: Severity = 'breaking-client';
const BI: Severity = 'breaking-implementation';
const BS: Severity = 'breaking-source';
const NB: Severity = 'non-breaking';

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

type Expected = { rule: string; path: string; severity: Severity };

/** What a schema change gives in each context: one finding per rule and path. */
/** The schema a property names: its own `$ref` (OpenAPI 3.1 lets siblings stand beside it), or a lone `allOf` member's. */
function referenceOf(node: Json): string {
  if (typeof node.$ref === 'string') return node.$ref;
  return Array.isArray(node.allOf) && node.allOf.length === 1 ? String((node.allOf as Json[])[0]!.$ref ?? '') : '';
}

/** The property's `allOf`, made from its `$ref` when it has none: the same schema, ready for a second member. */
function asAllOf(node: Json): Json[] {
  if (typeof node.$ref === 'string') {
    node.allOf = [{ $ref: node.$ref }];
    delete node.$ref;
  }
  return node.allOf as Json[];
}

function expected(kind: SchemaKind, contexts: readonly SchemaContext[], path: string): Expected[] {
  const found = new Map<string, Expected>();
  for (const context of contexts) {
    const severity = SEVERITY[kind]![direction(context)];
    const rule = schemaRule(context, kind);
    if (!severity || !rule) continue;
    found.set(rule, { rule, path, severity });
  }
  return [...found.values()];
}

interface Change {
  name: string;
  /** The places it applies to, in the contract. */
  sites: () => unknown[];
  /** Applies it to a copy of the contract; returns what it must give. */
  apply: (document: Json, site: never) => Expected[];
}

const isString = (node: Json) => node.type === 'string';
const scalar = (node: Json) => !('$ref' in node) && !('allOf' in node) && !('anyOf' in node) && !('oneOf' in node);
const properties = propertySites(contract).filter((site) => site.contexts.length > 0);
const enums = Object.entries(schemas(contract))
  .filter(([name, schema]) => Array.isArray(schema.enum) && schema.enum.length >= 2 && REACH.has(name))
  .map(([name]) => name);

function schemaChange(name: string, kind: SchemaKind, filter: (site: PropertySite) => boolean, edit: (node: Json, site: PropertySite) => void): Change {
  return {
    name,
    sites: () => properties.filter(filter),
    apply: (document, site: PropertySite) => {
      edit(at(document, site.pointer), site);
      return expected(kind, site.contexts, site.pointer);
    },
  };
}

const CHANGES: Change[] = [
  schemaChange('maxLength halved', 'max-length-decreased', (site) => typeof site.node.maxLength === 'number' && (site.node.maxLength as number) >= 2, (node) => {
    node.maxLength = Math.floor((node.maxLength as number) / 2);
  }),
  schemaChange('maxLength doubled', 'max-length-increased', (site) => typeof site.node.maxLength === 'number', (node) => {
    node.maxLength = (node.maxLength as number) * 2;
  }),
  schemaChange('minLength raised', 'min-length-increased', (site) => typeof site.node.minLength === 'number', (node) => {
    node.minLength = (node.minLength as number) + 1;
  }),
  schemaChange('minimum raised', 'min-increased', (site) => typeof site.node.minimum === 'number', (node) => {
    node.minimum = (node.minimum as number) + 1;
  }),
  schemaChange('format added', 'format-added', (site) => isString(site.node) && scalar(site.node) && site.node.format === undefined && site.node.enum === undefined, (node) => {
    node.format = 'email';
  }),
  schemaChange('pattern added', 'pattern-added', (site) => isString(site.node) && scalar(site.node) && site.node.pattern === undefined && site.node.enum === undefined, (node) => {
    node.pattern = '^[a-z]+$';
  }),
  // (A value list without null still refuses null: properties with an enum are left out.)
  schemaChange('became nullable', 'became-nullable', (site) => typeof site.node.type === 'string' && scalar(site.node) && site.node.enum === undefined, (node) => {
    node.type = [node.type, 'null'];
  }),
  schemaChange('deprecated', 'deprecated', (site) => site.node.deprecated === undefined, (node) => {
    node.deprecated = true;
  }),
  schemaChange('default added', 'default-added', (site) => isString(site.node) && scalar(site.node) && site.node.default === undefined && site.node.enum === undefined && site.node.pattern === undefined && site.node.format === undefined && site.node.minLength === undefined, (node) => {
    node.default = 'x';
  }),
  {
    name: 'property removed',
    sites: () => properties,
    apply: (document, site: PropertySite) => {
      const schema = schemas(document)[site.component]!;
      delete (schema.properties as Json)[site.property];
      if (Array.isArray(schema.required)) schema.required = schema.required.filter((name) => name !== site.property);
      return expected('removed', site.contexts, site.pointer);
    },
  },
  {
    name: 'optional property added',
    sites: () => [...new Set(properties.map((site) => site.component))],
    apply: (document, component: string) => {
      (schemas(document)[component]!.properties as Json).zzNew = { type: 'string' };
      return expected('added', [...REACH.get(component)!], child(SCHEMA.slice(0, -1), component, 'properties', 'zzNew'));
    },
  },
  {
    name: 'became required',
    sites: () => properties.filter((site) => !site.required),
    apply: (document, site: PropertySite) => {
      const schema = schemas(document)[site.component]!;
      schema.required = [...((schema.required as string[]) ?? []), site.property];
      return expected('became-required', site.contexts, site.pointer);
    },
  },
  {
    name: 'became optional',
    sites: () => properties.filter((site) => site.required),
    apply: (document, site: PropertySite) => {
      const schema = schemas(document)[site.component]!;
      schema.required = (schema.required as string[]).filter((name) => name !== site.property);
      return expected('became-optional', site.contexts, site.pointer);
    },
  },
  {
    name: 'a request field made read-only',
    sites: () => properties.filter((site) => site.contexts.some((context) => direction(context) === 'request')),
    apply: (document, site: PropertySite) => {
      at(document, site.pointer).readOnly = true;
      return expected('became-read-only', site.contexts, site.pointer);
    },
  },
  {
    name: 'a read-only field made writable',
    sites: () =>
      propertySites(contract).filter((site) => site.node.readOnly === true && site.all.some((context) => direction(context) === 'request') && !flag(contract, { ...site.node, readOnly: false }, 'readOnly')),
    apply: (document, site: PropertySite) => {
      delete at(document, site.pointer).readOnly;
      const requests = site.all.filter((context) => direction(context) === 'request');
      return [...expected('became-writable', requests, site.pointer), ...(site.required ? expected('became-required', requests, site.pointer) : [])];
    },
  },
  {
    name: 'an enum value removed',
    sites: () => enums,
    apply: (document, name: string) => {
      (schemas(document)[name]!.enum as unknown[]).pop();
      return expected('enum-value-removed', [...REACH.get(name)!], `${SCHEMA}${name}`);
    },
  },
  {
    name: 'an enum value added',
    sites: () => enums,
    apply: (document, name: string) => {
      (schemas(document)[name]!.enum as unknown[]).push('zz-new');
      return expected('enum-value-added', [...REACH.get(name)!], `${SCHEMA}${name}`);
    },
  },
  {
    name: 'a second allOf member restricting an enum',
    sites: () => properties.filter((site) => enums.includes(referenceOf(site.node).slice(SCHEMA.length))),
    apply: (document, site: PropertySite) => {
      const node = at(document, site.pointer);
      const values = schemas(document)[referenceOf(node).slice(SCHEMA.length)]!.enum as unknown[];
      asAllOf(node).push({ enum: values.slice(0, -1) });
      return expected('enum-value-removed', site.contexts, child(site.pointer, 'allOf', 1));
    },
  },
  {
    name: 'a second allOf member tightening a property of the referenced object',
    sites: () =>
      properties.flatMap((site) => {
        const target = referenceOf(site.node);
        const object = target.startsWith(SCHEMA) ? schemas(contract)[target.slice(SCHEMA.length)] : undefined;
        if (!object || !isObject(object.properties)) return [];
        return Object.entries(object.properties as Record<string, Json>)
          .filter(([, node]) => typeof node.maxLength === 'number' && (node.maxLength as number) >= 2)
          .map(([inner, node]) => ({ site, inner, node }));
      }),
    apply: (document, { site, inner, node }: { site: PropertySite; inner: string; node: Json }) => {
      asAllOf(at(document, site.pointer)).push({ properties: { [inner]: { maxLength: Math.floor((node.maxLength as number) / 2) } } });
      const contexts = site.contexts.filter((context) => !hidden(contract, node, context));
      return expected('max-length-decreased', contexts, child(site.pointer, 'allOf', 1, 'properties', inner));
    },
  },
  {
    name: 'a schema renamed',
    sites: () => Object.keys(schemas(contract)),
    apply: (document, name: string) => {
      const text = JSON.stringify(document).replaceAll(`"${SCHEMA}${name}"`, `"${SCHEMA}${name}Renamed"`);
      const renamed = JSON.parse(text) as Json;
      schemas(renamed)[`${name}Renamed`] = schemas(renamed)[name]!;
      delete schemas(renamed)[name];
      for (const key of Object.keys(document)) delete document[key];
      Object.assign(document, renamed);
      return [{ rule: 'schema-renamed', path: `${SCHEMA}${name}Renamed`, severity: BS }];
    },
  },
  {
    name: 'an operation id renamed',
    sites: () => operationsOf(contract).map((operation) => operation.pointer),
    apply: (document, pointer: string) => {
      const operation = at(document, pointer);
      operation.operationId = `${String(operation.operationId)}Renamed`;
      return [{ rule: 'operation-id-changed', path: child(pointer, 'operationId'), severity: BS }];
    },
  },
  {
    name: 'an error status removed',
    sites: () =>
      operationsOf(contract).flatMap((operation) =>
        Object.keys(operation.node.responses as Json)
          .filter((status) => !status.startsWith('2'))
          .map((status) => child(operation.pointer, 'responses', status)),
      ),
    apply: (document, pointer: string) => {
      const { parent, key } = parentOf(pointer);
      delete at(document, parent)[key];
      return [{ rule: 'response-status-removed', path: pointer, severity: BI }];
    },
  },
  {
    name: 'a query parameter removed',
    sites: () =>
      operationsOf(contract).flatMap((operation) =>
        ((operation.node.parameters as Json[]) ?? []).flatMap((parameter, index) => {
          const target = typeof parameter.$ref === 'string' ? at(contract, parameter.$ref) : parameter;
          return target.in === 'query' ? [child(operation.pointer, 'parameters', index)] : [];
        }),
      ),
    apply: (document, pointer: string) => {
      const { parent, key } = parentOf(pointer);
      at<unknown[]>(document, parent).splice(Number(key), 1);
      return [{ rule: 'request-parameter-removed', path: pointer, severity: BC }];
    },
  },
];

// ---- equivalence-preserving rewrites -------------------------------------------------------------------------

interface Rewrite {
  name: string;
  /** Rewrites the document at its `index`-th candidate place (modulo their number); false when it has none. */
  apply: (document: Json, index: number) => boolean;
}

function pick<T>(candidates: T[], index: number): T | undefined {
  return candidates.length === 0 ? undefined : candidates[index % candidates.length];
}

/** Objects of `schemas` that hold their properties themselves, and whose sealing (if any) sees through `allOf`. */
function splittable(document: Json): string[] {
  return Object.entries(schemas(document))
    .filter(([, schema]) => isObject(schema.properties) && Object.keys(schema.properties).length >= 2 && schema.additionalProperties === undefined && !schema.allOf && !schema.anyOf && !schema.oneOf)
    .map(([name]) => name);
}

/** Moves the properties at odd positions (and their `required`) into a member: inline, or a new component. */
function split(document: Json, index: number, extract: boolean): boolean {
  const name = pick(splittable(document), index);
  if (!name) return false;
  const schema = schemas(document)[name]!;
  const entries = Object.entries(schema.properties as Json);
  const moved = entries.filter((_, position) => position % 2 === 1);
  const required = new Set((schema.required as string[]) ?? []);
  const member: Json = { type: 'object', properties: Object.fromEntries(moved) };
  const memberRequired = moved.map(([key]) => key).filter((key) => required.has(key));
  if (memberRequired.length > 0) member.required = memberRequired;
  schema.properties = Object.fromEntries(entries.filter((_, position) => position % 2 === 0));
  if (schema.required) schema.required = (schema.required as string[]).filter((key) => !memberRequired.includes(key));
  if (extract) {
    schemas(document)[`${name}Part`] = member;
    schema.allOf = [{ $ref: `${SCHEMA}${name}Part` }];
  } else schema.allOf = [member];
  return true;
}

const REWRITES: Rewrite[] = [
  { name: 'properties split into an inline allOf member', apply: (document, index) => split(document, index, false) },
  { name: 'properties split into a referenced allOf member', apply: (document, index) => split(document, index, true) },
  {
    name: 'a $ref inlined',
    apply: (document, index) => {
      const refs = nodes(document).filter(({ node, path }) => typeof node.$ref === 'string' && node.$ref.startsWith(SCHEMA) && Object.keys(node).length === 1 && !path.includes('/discriminator/'));
      const found = pick(refs, index);
      if (!found) return false;
      replaceAt(document, found.path, structuredClone(at(document, found.node.$ref as string)));
      return true;
    },
  },
  {
    name: 'an inline property schema extracted into a component',
    apply: (document, index) => {
      const inline = nodes(schemas(document), SCHEMA.slice(0, -1)).filter(({ node, path }) => /\/properties\/[^/]+$/.test(path) && node.$ref === undefined);
      const found = pick(inline, index);
      if (!found) return false;
      const name = `Extracted${index}`;
      schemas(document)[name] = structuredClone(found.node);
      replaceAt(document, found.path, { $ref: `${SCHEMA}${name}` });
      return true;
    },
  },
  {
    name: 'parameters shared by every operation of a path moved to the path item',
    apply: (document, index) => {
      const items = Object.entries(document.paths as Record<string, Json>).filter(([, item]) => {
        const operations = METHODS.filter((method) => isObject(item[method])).map((method) => item[method] as Json);
        const first = (operations[0]?.parameters as unknown[]) ?? [];
        return !item.parameters && first.some((parameter) => operations.every((operation) => ((operation.parameters as unknown[]) ?? []).some((other) => JSON.stringify(other) === JSON.stringify(parameter))));
      });
      const found = pick(items, index);
      if (!found) return false;
      const [, item] = found;
      const operations = METHODS.filter((method) => isObject(item[method])).map((method) => item[method] as Json);
      const shared = ((operations[0]!.parameters as unknown[]) ?? []).filter((parameter) =>
        operations.every((operation) => ((operation.parameters as unknown[]) ?? []).some((other) => JSON.stringify(other) === JSON.stringify(parameter))),
      );
      item.parameters = shared;
      for (const operation of operations) {
        operation.parameters = (operation.parameters as unknown[]).filter((parameter) => !shared.some((other) => JSON.stringify(other) === JSON.stringify(parameter)));
      }
      return true;
    },
  },
  {
    name: 'unevaluatedProperties written as additionalProperties: false',
    apply: (document, index) => {
      const sealed = nodes(document).filter(
        ({ node }) => isObject(node.unevaluatedProperties) && isObject(node.unevaluatedProperties.not) && !node.allOf && !node.anyOf && !node.oneOf && !node.$ref,
      );
      const found = pick(sealed, index);
      if (!found) return false;
      delete found.node.unevaluatedProperties;
      found.node.additionalProperties = false;
      return true;
    },
  },
  {
    name: 'null written in the type list, or with oneOf',
    apply: (document, index) => {
      const unions = nodes(document).filter(({ node }) => Array.isArray(node.anyOf) && node.anyOf.length === 2 && (node.anyOf as Json[]).some((member) => member.type === 'null'));
      const found = pick(unions, index);
      if (!found) return false;
      const { node } = found;
      const [member] = (node.anyOf as Json[]).filter((candidate) => candidate.type !== 'null');
      if (typeof member!.type === 'string' && Object.keys(member!).every((key) => key === 'type' || key === 'format')) {
        delete node.anyOf;
        Object.assign(node, member, { type: [member!.type, 'null'] });
      } else {
        node.oneOf = node.anyOf;
        delete node.anyOf;
      }
      return true;
    },
  },
  {
    name: 'a one-value enum written as const',
    apply: (document, index) => {
      const single = nodes(document).filter(({ node }) => Array.isArray(node.enum) && node.enum.length === 1);
      const found = pick(single, index);
      if (!found) return false;
      found.node.const = (found.node.enum as unknown[])[0];
      delete found.node.enum;
      return true;
    },
  },
  {
    name: 'enum values, required names and properties reordered',
    apply: (document, index) => {
      const lists = nodes(document).filter(({ node }) => (Array.isArray(node.enum) && node.enum.length > 1) || (Array.isArray(node.required) && node.required.length > 1));
      const found = pick(lists, index);
      if (!found) return false;
      const { node } = found;
      if (Array.isArray(node.enum)) node.enum = [...node.enum].reverse();
      if (Array.isArray(node.required)) node.required = [...node.required].reverse();
      if (isObject(node.properties)) node.properties = Object.fromEntries(Object.entries(node.properties).reverse());
      return true;
    },
  },
  {
    name: 'a property wrapped in allOf with a looser member',
    apply: (document, index) => {
      const bounded = nodes(schemas(document), SCHEMA.slice(0, -1)).filter(({ node, path }) => /\/properties\/[^/]+$/.test(path) && typeof node.maxLength === 'number');
      const found = pick(bounded, index);
      if (!found) return false;
      replaceAt(document, found.path, { allOf: [found.node, { maxLength: (found.node.maxLength as number) + 10 }, {}] });
      return true;
    },
  },
];

// ---- discriminated unions built from the contract's objects ----------------------------------------------------
//
// A property that refers to an object component becomes a union of copies of the contract's objects, each tagged
// by a property of its own (`zzKind`): written as TypeSpec writes a tagged union (no `discriminator`), with a
// `discriminator`, or with a `discriminator` and its `mapping`. The union is the base; one change of its tags (or a
// rewrite that keeps every tag → member pair) is the revision.

type UnionStyle = 'implicit' | 'explicit' | 'mapping';
const TAG = 'zzKind';
const plainObject = (schema: Json | undefined) =>
  schema !== undefined && schema.type === 'object' && isObject(schema.properties) && !schema.allOf && !schema.anyOf && !schema.oneOf && !schema.$ref && !schema.readOnly && !schema.writeOnly;
const OBJECTS = Object.entries(schemas(contract))
  .filter(([, schema]) => plainObject(schema))
  .map(([name]) => name);
/** Properties that refer to an object, travel wherever their component does, and are not flagged themselves. */
const UNION_SITES = properties.filter((site) => {
  const target = referenceOf(site.node);
  return target.startsWith(SCHEMA) && plainObject(schemas(contract)[target.slice(SCHEMA.length)]) && site.contexts.length === site.all.length && !site.node.readOnly && !site.node.writeOnly;
});

interface Union {
  site: PropertySite;
  /** The components copied into the members (the first is the one the property referred to). */
  objects: string[];
  style: UnionStyle;
}

const memberName = (index: number) => `ZzMember${index}`;
const memberRef = (index: number) => `${SCHEMA}${memberName(index)}`;

/** Adds a member: a copy of `object` tagged by `tags`, as component ZzMember<index>. */
function addMember(document: Json, object: string, index: number, tags: string[]): void {
  const copy = structuredClone(schemas(contract)[object]!);
  (copy.properties as Json)[TAG] = { type: 'string', enum: tags };
  copy.required = [...((copy.required as string[]) ?? []), TAG];
  schemas(document)[memberName(index)] = copy;
}

/** The base: the contract with the site's property made a union of tagged copies. */
function withUnion(union: Union): Json {
  const document = structuredClone(contract);
  union.objects.forEach((object, index) => addMember(document, object, index, [`t${index}`]));
  const node: Json = { oneOf: union.objects.map((_, index) => ({ $ref: memberRef(index) })) };
  if (union.style !== 'implicit') node.discriminator = { propertyName: TAG };
  if (union.style === 'mapping') (node.discriminator as Json).mapping = Object.fromEntries(union.objects.map((_, index) => [`t${index}`, memberRef(index)]));
  replaceAt(document, union.site.pointer, node);
  return document;
}

interface UnionChange {
  name: string;
  styles: readonly UnionStyle[];
  /** Changes the union in `document` (the base's copy); returns the rule's kind and its path, or none. */
  apply: (document: Json, union: Union) => { kind: SchemaKind; path: string } | undefined;
}

const unionAt = (document: Json, union: Union) => at(document, union.site.pointer);
const mappingOf = (document: Json, union: Union) => (unionAt(document, union).discriminator as Json | undefined)?.mapping as Json | undefined;
/** Where the tags of member 1 are declared: the mapping when there is one, else its tag property. */
const tagPath = (union: Union, index: number) =>
  union.style === 'mapping' ? child(union.site.pointer, 'discriminator', 'mapping') : child(SCHEMA.slice(0, -1), memberName(index), 'properties', TAG);

const UNION_CHANGES: UnionChange[] = [
  {
    name: 'a tag renamed',
    styles: ['implicit', 'explicit', 'mapping'],
    apply: (document, union) => {
      ((schemas(document)[memberName(1)]!.properties as Json)[TAG] as Json).enum = ['t1-renamed'];
      const mapping = mappingOf(document, union);
      if (mapping) {
        mapping['t1-renamed'] = mapping.t1!;
        delete mapping.t1;
      }
      return { kind: 'discriminator-tag-renamed', path: tagPath(union, 1) };
    },
  },
  {
    name: 'a tag added to a member',
    styles: ['implicit', 'explicit', 'mapping'],
    apply: (document, union) => {
      ((schemas(document)[memberName(1)]!.properties as Json)[TAG] as Json).enum = ['t1', 't1-more'];
      const mapping = mappingOf(document, union);
      if (mapping) mapping['t1-more'] = memberRef(1);
      return { kind: 'discriminator-tag-added', path: tagPath(union, 1) };
    },
  },
  {
    name: 'a member added',
    styles: ['implicit', 'explicit', 'mapping'],
    apply: (document, union) => {
      const index = union.objects.length;
      addMember(document, union.objects[0]!, index, [`t${index}`]);
      (unionAt(document, union).oneOf as Json[]).push({ $ref: memberRef(index) });
      const mapping = mappingOf(document, union);
      if (mapping) mapping[`t${index}`] = memberRef(index);
      return { kind: 'discriminator-tag-added', path: child(union.site.pointer, 'oneOf', index) };
    },
  },
  {
    name: 'a member removed',
    styles: ['implicit', 'explicit', 'mapping'],
    apply: (document, union) => {
      const last = union.objects.length - 1;
      (unionAt(document, union).oneOf as Json[]).pop();
      const mapping = mappingOf(document, union);
      if (mapping) delete mapping[`t${last}`];
      return { kind: 'discriminator-tag-removed', path: child(union.site.pointer, 'oneOf') };
    },
  },
  {
    name: 'a tag two members accept moved from one to the other by the mapping',
    styles: ['mapping'],
    apply: (document, union) => {
      // Both accepted `shared` in the base already (see below); the mapping chose member 1, now member 2.
      mappingOf(document, union)!.shared = memberRef(2);
      return { kind: 'discriminator-mapping-changed', path: child(union.site.pointer, 'discriminator', 'mapping') };
    },
  },
  {
    name: 'no change: the implicit mapping written out, the tags written as const, the members reordered',
    styles: ['implicit', 'explicit'],
    apply: (document, union) => {
      const node = unionAt(document, union);
      node.discriminator = { propertyName: TAG, mapping: Object.fromEntries(union.objects.map((_, index) => [`t${index}`, memberRef(index)])) };
      node.oneOf = [...(node.oneOf as Json[])].reverse();
      const tag = (schemas(document)[memberName(0)]!.properties as Json)[TAG] as Json;
      tag.const = 't0';
      delete tag.enum;
      return undefined;
    },
  },
];

// ---- security schemes, by definition -------------------------------------------------------------------------

/** Definitions of a scheme; those of one class are the same scheme, written otherwise (worked out by hand). */
const SCHEME_DEFINITIONS: { class: string; definition: Json }[] = [
  { class: 'bearer', definition: { type: 'http', scheme: 'Bearer' } },
  { class: 'bearer', definition: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An access token.' } },
  { class: 'basic', definition: { type: 'http', scheme: 'Basic' } },
  { class: 'key-header', definition: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } },
  { class: 'key-header', definition: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'A key.' } },
  { class: 'key-query', definition: { type: 'apiKey', in: 'query', name: 'api_key' } },
  { class: 'oauth', definition: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://auth.example.com/token', scopes: { read: 'Read.' } } } } },
  { class: 'oauth', definition: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://auth.example.com/token', scopes: { read: 'Read everything.' } } } } },
  { class: 'oidc', definition: { type: 'openIdConnect', openIdConnectUrl: 'https://auth.example.com/.well-known/openid-configuration' } },
];
const securitySchemes = (document: Json) => (document.components as Json).securitySchemes as Record<string, Json>;
/** The contract's schemes that its operations use, with the class of their definition. */
const USED_SCHEMES = Object.entries(securitySchemes(contract)).map(([name, definition]) => ({
  name,
  class: SCHEME_DEFINITIONS.find((entry) => JSON.stringify(entry.definition) === JSON.stringify(definition))!.class,
}));

// ---- the properties -------------------------------------------------------------------------------------------

/**
 * The changes the contract has no place for: no request body of the contract holds a read-only field (each write takes
 * a request model of its own). breaking-rules.test.ts covers their rules on documents made for them.
 */
const PLACELESS = ['a read-only field made writable'];
const PLACED = CHANGES.filter((change) => change.sites().length > 0);

const key = (entry: Expected) => `${entry.rule} ${entry.severity} ${entry.path}`;
const found = (findings: Finding[]) => findings.map((finding) => key({ rule: finding.rule, path: finding.path, severity: finding.severity })).sort();

describe('the comparison on the real contract, at random', () => {
  test('the catalogue of changes has places to apply each change, and the contract reaches components from both directions', () => {
    expect(CHANGES.filter((change) => !PLACED.includes(change)).map((change) => change.name)).toEqual(PLACELESS);
    const contexts = new Set([...REACH.values()].flatMap((set) => [...set]));
    expect([...contexts].sort()).toEqual(['request-parameter', 'request-property', 'response-property']);
  });

  test("the contract written in OpenAPI 3.0's spelling compares equal to its 3.1 self, both ways", () => {
    const document = structuredClone(contract);
    document.openapi = '3.0.3';
    for (const { node } of nodes(document)) {
      if (Array.isArray(node.type) && node.type.includes('null')) {
        node.type = node.type.find((type) => type !== 'null');
        node.nullable = true;
      }
      const members = node.anyOf as Json[] | undefined;
      const member = members?.length === 2 && members.some((entry) => entry.type === 'null') ? members.find((entry) => entry.type !== 'null') : undefined;
      if (member && typeof member.type === 'string') {
        delete node.anyOf;
        Object.assign(node, member, { nullable: true });
      }
      if (Object.hasOwn(node, 'const')) {
        node.enum = [node.const];
        delete node.const;
      }
      for (const [exclusive, inclusive] of [['exclusiveMaximum', 'maximum'], ['exclusiveMinimum', 'minimum']] as const) {
        if (typeof node[exclusive] === 'number') {
          node[inclusive] = node[exclusive];
          node[exclusive] = true;
        }
      }
      if (isObject(node.unevaluatedProperties) && !node.allOf && !node.anyOf && !node.oneOf && !node.$ref) {
        node.additionalProperties = isObject(node.unevaluatedProperties.not) ? false : node.unevaluatedProperties;
        delete node.unevaluatedProperties;
      }
      // 3.0 ignores a $ref's siblings: they go beside it in allOf.
      if (typeof node.$ref === 'string' && Object.keys(node).length > 1 && (node.$ref as string).startsWith(SCHEMA)) {
        node.allOf = [{ $ref: node.$ref }, ...((node.allOf as unknown[]) ?? [])];
        delete node.$ref;
      }
    }
    expect(nodes(document).filter(({ node }) => node.nullable === true).length).toBeGreaterThan(5);
    expect(compareDocuments(contract, document)).toEqual([]);
    expect(compareDocuments(document, contract)).toEqual([]);
  });

  test('the unions and the security schemes have places in the contract', () => {
    expect(UNION_SITES.length).toBeGreaterThan(10);
    expect(OBJECTS.length).toBeGreaterThan(20);
    expect(USED_SCHEMES.map((scheme) => scheme.class)).toEqual(['bearer']);
    // The contract's own tagged union, as TypeSpec writes it, is judged by its tags.
    const document = structuredClone(contract);
    ((schemas(document).PublishedSiteSpacesStructure!.properties as Json).type as Json).enum = ['site-spaces'];
    expect(found(compareDocuments(contract, document))).toEqual([
      key({ rule: 'response-property-discriminator-tag-renamed', path: `${SCHEMA}PublishedSiteSpacesStructure/properties/type`, severity: BC }),
    ]);
  });

  test(`a discriminated union built from the contract's objects, changed once, gives exactly its rule (${RUNS.changes} runs)`, () => {
    const arbitrary = fc.record({
      site: fc.constantFrom(...UNION_SITES),
      others: fc.array(fc.constantFrom(...OBJECTS), { minLength: 2, maxLength: 2 }),
      style: fc.constantFrom<UnionStyle>('implicit', 'explicit', 'mapping'),
      change: fc.constantFrom(...UNION_CHANGES),
    });
    fc.assert(
      fc.property(arbitrary, ({ site, others, style, change }) => {
        fc.pre(change.styles.includes(style));
        const union: Union = { site, objects: [referenceOf(site.node).slice(SCHEMA.length), ...others], style };
        const base = withUnion(union);
        if (change.name.startsWith('a tag two members accept')) {
          // Members 1 and 2 both accept `shared`; the mapping says it selects member 1.
          for (const index of [1, 2]) ((schemas(base)[memberName(index)]!.properties as Json)[TAG] as Json).enum = [`t${index}`, 'shared'];
          mappingOf(base, union)!.shared = memberRef(1);
        }
        const revision = structuredClone(base);
        const made = change.apply(revision, union);
        const expectations = made ? expected(made.kind, site.contexts, made.path) : [];
        if (made) expect(expectations.length, `${change.name}: the change is visible somewhere`).toBeGreaterThan(0);
        const findings = compareDocuments(base, revision);
        expect(found(findings), `${change.name} (${style}) at ${site.pointer} with ${union.objects.join(', ')}`).toEqual(expectations.map(key).sort());
        expect(compareDocuments(base, revision, { walkEverything: true })).toEqual(findings);
      }),
      options(RUNS.changes),
    );
  }, TIMEOUT);

  test(`security schemes are compared by definition: renamed, rewritten, redefined (${RUNS.changes} runs)`, () => {
    const arbitrary = fc.record({
      scheme: fc.constantFrom(...USED_SCHEMES),
      definition: fc.constantFrom(...SCHEME_DEFINITIONS),
      renamed: fc.boolean(),
    });
    fc.assert(
      fc.property(arbitrary, ({ scheme, definition, renamed }) => {
        const document = structuredClone(contract);
        const name = renamed ? `${scheme.name}Renamed` : scheme.name;
        const schemes = securitySchemes(document);
        delete schemes[scheme.name];
        schemes[name] = structuredClone(definition.definition);
        const text = JSON.stringify(document).replaceAll(`{"${scheme.name}":[`, `{"${name}":[`);
        const revision = JSON.parse(text) as Json;
        const path = child('#/components/securitySchemes', name);
        const same = definition.class === scheme.class;
        const expectations: Expected[] = same
          ? renamed
            ? [{ rule: 'security-scheme-renamed', path, severity: NB }]
            : []
          : renamed
            ? [
                { rule: 'operation-security-changed', path: '#/security', severity: BC },
                { rule: 'operation-security-alternative-added', path: '#/security', severity: BI },
              ]
            : [{ rule: 'security-scheme-changed', path, severity: BC }];
        expect(found(compareDocuments(contract, revision)), `${scheme.name} → ${name}: ${JSON.stringify(definition.definition)}`).toEqual(expectations.map(key).sort());
      }),
      options(RUNS.changes),
    );
  }, TIMEOUT);

  test(`equivalence-preserving rewrites give no difference (${RUNS.rewrites} runs)`, () => {
    const rewrite = fc.tuple(fc.constantFrom(...REWRITES), fc.nat());
    fc.assert(
      fc.property(fc.array(rewrite, { minLength: 1, maxLength: 3 }), (steps) => {
        const document = structuredClone(contract);
        const applied = steps.filter(([step, index]) => step.apply(document, index)).map(([step]) => step.name);
        expect(applied.length, 'a rewrite applied').toBeGreaterThan(0);
        expect(compareDocuments(contract, document), applied.join('; ')).toEqual([]);
        expect(compareDocuments(contract, document, { walkEverything: true }), applied.join('; ')).toEqual([]);
      }),
      options(RUNS.rewrites),
    );
  }, TIMEOUT);

  test(`a single change from the catalogue gives exactly its rule, at its path, with its severity (${RUNS.changes} runs)`, () => {
    const change = fc.constantFrom(...PLACED).chain((entry) => fc.tuple(fc.constant(entry), fc.constantFrom(...entry.sites())));
    fc.assert(
      fc.property(change, ([entry, site]) => {
        const document = structuredClone(contract);
        const expectations = entry.apply(document, site as never);
        expect(expectations.length, `${entry.name}: the change is visible somewhere`).toBeGreaterThan(0);
        const findings = compareDocuments(contract, document);
        expect(found(findings), `${entry.name} at ${JSON.stringify(site)}`).toEqual(expectations.map(key).sort());
        // The shortcuts (schemas written alike not walked, comparisons replayed) change nothing found.
        expect(compareDocuments(contract, document, { walkEverything: true })).toEqual(findings);
      }),
      options(RUNS.changes),
    );
  }, TIMEOUT);
});
