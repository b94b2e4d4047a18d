// Integer parameters written as integers. The validator (Ajv with `coerceTypes`) turns a query string into a
// number with `+value` and checks the number: `0x10`, `+5`, `1.0`, `5e0` and ` 5` pass as numbers they do not spell,
// and `Infinity`, `-Infinity` and `1e400` become non-finite numbers for which Ajv skips `minimum` and `maximum`
// (ajv-validator/ajv#2212), reaching handlers and SQLite as Infinity. So every integer query and path parameter of
// the contract is checked here, once, on the raw text the client sent.
import { parse as parseQuery } from 'node:querystring';
import type { Request } from 'express';
import { badRequest } from '../common/errors.ts';
import type { OpenApiDocument } from './contract.ts';

/** An integer written as JSON writes it: an optional minus sign, then digits without a leading zero. */
const INTEGER = /^-?(0|[1-9][0-9]*)$/;

export interface IntegerParameter {
  name: string;
  in: 'query' | 'path';
  minimum?: number;
  maximum?: number;
}

type Schema = { $ref?: string; type?: string | string[]; items?: Schema; minimum?: number; maximum?: number };
type Parameter = { $ref?: string; name: string; in: string; schema?: Schema };

function follow<T>(document: OpenApiDocument, node: T & { $ref?: string }): T {
  let current: unknown = node;
  for (let hops = 0; hops < 20 && typeof (current as { $ref?: unknown })?.$ref === 'string'; hops++) {
    const ref = (current as { $ref: string }).$ref;
    current = ref
      .slice(2)
      .split('/')
      .reduce<unknown>((parent, key) => (parent as Record<string, unknown> | undefined)?.[key], document);
  }
  return current as T;
}

const isInteger = (schema: Schema | undefined) => [schema?.type].flat().includes('integer');

/** The integer query and path parameters (or arrays of integers) of an operation of the contract. */
export function integerParameters(document: OpenApiDocument, path: string, method: string): IntegerParameter[] {
  const item = document.paths[path] ?? {};
  const declared = [...(item.parameters ?? []), ...(item[method]?.parameters ?? [])] as Parameter[];
  return declared.flatMap((reference) => {
    const parameter = follow<Parameter>(document, reference);
    if (parameter.in !== 'query' && parameter.in !== 'path') return [];
    let schema = parameter.schema && follow<Schema>(document, parameter.schema);
    if ([schema?.type].flat().includes('array') && schema?.items) schema = follow<Schema>(document, schema.items);
    if (!isInteger(schema)) return [];
    return [{ name: parameter.name, in: parameter.in, minimum: schema!.minimum, maximum: schema!.maximum }];
  });
}

/** Throws a 400 naming the first integer parameter whose raw text is not an integer in range. */
export function checkIntegerParameters(req: Request, parameters: IntegerParameter[]): void {
  if (parameters.length === 0) return;
  const at = req.originalUrl.indexOf('?');
  const query = at === -1 ? {} : parseQuery(req.originalUrl.slice(at + 1));
  for (const parameter of parameters) {
    const raw = parameter.in === 'query' ? query[parameter.name] : req.params[parameter.name];
    for (const text of raw === undefined ? [] : [raw].flat()) {
      const where = `${parameter.in}.${parameter.name}`;
      if (!INTEGER.test(text)) {
        throw badRequest(`${where}: must be an integer written in decimal digits (such as 50), not ${JSON.stringify(text.slice(0, 40))}`);
      }
      const value = Number(text);
      if (!Number.isSafeInteger(value)) throw badRequest(`${where}: must be an integer between the bounds of the parameter`);
      if (parameter.minimum !== undefined && value < parameter.minimum) throw badRequest(`${where}: must be >= ${parameter.minimum}`);
      if (parameter.maximum !== undefined && value > parameter.maximum) throw badRequest(`${where}: must be <= ${parameter.maximum}`);
    }
  }
}
