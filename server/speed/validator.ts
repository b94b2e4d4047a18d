// express-openapi-validator as the server installs it: its middlewares run as one (`openApiValidator`), and a route
// index places each request by its path's segments instead of the validator's scan of every path, its metadata
// middleware running once per operation; a request the index does not place exactly goes through the validator's own
// lookup (server/docs/design.md, "The validator as one middleware").
import { createHash } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type * as OpenApiValidator from 'express-openapi-validator';
import { OpenApiContext } from 'express-openapi-validator/dist/framework/openapi.context.js';
import { OpenApiSpecLoader } from 'express-openapi-validator/dist/framework/openapi.spec.loader.js';
// The module's exports object itself (a default import of a CommonJS module is its `module.exports`, under Node and
// in the server's bundle alike), whose class the framework reads when it builds one.
import schemaValidatorExports from 'express-openapi-validator/dist/framework/openapi.schema.validator.js';
import { SchemaPreprocessor } from 'express-openapi-validator/dist/middlewares/parsers/schema.preprocessor.js';
// Likewise the exports of the module whose `useAjvCache` the request and response validators call.
import validatorUtilExports from 'express-openapi-validator/dist/middlewares/util.js';
// And the exports of the module whose parameter functions the request validator calls on every request.
import parameterUtilExports from 'express-openapi-validator/dist/middlewares/parsers/util.js';
import { RequestParameterMutator } from 'express-openapi-validator/dist/middlewares/parsers/req.parameter.mutator.js';
import { OpenApiValidator as Validator } from 'express-openapi-validator/dist/openapi.validator.js';
import { ResponseValidator } from 'express-openapi-validator/dist/middlewares/openapi.response.validator.js';
import { runChain } from '../http/chain.ts';
import { rememberingAccepted } from '../http/immutable-bodies.ts';
import { RouteIndex } from '../http/route-index.ts';

type ValidatorOptions = Parameters<typeof OpenApiValidator.middleware>[0];

/** The validator's factories of its middlewares (private in its typings, called as its installMiddleware calls them). */
interface ValidatorInternals {
  options: Validator['options'];
  ajvOpts: Validator['ajvOpts'];
  installPathParams: Validator['installPathParams'];
  metadataMiddleware(context: OpenApiContext, responseApiDoc: unknown): RequestHandler;
  securityMiddleware(apiDoc: unknown): RequestHandler;
  multipartMiddleware(apiDoc: unknown): RequestHandler;
  requestValidationMiddleware(apiDoc: unknown): RequestHandler;
  responseValidationMiddleware(apiDoc: unknown, serial: number): RequestHandler;
}

type OpenApiMetadata = Record<string, unknown> & { openApiRoute?: string; pathParams?: Record<string, string> };
type ValidatedRequest = Request & { openapi?: OpenApiMetadata; [PLACED]?: string };

/** The operation (`METHOD template`) of a request the index placed and the validator's middlewares passed. */
const PLACED = Symbol('placed by the route index');

/**
 * The operation of a request, as `METHOD template` (`GET /v1/spaces/{spaceId}`), when the route index placed it and
 * every middleware of the validator passed it; undefined for anything the validator's own lookup placed.
 */
export function placedOperation(req: Request): string | undefined {
  return (req as ValidatedRequest)[PLACED];
}

/**
 * A schema preprocessor of the validator that finds the document's component schemas without compiling them. The
 * preprocessor resolves each `$ref` it meets (media types of request bodies and responses, and refs inside schemas)
 * with `ajv.getSchema(ref).schema`: the very object of `components.schemas`, found by compiling a validation function
 * of the schema and everything it references, which it throws away. For the contract that was most of the
 * validator's start-up. Its cache of resolved refs is filled beforehand with those objects (for
 * the schemas that are not themselves a bare `$ref`, which it resolves one step further): the document it leaves is
 * the same (test/server/validator.test.ts compares them), and the validators of requests and responses are still compiled
 * by the validator, per operation, on first use.
 */
export function schemaPreprocessor(...args: ConstructorParameters<typeof SchemaPreprocessor>): SchemaPreprocessor {
  const preprocessor = new SchemaPreprocessor(...args);
  const cache = (preprocessor as unknown as { resolvedSchemaCache?: unknown }).resolvedSchemaCache;
  if (!(cache instanceof Map)) {
    throw new Error('express-openapi-validator: SchemaPreprocessor has no resolvedSchemaCache; follow its new version in server/speed/validator.ts');
  }
  const schemas = (args[0].components?.schemas ?? {}) as Record<string, { $ref?: unknown }>;
  for (const [name, schema] of Object.entries(schemas)) {
    if (schema && typeof schema === 'object' && schema.$ref === undefined && !/[~/]/.test(name)) {
      cache.set(`#/components/schemas/${name}`, schema);
    }
  }
  return preprocessor;
}

