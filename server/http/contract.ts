// The contract as the server reads it: generated/openapi.yaml, parsed once.
// The contract is read with js-yaml, much faster than `yaml` on a document this size (docs/performance.md, "Compiled,
// bundled, compile-cached start"), giving the same objects (test/contract/yaml-documents.test.ts); `yaml` stays for
// writing and for YAML that users give.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CORE_SCHEMA, load } from 'js-yaml';

export const CONTRACT_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../generated/openapi.yaml');

/**
 * The contract as JSON, written by the server's build (scripts/build-server.ts) with the SHA-256 of the YAML it was
 * parsed from. Parsing the YAML was most of a loaded start-up, JSON.parse of the copy a small part; the copy is used only
 * while its hash is that of generated/openapi.yaml as it is now, so a regenerated contract is never served stale.
 */
export const CONTRACT_JSON_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/server/openapi.json');

export const contractHash = (yamlText: string): string => createHash('sha256').update(yamlText).digest('hex');

/** Whether the contract in use is the build's copy, which the build checked against the OpenAPI 3.1 schema. */
let fromBuild = false;

/**
 * Whether `loadContract()` gave the build's copy of the contract: scripts/build-server.ts writes it only once the
 * document has passed the schema check express-openapi-validator makes at start-up (`validateApiSpec`), so a start
 * from that copy can skip the check (server/start/app.ts).
 */
export const contractCheckedByBuild = (): boolean => fromBuild;

function parseContract(yamlText: string): OpenApiDocument {
  try {
    const built = JSON.parse(readFileSync(CONTRACT_JSON_PATH, 'utf8')) as { sha256?: string; document?: OpenApiDocument };
    if (built.sha256 === contractHash(yamlText) && built.document) {
      fromBuild = true;
      return built.document;
    }
  } catch {
    // no built copy (tsx, or before the build): parse the YAML
  }
  return parseContractYaml(yamlText);
}

/** An OpenAPI document written in YAML (YAML 1.2's core schema, as `yaml` reads it). */
export const parseContractYaml = (text: string): OpenApiDocument => load(text, { schema: CORE_SCHEMA }) as OpenApiDocument;

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch';
const METHODS: HttpMethod[] = ['get', 'put', 'post', 'delete', 'patch'];

export interface ContractOperation {
  method: HttpMethod;
  /** The OpenAPI path template, such as `/v1/spaces/{spaceId}`. */
  path: string;
  operationId: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type OpenApiDocument = { paths: Record<string, Record<string, any>> } & Record<string, unknown>;

let cached: OpenApiDocument | undefined;

/** The contract document. Callers that mutate it must clone it first. */
export function loadContract(file = CONTRACT_PATH): OpenApiDocument {
  if (file !== CONTRACT_PATH) return parseContractYaml(readFileSync(file, 'utf8'));
  cached ??= parseContract(readFileSync(file, 'utf8'));
  return cached;
}

/** Every operation of the document, static path segments sorted before parameters (`/latest` before `/{id}`). */
export function contractOperations(document: OpenApiDocument): ContractOperation[] {
  const operations: ContractOperation[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation) operations.push({ method, path: template, operationId: operation.operationId });
    }
  }
  return operations.sort((a, b) => comparePaths(a.path, b.path) || a.method.localeCompare(b.method));
}

function comparePaths(a: string, b: string): number {
  const sa = a.split('/');
  const sb = b.split('/');
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    const pa = sa[i]!.startsWith('{');
    const pb = sb[i]!.startsWith('{');
    if (pa !== pb) return pa ? 1 : -1;
    if (sa[i] !== sb[i]) return sa[i]! < sb[i]! ? -1 : 1;
  }
  return sa.length - sb.length;
}

/** `/v1/spaces/{spaceId}` becomes the Express route `/v1/spaces/:spaceId`. */
export const expressPath = (template: string): string => template.replace(/\{([^}]+)\}/g, ':$1');
