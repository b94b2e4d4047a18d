// Validation of responses against the contract: the status must be declared for the operation; a declared JSON
// response must come as application/json with a body that validates against its schema (Ajv, the 2020-12 dialect
// of OpenAPI 3.1, with formats); declared required headers must be present and valid; a 204 has no body; an error
// body carries the envelope's code equal to the status.
import type { ErrorObject, ValidateFunction } from 'ajv';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { at, type Contract, declaredResponse, type Operation, pointerSegment } from './contract.ts';

// Both packages are CommonJS modules whose exports also carry `default` (the class, the plugin): that is what the
// types of a default import under NodeNext describe.
const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

/** What the runner saw of a response. */
export interface ObservedResponse {
  status: number;
  headers: Headers;
  /** The body as text ('' when empty). */
  text: string;
}

export type ProblemKind =
  | 'undeclared-status'
  | 'unexpected-status'
  | 'content-type'
  | 'body-schema'
  | 'invalid-json'
  | 'missing-header'
  | 'header-schema'
  | 'unexpected-body'
  | 'error-envelope'
  | 'network'
  | 'invalid-input-accepted'
  | 'answered-from-contract';

export interface Problem {
  kind: ProblemKind;
  message: string;
}

/**
 * The header of an answer the reference server made from the contract, for an operation it does not implement yet
 * (server/http/example-answers.ts): such an answer is the contract's example, not an implementation's, so both the
 * runner (which then counts the operation as not exercised) and the proxy report it.
 */
export const CONTRACT_ANSWER_HEADER = 'x-contract-answer';

/** The finding of an answer made from the contract, when `headers` say it is one. */
export function contractAnswerProblem(headers: Headers): Problem | undefined {
  const source = headers.get(CONTRACT_ANSWER_HEADER);
  if (source === null) return undefined;
  return { kind: 'answered-from-contract', message: `answered from the contract (${CONTRACT_ANSWER_HEADER}: ${source}), not by an implementation: the operation is not implemented` };
}

const CONTRACT_ID = 'urn:docs-platform:contract';

/**
 * The JSON Schema dialects the runner reads schemas in (`jsonSchemaDialect`; a 3.1 document that declares none is in
 * the first, its default): OpenAPI 3.1's base dialect and the 2020-12 meta-schema it builds on, which validate alike
 * (OpenAPI's own keywords are annotations).
 */
export const READ_DIALECTS = ['https://spec.openapis.org/oas/3.1/dialect/base', 'https://json-schema.org/draft/2020-12/schema'];

/** Why the runner cannot validate against `document`'s schemas, or undefined: a dialect it does not read. */
export function dialectProblem(document: object): string | undefined {
  const dialect = (document as { jsonSchemaDialect?: unknown }).jsonSchemaDialect;
  if (dialect === undefined || READ_DIALECTS.includes(dialect as string)) return undefined;
  return `the contract declares the JSON Schema dialect ${JSON.stringify(dialect)}; the runner validates in ${READ_DIALECTS.join(' or ')} only`;
}
const MAX_ERRORS = 10;

const validators = new WeakMap<Contract, ResponseValidator>();

/** One validator per contract: its compiled schemas serve every run of the process. */
export function validatorOf(contract: Contract): ResponseValidator {
  let validator = validators.get(contract);
  if (!validator) {
    validator = new ResponseValidator(contract);
    validators.set(contract, validator);
  }
  return validator;
}

export class ResponseValidator {
  private readonly ajv: InstanceType<typeof Ajv2020>;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly document: unknown;