/**
 * Whether `document` is already what json-schema-ref-parser's `bundle` makes of it, so that the validator's loader
 * can skip it: every `$ref` is a local JSON pointer (`#/...`) to an object that is not itself a `$ref`, which `bundle`
 * leaves as it is (it rewrites references to other files, and references to references). `bundle` crawled the
 * contract's references at every start to give back the same document (test/server/validator.test.ts
 * checks that it does).
 */
export function bundled(document: unknown): boolean {
  const target = (ref: string): unknown => {
    let node: unknown = document;
    for (const token of ref.slice(2).split('/')) {
      if (!node || typeof node !== 'object') return undefined;
      node = (node as Record<string, unknown>)[token.replaceAll('~1', '/').replaceAll('~0', '~')];
    }
    return node;
  };
  const walk = (node: unknown): boolean => {
    if (!node || typeof node !== 'object') return true;
    if (Array.isArray(node)) return node.every(walk);
    const ref = (node as { $ref?: unknown }).$ref;
    if (ref !== undefined) {
      if (typeof ref !== 'string' || !ref.startsWith('#/') || /%/.test(ref)) return false;
      const resolved = target(ref);
      if (!resolved || typeof resolved !== 'object' || '$ref' in resolved) return false;
    }
    return Object.values(node).every(walk);
  };
  return walk(document);
}

const SKIPS_UNUSED = Symbol('skips the schema it does not use');

/**
 * Makes the validator's framework skip compiling the OpenAPI schema of the document's version when it will not use
 * it. `OpenAPIFramework.initialize` (dist/framework/index.js) builds an `OpenAPISchemaValidator` on every start,
 * compiling that schema with Ajv (a large part of the CPU of a start), and uses it only with `validateApiSpec`; with
 * `validateApiSpec: false` it is now an object that validates nothing, which nothing calls. The framework reads the
 * class from its module's exports when it builds it, so the export is replaced (once, for every validator of the
 * process): with `validateApiSpec` true, or absent, the validator's own class is built as before.
 */
export function skipUnusedSpecSchema(): void {
  const exported = schemaValidatorExports as unknown as {
    OpenAPISchemaValidator?: (new (opts: { validateApiSpec?: boolean }) => object) & { [SKIPS_UNUSED]?: true };
  };
  const Original = exported.OpenAPISchemaValidator;
  if (typeof Original !== 'function') {
    throw new Error('express-openapi-validator: no OpenAPISchemaValidator in dist/framework/openapi.schema.validator.js; follow its new version in server/speed/validator.ts');
  }
  if (Original[SKIPS_UNUSED]) return;
  const replacement = function OpenAPISchemaValidator(opts: { validateApiSpec?: boolean }) {
    if (opts?.validateApiSpec === false) return { validate: () => ({ errors: [] }) };
    return new Original(opts);
  } as unknown as typeof Original;
  replacement[SKIPS_UNUSED] = true;
  exported.OpenAPISchemaValidator = replacement;
}

const ANALYSED_ONCE = Symbol('analyses each parameter once');

type Analysis<A extends unknown[], R> = ((...args: A) => R) & { [ANALYSED_ONCE]?: true };

/** `analysis(owner, item)` once per pair of objects: later calls give the first result (not kept when it threw). */
function once<O extends object, I extends object, R>(analysis: (owner: O, item: I) => R): Analysis<[O, I], R> {
  const results = new WeakMap<O, WeakMap<I, R>>();
  const remembering: Analysis<[O, I], R> = (owner, item) => {
    if (owner === null || typeof owner !== 'object' || item === null || typeof item !== 'object') return analysis(owner, item);
    let known = results.get(owner);
    if (known === undefined) results.set(owner, (known = new WeakMap()));
    // One lookup for a result remembered (all but the first call), a second only for one that is undefined.
    const remembered = known.get(item);
    if (remembered !== undefined || known.has(item)) return remembered as R;
    const result = analysis(owner, item);
    known.set(item, result);
    return result;
  };
  remembering[ANALYSED_ONCE] = true;
  return remembering;
}

