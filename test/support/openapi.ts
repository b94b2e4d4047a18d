// The emitted OpenAPI document, read as the server reads it (js-yaml; test/contract/yaml-documents.test.ts checks it gives
// what the `yaml` package gives), and the few shapes the contract checks look at.
import { readFileSync } from 'node:fs';
import { parseContractYaml } from '../../server/http/contract.ts';

export type Schema = {
  $ref?: string;
  description?: string;
  type?: string | string[];
  enum?: unknown[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  required?: string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  unevaluatedProperties?: Schema | boolean;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
};

export type Reference = { $ref: string };

export type Parameter = {
  name: string;
  in: 'query' | 'header' | 'path' | 'cookie';
  description?: string;
  explode?: boolean;
  schema?: Schema;
};

export type MediaType = { schema?: Schema };
export type Response = { description?: string; content?: Record<string, MediaType> };
export type SecurityRequirement = Record<string, string[]>;
export type SecurityScheme = { type: string; scheme?: string };

export type Operation = {
  operationId?: string;
  description?: string;
  parameters?: (Parameter | Reference)[];
  responses?: Record<string, Response | Reference>;
  requestBody?: { content?: Record<string, unknown> } | Reference;
  security?: SecurityRequirement[];
};

export type PathItem = { parameters?: (Parameter | Reference)[] } & Partial<Record<HttpMethod, Operation>>;

export type OpenApiDocument = {
  openapi: string;
  paths?: Record<string, PathItem>;
  security?: SecurityRequirement[];
  components?: {
    schemas?: Record<string, Schema>;
    parameters?: Record<string, Parameter | Reference>;
    responses?: Record<string, Response | Reference>;
    securitySchemes?: Record<string, SecurityScheme>;
  };
};

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export function readOpenApi(file: string): OpenApiDocument {
  return parseContractYaml(readFileSync(file, 'utf8')) as unknown as OpenApiDocument;
}

export type OperationEntry = {
  /** `METHOD path`, the form the API document uses. */
  name: string;
  path: string;
  pathItem: PathItem;
  operation: Operation;
};

export function listOperations(document: OpenApiDocument): OperationEntry[] {
  return Object.entries(document.paths ?? {}).flatMap(([path, pathItem]) =>
    HTTP_METHODS.filter((method) => pathItem[method]).map((method) => ({
      name: `${method.toUpperCase()} ${path}`,
      path,
      pathItem,
      operation: pathItem[method]!,
    })),
  );
}

export const isReference = (node: unknown): node is Reference =>
  typeof node === 'object' && node !== null && typeof (node as Reference).$ref === 'string';

/** Follows local `#/...` references until it reaches a node that is not one. */
export function resolve<T>(document: OpenApiDocument, node: T | Reference): T {
  let current: unknown = node;
  for (let hops = 0; isReference(current); hops++) {
    const ref = current.$ref;
    if (!ref.startsWith('#/') || hops > 20) throw new Error(`cannot resolve $ref ${ref}`);
    current = ref
      .slice(2)
      .split('/')
      .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>((parent, key) => (parent as Record<string, unknown> | undefined)?.[key], document);
    if (current === undefined) throw new Error(`$ref ${ref} points at nothing`);
  }
  return current as T;
}