  constructor(contract: Contract) {
    this.document = contract.document;
    // strict: false, because the document is OpenAPI (paths, operations, parameters) around its schemas. Without Ajv's
    // optimizing pass over the code it generates (a large part of a compile): each schema is compiled for a few calls.
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true, validateSchema: false, code: { optimize: false } });
    addFormats(this.ajv);
    // The whole document once, under one id: response schemas are compiled on first use, by JSON pointer, and their
    // `#/components/...` references resolve inside it.
    this.ajv.addSchema({ ...contract.document, $id: CONTRACT_ID });
  }

  /**
   * The compiled schema at a JSON pointer of the document (cached). A schema that is only a local `$ref` is its
   * target's function: most of the contract's response schemas are `$ref: ErrorEnvelope`, each of which Ajv would
   * compile again under its own pointer, a few distinct schemas compiled many times over in every run.
   */
  schemaAt(pointer: string, followed = 0): ValidateFunction {
    let validate = this.compiled.get(pointer);
    if (!validate) {
      // A chain of references longer than this is a cycle: Ajv compiles (and refuses) it as it is.
      const target = followed < 16 ? refTarget(at(this.document, pointer)) : undefined;
      validate = target !== undefined ? this.schemaAt(target, followed + 1) : this.ajv.getSchema(`${CONTRACT_ID}${pointer}`);
      if (!validate) throw new Error(`no schema at ${pointer} of the contract`);
      this.compiled.set(pointer, validate);
    }
    return validate;
  }

  /** Everything wrong with a response to `operation`, by the contract alone (the expected status is the caller's). */
  validate(operation: Operation, observed: ObservedResponse): Problem[] {
    const problems: Problem[] = [];
    const declared = declaredResponse(operation, observed.status);
    if (!declared) {
      const statuses = Object.keys(operation.responses).join(', ');
      return [{ kind: 'undeclared-status', message: `status ${observed.status} is not declared (declared: ${statuses})${excerpt(observed.text)}` }];
    }
    const { key, response } = declared;

    // Headers the contract declares as required.
    for (const [name, header] of Object.entries(response.headers)) {
      const value = observed.headers.get(name);
      if (value === null) {
        if (header.required) problems.push({ kind: 'missing-header', message: `required header ${name} is missing` });
        continue;
      }
      if (header.schema) {
        const validate = this.schemaAt(`${response.pointer}/headers/${pointerSegment(name)}/schema`);
        if (!validate(value)) problems.push({ kind: 'header-schema', message: `header ${name}: ${describe(validate.errors, name)}` });
      }
    }

    const hasBody = observed.text.length > 0;
    if (observed.status === 204 || response.contentTypes.length === 0) {
      if (hasBody) {
        problems.push({ kind: 'unexpected-body', message: `${observed.status} is declared without a body, but one was sent${excerpt(observed.text)}` });
      }
      return problems;
    }

    const json = response.contentTypes.find((type) => /^application\/(.+\+)?json$/.test(type));
    if (!json) return problems; // a declared non-JSON body: not checked beyond its presence
    const contentType = observed.headers.get('content-type') ?? '';
    const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
    if (mediaType !== json) {
      problems.push({ kind: 'content-type', message: `content-type is ${contentType ? `"${contentType}"` : 'missing'}, expected ${json}` });
    }
    let body: unknown;
    try {
      body = JSON.parse(observed.text);
    } catch {
      problems.push({ kind: 'invalid-json', message: `the body is not JSON${excerpt(observed.text)}` });
      return problems;
    }
    const validate = this.schemaAt(bodySchemaPointer(response, json));
    if (!validate(body)) {
      problems.push({ kind: 'body-schema', message: `body does not match the ${key} response schema: ${describe(validate.errors, 'body')}` });
    }
    if (observed.status >= 400) {
      const code = (body as { error?: { code?: unknown } } | null)?.error?.code;
      if (code !== undefined && code !== observed.status) {
        problems.push({ kind: 'error-envelope', message: `error.code is ${JSON.stringify(code)}, not the status ${observed.status}` });
      }
    }
    return problems;
  }
}

/** Where the body schema of a declared response is, for a media type. */
export const bodySchemaPointer = (response: { pointer: string }, mediaType: string): string =>
  `${response.pointer}/content/${pointerSegment(mediaType)}/schema`;

/** The target of a schema that is a local `$ref` and nothing else (siblings would change what it accepts). */
function refTarget(schema: unknown): string | undefined {
  if (schema === null || typeof schema !== 'object') return undefined;
  const keys = Object.keys(schema);
  const ref = (schema as { $ref?: unknown }).$ref;
  return keys.length === 1 && typeof ref === 'string' && ref.startsWith('#/') ? ref : undefined;
}

/** Ajv errors as `path: message` (instance paths as JSON pointers under `root`), at most MAX_ERRORS of them. */
export function describe(errors: ErrorObject[] | null | undefined, root: string): string {
  if (!errors?.length) return 'invalid';
  // With allErrors, an anyOf reports every branch: keep the most specific errors first (longest instance path).
  const sorted = [...errors].sort((a, b) => b.instancePath.length - a.instancePath.length);
  const lines = [
    ...new Set(
      sorted.map((error) => {
        const extra =
          error.keyword === 'unevaluatedProperties' || error.keyword === 'additionalProperties'
            ? ` (${String((error.params as { unevaluatedProperty?: string; additionalProperty?: string }).unevaluatedProperty ?? (error.params as { additionalProperty?: string }).additionalProperty)})`
            : error.keyword === 'enum'
              ? ` (${JSON.stringify((error.params as { allowedValues?: unknown }).allowedValues)})`
              : '';
        return `${root}${error.instancePath} ${error.message ?? error.keyword}${extra}`;
      }),
    ),
  ];
  const shown = lines.slice(0, MAX_ERRORS);
  return shown.join('; ') + (lines.length > shown.length ? `; and ${lines.length - shown.length} more` : '');
}

function excerpt(text: string): string {
  if (!text) return '';
  const flat = text.replace(/\s+/g, ' ').trim();
  return `: ${flat.length > 200 ? `${flat.slice(0, 200)}…` : flat}`;
}