/** `work`, counting its calls in `counter` (for tests: how often a kept result was not there to give). */
function counting<A extends unknown[], R>(counter: { count: number }, work: (...args: A) => R): (...args: A) => R {
  return (...args) => {
    counter.count++;
    return work(...args);
  };
}

/**
 * `work(...args)` kept per key, for results that depend on short texts alone: `keyOf` gives the texts' key, or
 * undefined for an input not to keep (too long, or not text). The first `limit` keys met are kept (the texts are
 * partly the clients' to choose, so what is kept is bounded); `keep` makes the result to keep (a frozen one, say);
 * a result for an input not kept, or past the bound, is `work`'s own, and a throw is never kept.
 */
function keptPerText<A extends unknown[], R>(
  limit: number,
  keyOf: (...args: A) => string | undefined,
  work: (...args: A) => R,
  keep: (result: R) => R = (result) => result,
): (...args: A) => R {
  const kept = new Map<string, R>();
  return (...args) => {
    const key = keyOf(...args);
    if (key !== undefined) {
      // One lookup for a result kept, a second only for one that is undefined or null.
      const known = kept.get(key);
      if ((known !== undefined && known !== null) || kept.has(key)) return known as R;
    }
    const result = work(...args);
    if (key === undefined || kept.size >= limit) return result;
    const value = keep(result);
    kept.set(key, value);
    return value;
  };
}

interface ParameterAnalyses {
  dereferenceParameter(document: object, parameter: object): object;
  normalizeParameter(ajv: object, parameter: object): { name: string; schema: object };
  isObjectOrXOf(schema: object): boolean;
}
let originals: ParameterAnalyses | undefined;
/** The validator's own parameter analyses, as they were before `analyseParametersOnce` replaced them (for tests). */
export function originalParameterAnalyses(): ParameterAnalyses {
  analyseParametersOnce();
  return originals!;
}

/** How many times the request validator's parameter analyses have run, rather than been remembered (for tests). */
export const parameterAnalyses = { count: 0 };

/**
 * Makes the request validator analyse each parameter of the document once rather than on every request. Its
 * `RequestParameterMutator` (dist/middlewares/parsers/req.parameter.mutator.js), built for each request, goes
 * through the operation's parameters and for each one resolves its `$ref` in the document (`dereferenceParameter`, a
 * regular expression and a lookup), its schema's `$ref` in Ajv (`normalizeParameter`, `ajv.getSchema`), and whether
 * that schema is an object (`isObjectOrXOf`, a walk of the schema), before it decides whether the request's value
 * needs reshaping: work GET a page (six parameters) did again for each of them on every request. Each depends only on its
 * arguments, which are the document's own objects and the validator's Ajv instance, none of which changes once the
 * validator is built; so each result is kept for its arguments (by identity, in weak maps) and given again. What the
 * mutator does with the request itself (reshaping values, refusing reserved characters) runs as before, on every
 * request. `normalizeParameter` also fills in a parameter's default style and explode, once, as it did on its first
 * call. The mutator reads the two functions through their module's exports object and `isObjectOrXOf` from its
 * prototype, so both are replaced (once per process); test/server/validator.test.ts checks that they give what the
 * originals give for every parameter of the contract. The parser of the validator's schemas calls the same two at
 * start-up and gains the same.
 */
export function analyseParametersOnce(): void {
  const exported = parameterUtilExports as unknown as {
    dereferenceParameter?: Analysis<[object, object], object>;
    normalizeParameter?: Analysis<[object, object], { name: string; schema: object }>;
  };
  const mutator = RequestParameterMutator.prototype as unknown as { isObjectOrXOf?: (schema: object) => boolean };
  const { dereferenceParameter, normalizeParameter } = exported;
  const isObjectOrXOf = mutator.isObjectOrXOf;
  if (typeof dereferenceParameter !== 'function' || typeof normalizeParameter !== 'function' || typeof isObjectOrXOf !== 'function') {
    throw new Error(
      'express-openapi-validator: no dereferenceParameter and normalizeParameter in dist/middlewares/parsers/util.js, ' +
        'or no isObjectOrXOf in RequestParameterMutator; follow its new version in server/speed/validator.ts',
    );
  }
  if (dereferenceParameter[ANALYSED_ONCE]) return;
  originals = { dereferenceParameter, normalizeParameter, isObjectOrXOf: (schema) => isObjectOrXOf.call(mutator, schema) };
  const counted = <A extends unknown[], R>(analysis: (...args: A) => R) => counting(parameterAnalyses, analysis);
  exported.dereferenceParameter = once(counted(dereferenceParameter));
  exported.normalizeParameter = once(counted(normalizeParameter));
  // `isObjectOrXOf` reads nothing of the mutator it is called on: its result is the prototype's, for the schema.
  const objectOrXOf = once(counted((prototype: object, schema: object) => isObjectOrXOf.call(prototype, schema)));
  mutator.isObjectOrXOf = (schema: object) => objectOrXOf(mutator, schema);
}

