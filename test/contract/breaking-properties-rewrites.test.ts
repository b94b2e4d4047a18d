// Equivalence-preserving rewrites of the real contract, drawn at random (fast-check), give no difference: allOf
// members split off or extracted, $refs inlined, inline schemas extracted, parameters moved to the path item, the
// other spellings of sealing, null and const, reordering, redundant members; and the whole contract written in
// OpenAPI 3.0's spelling compares equal to its 3.1 self. A failure prints fast-check's seed and path;
// BREAKING_SEED=<seed> replays a run, BREAKING_RUNS=<n> multiplies the number of runs.
// @needs slow
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { compareDocuments } from '../../breaking/index.ts';
import { isObject } from '../../compare/pointer.ts';
import { METHODS, RUNS, SCHEMA, TIMEOUT, at, contract, nodes, options, replaceAt, schemas, type Json } from '../support/breaking-contract.ts';

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

// ---- the properties ------------------------------------------------------------------------------------------

describe('the comparison on the real contract, at random', () => {
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
});
