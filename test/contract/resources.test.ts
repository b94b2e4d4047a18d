// Holds the emitted schemas to the resources of the API document: every resource is a named schema, and every
// field it lists (nested ones too) is there with the document's constant, flag, closed enumeration and rules.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { apiDocumentPath } from '../support/api-document.ts';
import { parseResources, type FieldSpec, type ResourceSpec, type Rules } from '../support/api-resources.ts';
import { readOpenApi, resolve, type OpenApiDocument, type Schema } from '../support/openapi.ts';
import { openapiPath } from '../support/repo.ts';

// Headings whose schema name is not the heading in PascalCase.
const SCHEMA_NAMES: Record<string, string> = {
  'SAML provider': 'SamlProvider',
  'SSO login info': 'SsoLoginInfo',
  'Integration space item and integration site item': 'IntegrationSpaceItem',
};

const schemaName = (heading: string) =>
  SCHEMA_NAMES[heading] ??
  heading
    .replace(/\(.*\)/, '')
    .trim()
    .split(/\s+/)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('');

type Found = { schema: Schema; parent: Schema; name: string };

/** Follows `path` from `schema` through refs, single-ref allOf, anyOf variants, arrays and maps. */
function find(contract: OpenApiDocument, schema: Schema, path: string[]): Found | 'free-form' | undefined {
  const [name, ...rest] = path;
  const node = unwrap(contract, schema);
  for (const variant of node.anyOf ?? node.oneOf ?? []) {
    const found = find(contract, variant, path);
    if (found) return found;
  }
  if (node.type === 'array' && node.items) return find(contract, node.items, path);

  const property = name === '*' ? undefined : node.properties?.[name!];
  const map = node.additionalProperties ?? node.unevaluatedProperties;
  const next = property ?? (typeof map === 'object' && !('not' in map) ? map : undefined);
  if (!next) return undefined;
  if (!property && Object.keys(next).length === 0) return 'free-form'; // Record<unknown>: any key, any value
  if (rest.length === 0) return { schema: unwrap(contract, next), parent: node, name: name! };
  return find(contract, next, rest);
}

function unwrap(contract: OpenApiDocument, schema: Schema): Schema {
  let node = resolve<Schema>(contract, schema);
  while (node.allOf?.length === 1 && !node.properties) node = resolve<Schema>(contract, node.allOf[0]!);
  return node;
}

function enumOf(contract: OpenApiDocument, schema: Schema): unknown[] | undefined {
  const node = unwrap(contract, schema);
  if (node.enum) return node.enum;
  const variants = (node.anyOf ?? []).map((variant) => unwrap(contract, variant));
  return variants.find((variant) => variant.enum)?.enum;
}

function problemsOf(contract: OpenApiDocument, root: Schema, field: FieldSpec): string[] {
  const found = find(contract, root, field.path);
  if (found === 'free-form') return [];
  if (!found) return ['is missing'];
  const problems: string[] = [];
  const required = found.parent.required?.includes(found.name) ?? false;
  if (field.required !== undefined && field.required !== required) {
    problems.push(field.required ? 'is R in the document but optional here' : 'is O in the document but required here');
  }
  if (field.constant !== undefined) {
    const values = enumOf(contract, found.schema);
    if (values?.length !== 1 || values[0] !== field.constant) {
      problems.push(`should be the constant "${field.constant}", is ${JSON.stringify(values)}`);
    }
  }
  if (field.enumValues) {
    const values = enumOf(contract, found.schema) ?? [];
    if ([...values].sort().join() !== [...field.enumValues].sort().join()) {
      problems.push(`should be one of ${field.enumValues.join(', ')}, is ${JSON.stringify(values)}`);
    }
  }
  const constrained = [found.schema, ...(found.schema.anyOf ?? [])].map((s) => unwrap(contract, s));
  for (const [rule, expected] of Object.entries(field.rules)) {
    const actual = constrained.map((s) => s[rule as keyof Rules]).find((value) => value !== undefined);
    if (actual !== expected) problems.push(`should have ${rule} ${expected}, has ${actual}`);
  }
  return problems;
}

describe('the resources of the API document', () => {
    const resources = (): ResourceSpec[] => parseResources(readFileSync(apiDocumentPath, 'utf8'));

    test('are read from the document (the parser finds their fields)', () => {
      const byName = new Map(resources().map((resource) => [schemaName(resource.heading), resource.fields.length]));
      // A few resources with known field counts guard the parser itself.
      expect(byName.get('Organization')).toBeGreaterThanOrEqual(24);
      expect(byName.get('Space')).toBeGreaterThanOrEqual(24);
      expect(byName.get('File')).toBeGreaterThanOrEqual(9);
      expect(byName.size).toBeGreaterThanOrEqual(25);
    });

    test('each has a named schema with every field, constant, flag, enumeration and rule the document gives', () => {
      const contract = readOpenApi(openapiPath);
      const schemas = contract.components?.schemas ?? {};
      const offenders = resources().flatMap((resource) => {
        const name = schemaName(resource.heading);
        const root = schemas[name];
        if (!root) return [`${resource.heading} (api-document.md line ${resource.line}): no schema named ${name}`];
        return resource.fields.flatMap((field) =>
          problemsOf(contract, root, field).map((problem) => `${name}.${field.path.join('.')} ${problem}`),
        );
      });
      if (offenders.length > 0) {
        expect.fail(`The emitted schemas disagree with the API document; fix spec/:\n${offenders.map((o) => `  - ${o}`).join('\n')}`);
      }
    });
});