const PARSES_ONCE = Symbol('parses each content type once');

/** The validator's `ContentType` (dist/middlewares/util.js), as far as the server uses it. */
export interface ValidatorContentType {
  mediaType: string | null;
  parameters: Record<string, string>;
  normalize(excludeParams?: string[]): string | undefined;
}
type ContentTypeClass = (new (header: string | undefined) => ValidatorContentType) & {
  from(req: { headers: Record<string, unknown> }): ValidatorContentType;
  [PARSES_ONCE]?: true;
};

/** Content types kept parsed: clients send few (a header's value is theirs to choose, so the kept ones are bounded). */
const MAX_KEPT_CONTENT_TYPES = 64;
const MAX_KEPT_CONTENT_TYPE_LENGTH = 256;

/** The validator's own `ContentType.from`, as it was before `parseContentTypesOnce`, and `normalize` (for tests). */
export let originalContentType: { from: ContentTypeClass['from']; normalize: ValidatorContentType['normalize'] } | undefined;

/**
 * Makes the validator parse each request's Content-Type header once per distinct value rather than on every request.
 * Its request and response validators each call `ContentType.from(req)`, which runs two regular expressions (one
 * made anew) over the header, and then `normalize()` to key their caches, which sorts and joins the parameters: work
 * every request repeated for the same few headers. The parse depends on the header's
 * text alone, and the validator only reads what it gives, so the instance made for a header is kept, frozen (a write
 * to it would throw rather than change it for later requests), and given again, with its `normalize()` without
 * arguments computed once. Headers beyond MAX_KEPT_CONTENT_TYPES distinct values, or longer than
 * MAX_KEPT_CONTENT_TYPE_LENGTH, are parsed as before. `ContentType` is read from its module's exports by the
 * validator at call time, so its static `from` is replaced (once per process);
 * test/server/validator.test.ts checks that they give what the originals give.
 */
export function parseContentTypesOnce(): void {
  const ContentType = (validatorUtilExports as unknown as { ContentType?: ContentTypeClass }).ContentType;
  if (typeof ContentType?.from !== 'function' || typeof ContentType.prototype?.normalize !== 'function') {
    throw new Error('express-openapi-validator: no ContentType.from in dist/middlewares/util.js; follow its new version in server/speed/validator.ts');
  }
  if (ContentType[PARSES_ONCE]) return;
  const { from } = ContentType;
  const { normalize } = ContentType.prototype;
  originalContentType = { from, normalize };
  // No header parses as an empty one: both have no media type and no parameters.
  const headerKey = (req: { headers: Record<string, unknown> }) => {
    const header = req.headers['content-type'] ?? '';
    return typeof header === 'string' && header.length <= MAX_KEPT_CONTENT_TYPE_LENGTH ? header : undefined;
  };
  ContentType.from = keptPerText(MAX_KEPT_CONTENT_TYPES, headerKey, (req) => from.call(ContentType, req), (parsed) => {
    // Its normalised form, made once, on the kept instance itself: other instances keep the prototype's.
    const normalized = normalize.call(parsed);
    parsed.normalize = (...args: [string[]?]) => (args.length === 0 ? normalized : normalize.apply(parsed, args));
    Object.freeze(parsed.parameters);
    return Object.freeze(parsed);
  });
  ContentType[PARSES_ONCE] = true;
}

const CHOOSES_ONCE = Symbol('chooses each response media type once');

type FindResponseContent = ((accepts: string[], expectedTypes: string[]) => string | null) & { [CHOOSES_ONCE]?: true };
type CanValidateContentType = (this: unknown, contentType: string) => boolean;

/** Choices kept: the media types an answer may carry are the contract's, and the Accept headers clients send are few. */
const MAX_KEPT_CHOICES = 256;
const MAX_KEPT_CHOICE_LENGTH = 512;

/**
 * The key of a media-type choice: how many accepted types, then each type on a line of its own. Undefined (not kept)
 * for a value that is not a string or holds a line feed (which HTTP does not allow in a header, and which would make
 * two inputs one key), or a key longer than MAX_KEPT_CHOICE_LENGTH.
 */
