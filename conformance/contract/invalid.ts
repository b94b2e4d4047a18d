// Invalid inputs derived from the contract alone, for an operation the scenario has just called successfully: the
// same path parameters (so that the failure is about the input), and each input breaking one rule the document
// states. Each must be rejected with 400 and the error envelope.
import type { Contract, Operation, Schema } from './contract.ts';

export interface Probe {
  /** The rule broken, for the report: `body.title longer than maxLength 255`. */
  rule: string;
  query: Record<string, unknown>;
  /** The JSON body to send; undefined when the operation takes none. */
  body: unknown;
}

/** A property name no sealed object of the contract declares. */
export const UNKNOWN_PROPERTY = 'docsConformanceUnknownProperty';

interface ObjectShape {
  properties: Record<string, Schema>;
  required: string[];
  /** Unknown properties are rejected: `additionalProperties: false` or `unevaluatedProperties: false` / `{not: {}}`. */
  sealed: boolean;
}

const isClosed = (value: unknown) =>
  value === false || (typeof value === 'object' && value !== null && 'not' in value && Object.keys((value as { not: object }).not).length === 0);

/** The properties, required names and sealing of an object schema, through `$ref` and `allOf`. */
export function objectShape(contract: Contract, raw: Schema): ObjectShape {
  const schema = contract.resolve(raw);
  const shape: ObjectShape = { properties: {}, required: [...(schema.required ?? [])], sealed: false };
  for (const [name, property] of Object.entries(schema.properties ?? {})) shape.properties[name] = property;
  for (const part of schema.allOf ?? []) {
    const inner = objectShape(contract, part);
    Object.assign(shape.properties, inner.properties);
    shape.required.push(...inner.required);
  }
  shape.sealed = isClosed(schema.additionalProperties) || isClosed(schema.unevaluatedProperties);
  return shape;
}

/** The string schema with a maxLength inside a property schema (through `$ref`, `allOf` and `anyOf`/`oneOf`). */
function boundedString(contract: Contract, raw: Schema, depth = 0): { maxLength: number; readOnly: boolean } | undefined {
  if (depth > 8) return undefined;
  const schema = contract.resolve(raw);
  const readOnly = schema.readOnly === true || raw.readOnly === true;
  const isString = schema.type === 'string' || (Array.isArray(schema.type) && schema.type.includes('string'));
  if (isString && typeof schema.maxLength === 'number') return { maxLength: schema.maxLength, readOnly };
  for (const part of [...(schema.allOf ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) {
    const found = boundedString(contract, part, depth + 1);
    if (found) return { ...found, readOnly: found.readOnly || readOnly };
  }
  return undefined;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The invalid inputs of an operation, from the valid call's query and body:
 * - a JSON body: with an unknown property (sealed objects), without one of its required properties, and with each
 *   top-level string property that has a maxLength one character too long;
 * - query parameters: each integer parameter with bounds just outside them (`limit=0`, `limit=1001`), each string
 *   parameter with a maxLength one character too long, and without each required one.
 */
export function deriveProbes(
  contract: Contract,
  operation: Operation,
  valid: { query?: Record<string, unknown>; body?: unknown },
): Probe[] {
  const probes: Probe[] = [];
  const query = { ...(valid.query ?? {}) };

  if (operation.body) {
    const base = valid.body === undefined ? {} : valid.body;
    if (isPlainObject(base)) {
      const shape = objectShape(contract, operation.body.schema);
      if (shape.sealed) {
        probes.push({ rule: `body with an unknown property ${UNKNOWN_PROPERTY}`, query, body: { ...base, [UNKNOWN_PROPERTY]: true } });
      }
      const required = shape.required.find(
        (name) => name in base && contract.resolve(shape.properties[name] ?? {}).readOnly !== true && shape.properties[name]?.readOnly !== true,
      );
      if (required !== undefined) {
        const { [required]: _left, ...rest } = base;
        probes.push({ rule: `body without its required property ${required}`, query, body: rest });
      }
      for (const [name, property] of Object.entries(shape.properties)) {
        const bounded = boundedString(contract, property);
        if (!bounded || bounded.readOnly) continue;
        probes.push({
          rule: `body.${name} longer than its maxLength ${bounded.maxLength}`,
          query,
          body: { ...base, [name]: 'x'.repeat(bounded.maxLength + 1) },
        });
      }
    }
  }

  for (const parameter of operation.parameters) {
    if (parameter.in !== 'query') continue;
    const schema = parameter.schema ? contract.resolve(parameter.schema) : undefined;
    const body = valid.body;
    if (parameter.required) {
      const { [parameter.name]: _left, ...rest } = query;
      probes.push({ rule: `without the required query parameter ${parameter.name}`, query: rest, body });
    }
    if (!schema) continue;
    if (schema.type === 'integer' || schema.type === 'number') {
      if (typeof schema.minimum === 'number') {
        probes.push({ rule: `${parameter.name}=${schema.minimum - 1}, below its minimum`, query: { ...query, [parameter.name]: schema.minimum - 1 }, body });
      }
      if (typeof schema.maximum === 'number') {
        probes.push({ rule: `${parameter.name}=${schema.maximum + 1}, above its maximum`, query: { ...query, [parameter.name]: schema.maximum + 1 }, body });
      }
    }
    const bounded = boundedString(contract, schema);
    if (bounded) {
      probes.push({
        rule: `query ${parameter.name} longer than its maxLength ${bounded.maxLength}`,
        query: { ...query, [parameter.name]: 'x'.repeat(bounded.maxLength + 1) },
        body,
      });
    }
  }
  return probes;
}
