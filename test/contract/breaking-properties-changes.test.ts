// A single change drawn from the rule catalogue, applied to the real contract at random (fast-check), gives exactly
// its rule, at its path, with its severity, in every context the changed schema travels in; what each change must
// give is worked out independently of the comparison (support/breaking-contract.ts).
// The changes drawn, and replaying a failure: test/README.md, "Random changes to the real contract".
// @needs slow
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { compareDocuments } from '../../breaking/index.ts';
import { child, isObject } from '../../compare/pointer.ts';
import type { SchemaKind } from '../../compare/rules.ts';
import {
  BC,
  BI,
  BS,
  REACH,
  RUNS,
  SCHEMA,
  TIMEOUT,
  at,
  contract,
  direction,
  expected,
  flag,
  found,
  hidden,
  key,
  operationsOf,
  options,
  parentOf,
  properties,
  propertySites,
  referenceOf,
  schemas,
  type Expected,
  type Json,
  type PropertySite,
} from '../support/breaking-contract.ts';

// ---- changes from the rule catalogue, each with what it must give --------------------------------------------

/** The property's `allOf`, made from its `$ref` when it has none: the same schema, ready for a second member. */
function asAllOf(node: Json): Json[] {
  if (typeof node.$ref === 'string') {
    node.allOf = [{ $ref: node.$ref }];
    delete node.$ref;
  }
  return node.allOf as Json[];
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

// ---- the properties ------------------------------------------------------------------------------------------

/**
 * The changes the contract has no place for: no request body of the contract holds a read-only field (each write takes
 * a request model of its own). breaking-rules.test.ts covers their rules on documents made for them.
 */
const PLACELESS = ['a read-only field made writable'];
const PLACED = CHANGES.filter((change) => change.sites().length > 0);

describe('the comparison on the real contract, at random', () => {
  test('the catalogue of changes has places to apply each change, and the contract reaches components from both directions', () => {
    expect(CHANGES.filter((change) => !PLACED.includes(change)).map((change) => change.name)).toEqual(PLACELESS);
    const contexts = new Set([...REACH.values()].flatMap((set) => [...set]));
    expect([...contexts].sort()).toEqual(['request-parameter', 'request-property', 'response-property']);
  });

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