function choiceKey(accepts: unknown[], expectedTypes: unknown[]): string | undefined {
  let key = String(accepts.length);
  for (const types of [accepts, expectedTypes]) {
    for (const type of types) {
      if (typeof type !== 'string' || type.includes('\n')) return undefined;
      key += `\n${type}`;
    }
  }
  return key.length <= MAX_KEPT_CHOICE_LENGTH ? key : undefined;
}

/** The response validator's own media-type choice and check, as they were before `chooseResponseContentOnce` (for tests). */
export let originalResponseContent: { find: FindResponseContent; canValidate: CanValidateContentType } | undefined;
/** How many times the response validator chose a media type or checked one, rather than been given its kept result. */
export const responseContentChoices = { count: 0 };

/**
 * Makes the response validator choose each answer's media type, and decide whether it can check it, once per
 * distinct input rather than for every answer. For each answer it calls `findResponseContent` (dist/middlewares/
 * util.js) with the answer's Content-Type (or the request's Accept values) and the media types the contract gives
 * the status, which parses each of them with `ContentType` (two regular expressions each, one made anew) into a new
 * Map, and then `canValidateContentType` on the type chosen, which parses it twice more (the content-type and
 * media-typer packages), and the garbage of it all: on every answer, a large share of what response validation cost a
 * GET of a space's content, whose body check is remembered (see immutable-bodies.ts), or of a space. Both depend on their strings alone, so each result is kept for its strings (`keptPerText`) and given
 * again. Inputs beyond MAX_KEPT_CHOICES distinct ones, or longer than
 * MAX_KEPT_CHOICE_LENGTH (an Accept header is the client's to write), are worked out as before, and a type the
 * check throws on is tried again each time, as before. The validator reads `findResponseContent` from its module's
 * exports and `canValidateContentType` from its prototype at call time, so both are replaced (once per process);
 * test/server/validator.test.ts checks that they give what the originals give.
 */
export function chooseResponseContentOnce(): void {
  const exported = validatorUtilExports as unknown as { findResponseContent?: FindResponseContent };
  const prototype = ResponseValidator.prototype as unknown as { canValidateContentType?: CanValidateContentType };
  const find = exported.findResponseContent;
  const canValidate = prototype.canValidateContentType;
  if (typeof find !== 'function' || typeof canValidate !== 'function') {
    throw new Error(
      'express-openapi-validator: no findResponseContent in dist/middlewares/util.js or no canValidateContentType in ' +
        'its ResponseValidator; follow its new version in server/speed/validator.ts',
    );
  }
  if (find[CHOOSES_ONCE]) return;
  originalResponseContent = { find, canValidate };
  const counted = <A extends unknown[], R>(work: (...args: A) => R) => counting(responseContentChoices, work);
  const chooseOnce: FindResponseContent = keptPerText(MAX_KEPT_CHOICES, choiceKey, counted(find));
  chooseOnce[CHOOSES_ONCE] = true;
  exported.findResponseContent = chooseOnce;
  const typeKey = (_validator: unknown, contentType: unknown) =>
    typeof contentType === 'string' && contentType.length <= MAX_KEPT_CHOICE_LENGTH ? contentType : undefined;
  // Throws for a type it cannot parse, as before (the validator then checks the body anyway): not kept.
  const checkOnce = keptPerText(MAX_KEPT_CHOICES, typeKey, counted((validator: unknown, contentType: string) => canValidate.call(validator, contentType)));
  prototype.canValidateContentType = function canValidateContentType(contentType: string): boolean {
    // What it decides depends on the type alone, not on the validator it is asked of.
    return checkOnce(this, contentType);
  };
}

const COMPILES_ALONE = Symbol('compiles a schema without the document');

interface SchemaCompiler {
  getSchema(key: string): unknown;
  addSchema(schema: object, key: string): unknown;
  removeSchema(key: string): unknown;
}

/** How the validators of this process got their schemas' functions. */
export interface SchemaCompilations {
  /** Compiled without the document. */
  alone: number;
  /** Compiled with the document (a schema that does not compile alone). */
  withDocument: number;
  /** Taken from another validator of the same document and options, compiled before (see `compileWithoutDocument`). */
  reused: number;
}

type UseAjvCache = ((ajv: SchemaCompiler, schema: Record<string, unknown>, key: string) => unknown) & {
  [COMPILES_ALONE]?: SchemaCompilations;
};

/**
 * A text equal for equal values, and different for different ones as far as a compiled schema can tell: JSON, with
 * functions by their source, regular expressions by their text, and an object met again as a mark (Ajv's options
 * hold cycles). Undefined when the value cannot be written (a BigInt): such a schema is not shared.
 */
