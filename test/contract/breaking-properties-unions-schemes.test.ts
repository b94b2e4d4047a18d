// Discriminated unions built from the real contract's objects, each changed once at random (fast-check), give exactly
// the rule of the change, at its path, with its severity; the contract's security scheme, renamed, rewritten or
// redefined at random, is compared by its definition.
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
  NB,
  RUNS,
  SCHEMA,
  TIMEOUT,
  at,
  contract,
  expected,
  found,
  key,
  options,
  properties,
  referenceOf,
  replaceAt,
  schemas,
  type Expected,
  type Json,
  type PropertySite,
} from '../support/breaking-contract.ts';

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

// ---- the properties ------------------------------------------------------------------------------------------

describe('the comparison on the real contract, at random', () => {
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
});
