// The contract as the conformance runner reads it: the emitted OpenAPI document, indexed by operationId. Nothing
// here names a path or an operation: methods, path templates, parameters, bodies and responses all come from the
// document, so the runner follows the contract it is given.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CORE_SCHEMA, load } from 'js-yaml';

/** generated/openapi.yaml of this package: the default contract. */
export const DEFAULT_CONTRACT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../generated/openapi.yaml');

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch' | 'head' | 'options' | 'trace';
const METHODS: HttpMethod[] = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** A JSON Schema of the document (OpenAPI 3.1: the 2020-12 dialect). */
export type Schema = Record<string, unknown> & {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  readOnly?: boolean;
  additionalProperties?: boolean | Schema;
  unevaluatedProperties?: boolean | Schema;
};

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
  explode?: boolean;
  style?: string;
}

export interface ResponseHeader {
  required?: boolean;
  schema?: Schema;
}

export interface DeclaredResponse {
  /** JSON pointer of the response object in the document (after following a `$ref`). */
  pointer: string;
  headers: Record<string, ResponseHeader>;
  /** Media types of the declared content (empty: the response has no body). */
  contentTypes: string[];
}

export interface Operation {
  operationId: string;
  method: HttpMethod;
  /** The path template, such as `/v1/spaces/{spaceId}`. */
  path: string;
  /** JSON pointer of the operation object in the document. */
  pointer: string;
  parameters: Parameter[];
  /** The JSON request body schema, when the operation takes one. */
  body?: { required: boolean; schema: Schema };
  /** Declared responses by status code (`200`, `4XX`, `default`). */
  responses: Record<string, DeclaredResponse>;
  /** The declared success statuses (2xx), as numbers. */
  successStatuses: number[];
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type OpenApiDocument = { openapi?: string; paths: Record<string, Record<string, any>> } & Record<string, any>;

export interface Contract {
  document: OpenApiDocument;
  /** Where it was read from (a file path), for the report. */
  source: string;
  operations: Map<string, Operation>;
  /** Follows `$ref`s (local ones, `#/...`) until a schema that is not a reference. */
  resolve<T = Schema>(value: T): T;
}

/** Escapes a JSON pointer segment. */
export const pointerSegment = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** The value at a local JSON pointer (`#/a/b`) of a document; throws when there is none. */
export function at(document: unknown, pointer: string): unknown {
  if (!pointer.startsWith('#')) throw new Error(`only local references are supported: ${pointer}`);
  let value: unknown = document;
  for (const raw of pointer.slice(1).split('/').slice(1)) {
    const segment = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    value = (value as Record<string, unknown> | undefined)?.[segment];
    if (value === undefined) throw new Error(`unresolvable reference ${pointer}`);
  }
  return value;
}

const loaded = new Map<string, Contract>();
/** By document object, forgotten with it: a process that judges many documents (the linter rule's) keeps none. */
const loadedDocuments = new WeakMap<OpenApiDocument, Contract>();

/** The contract from a file (read once per path) or from a parsed document. */
export function loadContract(source: string | OpenApiDocument = DEFAULT_CONTRACT): Contract {
  let contract = typeof source === 'string' ? loaded.get(source) : loadedDocuments.get(source);
  if (!contract) {
    contract = readContract(source);
    if (typeof source === 'string') loaded.set(source, contract);
    else loadedDocuments.set(source, contract);
  }
  return contract;
}

function readContract(source: string | OpenApiDocument): Contract {
  // js-yaml with YAML 1.2's core schema (what `yaml` reads): several times faster on a document the contract's size,
  // the same objects (test/contract/yaml-documents.test.ts); each start of the command parses it.
  const document = typeof source === 'string' ? (load(readFileSync(source, 'utf8'), { schema: CORE_SCHEMA }) as OpenApiDocument) : source;
  const resolveRef = (value: unknown, seen = 0): { value: unknown; pointer?: string } => {
    let pointer: string | undefined;
    let current = value;
    while (current && typeof current === 'object' && typeof (current as { $ref?: unknown }).$ref === 'string') {
      if (seen++ > 32) throw new Error('reference cycle');
      pointer = (current as { $ref: string }).$ref;
      current = at(document, pointer);
    }
    return { value: current, pointer };
  };
  const operations = new Map<string, Operation>();
  for (const [template, item] of Object.entries(document.paths ?? {})) {
    const shared = (item.parameters ?? []) as unknown[];
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation?.operationId) continue;
      const pointer = `#/paths/${pointerSegment(template)}/${method}`;
      // Operation parameters override path-item parameters of the same name and location.
      const parameters = new Map<string, Parameter>();
      for (const raw of [...shared, ...((operation.parameters ?? []) as unknown[])]) {
        const parameter = resolveRef(raw).value as Parameter;
        parameters.set(`${parameter.in}:${parameter.name}`, {
          ...parameter,
          ...(parameter.schema ? { schema: resolveRef(parameter.schema).value as Schema } : {}),
        });
      }
      let body: Operation['body'];
      if (operation.requestBody) {
        const requestBody = resolveRef(operation.requestBody).value as { required?: boolean; content?: Record<string, { schema?: Schema }> };
        const json = requestBody.content?.['application/json']?.schema;
        if (json) body = { required: requestBody.required === true, schema: json };
      }
      const responses: Record<string, DeclaredResponse> = {};
      for (const [status, raw] of Object.entries((operation.responses ?? {}) as Record<string, unknown>)) {
        const resolved = resolveRef(raw);
        const response = resolved.value as { headers?: Record<string, unknown>; content?: Record<string, unknown> };
        const headers: Record<string, ResponseHeader> = {};
        for (const [name, header] of Object.entries(response.headers ?? {})) {
          const value = resolveRef(header).value as ResponseHeader;
          headers[name.toLowerCase()] = { ...value, ...(value.schema ? { schema: resolveRef(value.schema).value as Schema } : {}) };
        }
        responses[status] = {
          pointer: resolved.pointer ?? `${pointer}/responses/${pointerSegment(status)}`,
          headers,
          contentTypes: Object.keys(response.content ?? {}),
        };
      }
      operations.set(operation.operationId, {
        operationId: operation.operationId,
        method,
        path: template,
        pointer,
        parameters: [...parameters.values()],
        ...(body ? { body } : {}),
        responses,
        successStatuses: Object.keys(responses)
          .filter((status) => /^2\d\d$/.test(status))
          .map(Number),
      });
    }
  }
  return {
    document,
    source: typeof source === 'string' ? source : '(document given in memory)',
    operations,
    resolve: <T>(value: T) => resolveRef(value).value as T,
  };
}

/** The declared response for a status: the exact code, else its class (`4XX`), else `default`. */
export function declaredResponse(operation: Operation, status: number): { key: string; response: DeclaredResponse } | undefined {
  for (const key of [String(status), `${String(status)[0]}XX`, `${String(status)[0]}xx`, 'default']) {
    const response = operation.responses[key];
    if (response) return { key, response };
  }
  return undefined;
}
