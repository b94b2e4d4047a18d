// generated/schema.d.ts: records must become index signatures and sealed objects must stay closed, although
// openapi-typescript 7.13 ignores `unevaluatedProperties` (see scripts/openapi-types.ts).
import { describe, expect, test } from 'vitest';
import { generateTypes, mirrorUnevaluatedProperties } from '../../scripts/openapi-types.ts';

// Shapes as TypeSpec 1.11 emits them with `seal-object-schemas: true` and OpenAPI 3.1.
const sealed = { not: {} };
const fixture = {
  openapi: '3.1.0',
  info: { title: 'Fixture', version: '0' },
  paths: {},
  components: {
    schemas: {
      // model Thing { title: string; labels: Record<string>; }
      Thing: {
        type: 'object',
        required: ['title', 'labels'],
        properties: {
          title: { type: 'string' },
          labels: { type: 'object', unevaluatedProperties: { type: 'string' } },
        },
        unevaluatedProperties: sealed,
      },
      // model Extensible { name: string; ...Record<int32>; }
      Extensible: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string' } },
        unevaluatedProperties: { type: 'integer', format: 'int32' },
      },
      // model Derived extends Thing { ...Record<string> }: left alone, the two keywords differ under allOf.
      Derived: {
        type: 'object',
        allOf: [{ $ref: '#/components/schemas/Thing' }],
        unevaluatedProperties: { type: 'string' },
      },
    },
  },
};

/** The generated text of one component schema, from `Name: {` to its closing brace. */
function typeOf(types: string, name: string): string {
  const start = types.indexOf(`        ${name}: `);
  const end = types.indexOf('\n        };', start);
  expect(start, `no ${name} in the generated types`).toBeGreaterThan(-1);
  return types.slice(start, end);
}

describe('generated types', () => {
  test('type a record as an index signature and keep a sealed object closed', async () => {
    const thing = typeOf(await generateTypes(fixture), 'Thing');
    expect(thing).toMatch(/labels: \{\s*\[key: string\]: string;\s*\}/);
    expect(thing).not.toContain('Record<string, never>');
    expect(thing.replace(/labels: \{[^}]*\}/, '')).not.toContain('[key: string]');
  });

  test('give a model spreading a record its properties plus the index signature', async () => {
    const extensible = typeOf(await generateTypes(fixture), 'Extensible');
    expect(extensible).toContain('name: string;');
    expect(extensible).toMatch(/\[key: string\]: number;/);
  });

  test('come from additionalProperties copied only where it means the same as unevaluatedProperties', () => {
    const { components } = mirrorUnevaluatedProperties(structuredClone(fixture)) as typeof fixture;
    const { Thing, Extensible, Derived } = components.schemas as Record<string, Record<string, any>>;
    expect(Thing!.properties.labels.additionalProperties).toEqual({ type: 'string' });
    expect(Extensible!.additionalProperties).toEqual({ type: 'integer', format: 'int32' });
    expect(Thing).not.toHaveProperty('additionalProperties'); // sealed: already closed
    expect(Derived).not.toHaveProperty('additionalProperties'); // allOf: properties of Thing count as evaluated
  });

  test('come from a copy: the document itself is not changed', async () => {
    const before = structuredClone(fixture);
    await generateTypes(fixture);
    expect(fixture).toEqual(before);
  });

  test('are the same on every run', async () => {
    expect(await generateTypes(fixture)).toBe(await generateTypes(fixture));
  });
});