function fingerprint(value: unknown): string | undefined {
  const seen = new WeakSet<object>();
  try {
    const text = JSON.stringify(value, (_key, item: unknown) => {
      if (typeof item === 'function') return `function ${String(item)}`;
      if (item instanceof RegExp) return `regexp ${String(item)}`;
      if (item !== null && typeof item === 'object') {
        if (seen.has(item)) return '[again]';
        seen.add(item);
      }
      return item;
    });
    return createHash('sha256').update(text ?? 'undefined').digest('base64');
  } catch {
    return undefined;
  }
}

/**
 * Whether a schema the validator compiles is a response check: the response validator (`buildValidators`) wraps each
 * response's schema as `{ type: 'object', properties: { response: schema } }`. Such a check remembers the immutable
 * bodies it accepted (http/immutable-bodies.ts); should a new version of the validator shape them otherwise, they are
 * only checked every time, as any other (test/server/immutable-bodies.test.ts would see it).
 */
const isResponseCheck = (schema: Record<string, unknown>) => {
  const properties = schema.properties;
  return properties !== null && typeof properties === 'object' && Object.keys(properties).join() === 'response';
};

/** The most validator functions kept for sharing in a process; the oldest go first. */
const SHARED_LIMIT = 20_000;

/**
 * Makes the validator compile each operation's request and response schemas without the whole document inside them,
 * and once per process for equal validators.
 *
 * Without the document: the request validator (the `Validator` class of dist/middlewares/openapi.request.validator.js)
 * and the response validator (`buildValidators` of dist/middlewares/openapi.response.validator.js) put the
 * document's `paths` and `components` into every schema they compile, once per operation and response code, "for
 * resolution with multi-file" documents; Ajv then walks all of it (`getSchemaRefs`, a traversal of every key) before
 * compiling. With this contract that made the first request of each operation slow, most of a test file's time, and
 * heavy in memory (docs/performance.md and server/docs/design.md, "The validator as one middleware"). Their `$ref`s
 * (`#/components/schemas/...`) do not need them: the validator has added
 * each component schema to the same Ajv under that very key (`createAjv`, dist/framework/ajv/index.js), and Ajv
 * resolves a `$ref` by its registered schemas before looking inside the root, so the code it generates is the same.
 * A schema that does not compile alone (a `$ref` elsewhere in a document) is compiled with the document, as before.
 *
 * Once per process: each app builds its own validator, with Ajv instances of its own, so a process running several
 * apps (a test file's servers, a server restarted in place, the conformance runner's tests) compiled every schema
 * again for each, a pass over every operation each time. A function Ajv compiled depends on the
 * instance's options (coercion, defaults, formats), on the schemas registered in it (the document's components), and
 * on the schema compiled; when all three are equal, another instance would compile the very same code. So a
 * compiled function is kept under the fingerprint of those three and given to any instance asking for it, under
 * any key: it runs synchronously and is read at once (`validate.errors`), so sharing it is safe. The key (operation,
 * status, media type) is left out: most of the contract's response schemas are the same `$ref` to the error
 * envelope, which each operation's first answer compiled again for each of its error statuses (what that cost a
 * conformance run: docs/performance.md, "The validator as one middleware").
 *
 * Both validators call the module's exported `useAjvCache` through its exports object, so the export is replaced
 * (once per process). The response checks it hands out remember the immutable bodies they accepted (`isResponseCheck`).
 */
export function compileWithoutDocument(): void {
  const exported = validatorUtilExports as unknown as { useAjvCache?: UseAjvCache };
  const original = exported.useAjvCache;
  if (typeof original !== 'function') {
    throw new Error('express-openapi-validator: no useAjvCache in dist/middlewares/util.js; follow its new version in server/speed/validator.ts');
  }
  if (original[COMPILES_ALONE]) return;
  const counts: SchemaCompilations = { alone: 0, withDocument: 0, reused: 0 };
  const compiledBy = new WeakMap<SchemaCompiler, Map<string, unknown>>();
  // The fingerprints of each Ajv instance's options and of each document (its `components` object), made once.
  const optionsPrints = new WeakMap<SchemaCompiler, string | undefined>();
  const documentPrints = new WeakMap<object, string | undefined>();
  const shared = new Map<string, unknown>();
  const sharingKey = (ajv: SchemaCompiler, schema: Record<string, unknown>, rest: object) => {
    const components = schema.components;
    if (components === null || typeof components !== 'object') return undefined;
    if (!optionsPrints.has(ajv)) optionsPrints.set(ajv, fingerprint((ajv as { opts?: unknown }).opts));
    if (!documentPrints.has(components)) documentPrints.set(components, fingerprint({ paths: schema.paths, components }));
    const parts = [optionsPrints.get(ajv), documentPrints.get(components), fingerprint(rest)];
    return parts.every((part) => part !== undefined) ? parts.join(' ') : undefined;
  };
  const replacement: UseAjvCache = function useAjvCache(ajv, schema, key) {
    if (!schema || typeof schema !== 'object' || !('paths' in schema || 'components' in schema)) {
      return original(ajv, schema, key);
    }
    let compiled = compiledBy.get(ajv);
    if (!compiled) {
      // Before its options are fingerprinted: every instance compiles without the pass, so equal options stay equal.
      withoutOptimizing(ajv);
      compiledBy.set(ajv, (compiled = new Map()));
    }
    const known = compiled.get(key);
    if (known) return known;
    const { paths: _paths, components: _components, ...rest } = schema;
    const sharedKey = sharingKey(ajv, schema, rest);
    let validate = sharedKey === undefined ? undefined : shared.get(sharedKey);
    if (validate !== undefined) {
      counts.reused++;
    } else {
      // A key that is a fragment: Ajv takes a schema's key for its base URI, and resolves `#/components/schemas/X`
      // against it; against a fragment it is `#/components/schemas/X` itself, the key of the registered schema.
      const alone = `#eov-${encodeURIComponent(key)}`;
      try {
        ajv.addSchema(rest, alone);
        validate = ajv.getSchema(alone);
        counts.alone++;
      } catch {
        ajv.removeSchema(alone);
        validate = original(ajv, schema, key);
        counts.withDocument++;
      }
      if (isResponseCheck(rest)) validate = rememberingAccepted(validate as never);
      if (sharedKey !== undefined) {
        shared.set(sharedKey, validate);
        if (shared.size > SHARED_LIMIT) shared.delete(shared.keys().next().value!);
      }
    }
    compiled.set(key, validate);
    return validate;
  };
  replacement[COMPILES_ALONE] = counts;
  exported.useAjvCache = replacement;
}

/**
 * Ajv's code generator runs an optimizing pass over each function it generates (`code.optimize`, one pass by
 * default: it folds constant conditions and drops unused names). The validator gives no way to set Ajv's options;
 * on its Ajv instances, the pass was a large share of the time of compiling an operation's schemas (the first request of
 * each operation; most of what a test file or a conformance run waits for), and the generated functions without it
 * validate as fast within the benchmark's noise. Ajv reads the option at each compile, so turning it off on the
 * instance applies to every schema compiled after.
 */
function withoutOptimizing(ajv: SchemaCompiler): void {
  const options = (ajv as { opts?: { code?: { optimize?: number | boolean } } }).opts;
  if (!options?.code || typeof options.code.optimize !== 'number') {
    throw new Error("Ajv: no opts.code.optimize on the validator's instance; follow its new version in server/speed/validator.ts");
  }
  options.code.optimize = 0;
}

/** How many schemas the validators of this process compiled alone, with the document, or reused (for tests). */
export function schemaCompilations(): SchemaCompilations {
  const counts = (validatorUtilExports as unknown as { useAjvCache?: UseAjvCache }).useAjvCache?.[COMPILES_ALONE];
  return { ...(counts ?? { alone: 0, withDocument: 0, reused: 0 }) };
}

/** The validator's per-request middlewares, built once its document is ready (the validator's own order). */
interface Ready {
  context: OpenApiContext;
  chain: RequestHandler[];
}

/**
 * `OpenApiValidator.middleware(options)` as one middleware: the validator's own middlewares (security, multipart,
 * request and response validation, built by the validator from its preprocessed document), run in its order, with
 * the route lookup of its metadata middleware done by a `RouteIndex` of `options.apiSpec` (an object, not a file
 * name, which the validator annotates: pass a copy). The validator's installation wraps each of its middlewares in
 * a promise of its document, resolved again on every request; here the document is awaited once, by the first
 * request (as the validator does), and later requests run the middlewares directly.
 */
export function openApiValidator(options: ValidatorOptions): RequestHandler[] {
  if (typeof options.apiSpec !== 'object') throw new Error('openApiValidator: apiSpec must be a document object');
  const index = new RouteIndex(options.apiSpec.paths as Record<string, object>);
  const validator = new Validator(options) as unknown as ValidatorInternals;
  if (typeof validator.metadataMiddleware !== 'function' || typeof validator.installPathParams !== 'function') {
    throw new Error(
      'express-openapi-validator no longer has the middleware factories server/http/validator.ts calls: ' +
        'follow its new version (or drop the wrapper, if the version caches its route lookup)',
    );
  }
  const settings = validator.options;
  const ignored = (path: string) =>
    typeof options.ignorePaths === 'function'
      ? Boolean(options.ignorePaths(path))
      : (options.ignorePaths?.test(path) ?? false);

  if (settings.validateApiSpec === false) skipUnusedSpecSchema();
  compileWithoutDocument();
  analyseParametersOnce();
  parseContentTypesOnce();
  chooseResponseContentOnce();
  // What installMiddleware of express-openapi-validator does once its document is loaded.
  const loader = new OpenApiSpecLoader({
    apiDoc: options.apiSpec as never,
    validateApiSpec: settings.validateApiSpec,
    $refParser: settings.$refParser,
  });
  if (settings.$refParser?.mode !== 'dereference' && bundled(options.apiSpec)) {
    const framework = (loader as unknown as { framework?: { loadSpec?: unknown } }).framework;
    if (typeof framework?.loadSpec !== 'function') {
      throw new Error('express-openapi-validator: OpenApiSpecLoader has no framework.loadSpec; follow its new version in server/speed/validator.ts');
    }
    framework.loadSpec = (document: unknown) => Promise.resolve(document);
  }
  const ready: Promise<Ready> = loader
    .load()
    .then((spec) => {
      const { apiDoc, apiDocRes } = schemaPreprocessor(
        spec.apiDoc,
        validator.ajvOpts.preprocessor,
        settings.validateResponses as never,
      ).preProcess();
      const context = new OpenApiContext(spec, settings.ignorePaths as never, settings.ignoreUndocumented, settings.useRequestUrl);
      const chain = [indexedLookup(validator.metadataMiddleware(context, apiDocRes))];
      if (settings.validateSecurity && apiDoc.components?.securitySchemes) chain.push(validator.securityMiddleware(apiDoc));
      if (settings.fileUploader) chain.push(validator.multipartMiddleware(apiDoc));
      if (settings.validateRequests) chain.push(validator.requestValidationMiddleware(apiDoc));
      if (settings.validateResponses) chain.push(validator.responseValidationMiddleware(apiDocRes, context.serial));
      return { context, chain };
    });
  let state: Ready | undefined;
  // The apps the middleware serves (several, one after the other: the test harness's reset, server.ts).
  const installed = new WeakSet<object>();
  const run = (ready: Ready, req: Request, res: Response, next: NextFunction) => {
    if (!installed.has(req.app)) {
      // The validator's path parameters for Express's own routes (its pathParamsMiddleware), on each app it serves.
      validator.installPathParams(req.app, ready.context);
      installed.add(req.app);
    }
    runChain(ready.chain, req, res, next);
  };
  ready.then((value) => (state = value)).catch(() => {});

  /** What the validator attached for each `METHOD template`, but for the path parameters. */
  function indexedLookup(lookup: RequestHandler): RequestHandler {
    const known = new Map<string, OpenApiMetadata>();
    return function metadataMiddleware(req: ValidatedRequest, res: Response, next: NextFunction) {
      const path = req.originalUrl.split('?')[0]!;
      const match = ignored(req.path) ? undefined : index.find(path);

      if (!match || !match.methods.has(req.method)) return lookup(req, res, next);
      const key = `${req.method} ${match.template}`;
      const metadata = known.get(key);
      if (!metadata) {
        return lookup(req, res, (error?: unknown) => {
          const attached = req.openapi;
          if (error === undefined && attached?.openApiRoute === match.template) {
            known.set(key, { ...attached, pathParams: undefined });
            req[PLACED] = key;
          }
          next(error);
        });
      }
      const pathParams: Record<string, string> = {};
      try {
        for (const { name, raw } of match.params) pathParams[name] = decodeURIComponent(raw);
      } catch {
        return lookup(req, res, next); // the validator answers 400 for a malformed escape
      }
      req.openapi = { ...metadata, pathParams };
      req.params = pathParams;
      req[PLACED] = key;
      next();
    };
  }

  const middleware = function openApiValidatorMiddleware(req: Request, res: Response, next: NextFunction) {
    if (state) return run(state, req, res, next);
    ready.then((value) => run(value, req, res, next), next);
  };
  return [middleware];
}
