// The comparison of two OpenAPI documents (3.0 or 3.1): a released one (base) and a later one (revision). Pure:
// documents in, findings out. Operations are matched by method and path (parameter names aside), then by operation
// id; each matched pair is compared (security, parameters, body, responses), and every schema it reaches is walked in
// the direction it travels (request or response), `$ref`s followed, recursion cut, so a change in a shared component
// is found once and reported with every operation it affects. Components removed while one of the same shape is
// added are renames.
import { isObject, type JsonObject } from './pointer.ts';
import { type RuleId } from './rules.ts';
import { forget } from './schema.ts';
import { byPlace, emit, finish, type Context, type Finding } from './compare/findings.ts';
import { compareOperation, operationsOf, type Operation } from './compare/operations.ts';
import { compareComponents, unchangedIn } from './compare/components.ts';
import { compareSecuritySchemes, securityContext } from './compare/security.ts';

export type { Finding, OperationRef } from './compare/findings.ts';

export interface CompareOptions {
  /** Leave out findings of these rules. */
  ignoreRules?: readonly RuleId[];
  /**
   * Walk every schema, and every time it is reached: no schema is skipped as written alike, no comparison replayed.
   * The findings are the same, in several times the time (the tests check that they are).
   */
  walkEverything?: boolean;
}

/** Every difference between `base` and `revision` that the rules know, sorted by severity then place. */
export function compareDocuments(base: unknown, revision: unknown, options: CompareOptions = {}): Finding[] {
  if (!isObject(base) || !isObject(revision)) throw new TypeError('compareDocuments: both documents must be objects');
  // Normalised schemas are remembered per document during one comparison only: a caller may change a document
  // between two comparisons.
  forget(base);
  forget(revision);
  try {
    return compare(base, revision, options);
  } finally {
    forget(base);
    forget(revision);
  }
}

function compare(base: JsonObject, revision: JsonObject, options: CompareOptions): Finding[] {
  const walkEverything = options.walkEverything === true;
  const context: Context = {
    base,
    revision,
    drafts: new Map(),
    walks: new Map(),
    unchanged: walkEverything ? () => false : unchangedIn(base, revision),
    memo: new Map(),
    remember: !walkEverything,
  };

  const baseOperations = operationsOf(base);
  const revisionOperations = operationsOf(revision);
  const revisionByKey = new Map(revisionOperations.map((operation) => [operation.key, operation]));
  const revisionById = new Map(
    revisionOperations.filter((operation) => operation.hasId).map((operation) => [operation.ref.operationId, operation]),
  );
  const used = new Set<Operation>();
  const pairs: [Operation, Operation][] = [];
  const unmatched: Operation[] = [];
  for (const operation of baseOperations) {
    const match = revisionByKey.get(operation.key);
    if (match && !used.has(match)) {
      used.add(match);
      pairs.push([operation, match]);
    } else unmatched.push(operation);
  }
  for (const operation of unmatched) {
    const match = operation.hasId ? revisionById.get(operation.ref.operationId) : undefined;
    if (match && !used.has(match)) {
      used.add(match);
      pairs.push([operation, match]);
    } else {
      emit(context, {
        rule: 'operation-removed',
        path: operation.pointer,
        document: 'base',
        operation: operation.ref,
        detail: `${operation.ref.method} ${operation.ref.path} removed`,
      });
    }
  }
  for (const operation of revisionOperations) {
    if (used.has(operation)) continue;
    emit(context, {
      rule: 'operation-added',
      path: operation.pointer,
      document: 'revision',
      operation: operation.ref,
      detail: `new operation ${operation.ref.method} ${operation.ref.path}`,
    });
  }
  const security = securityContext(context);
  for (const [before, after] of pairs) compareOperation(context, security, before, after);
  compareSecuritySchemes(context, security, revisionOperations);
  compareComponents(context, baseOperations, revisionOperations);
  compareDialect(context);

  const ignored = new Set(options.ignoreRules ?? []);
  return [...context.drafts.values()].filter((draft) => !ignored.has(draft.rule)).map(finish).sort(byPlace);
}

// ---- the document's schema dialect -----------------------------------------------------------------------------

/** OpenAPI 3.1's base dialect (JSON Schema 2020-12 and OpenAPI's vocabulary): a document's when it declares none. */
export const DEFAULT_DIALECT = 'https://spec.openapis.org/oas/3.1/dialect/base';

/**
 * `jsonSchemaDialect`, the dialect every schema of the document is read in. One that declares none is read in the
 * default one (a 3.0 document too: the comparison reads it as the values it accepts, as 3.1's would be read).
 */
function compareDialect(context: Context): void {
  const declared = (document: JsonObject) => (typeof document.jsonSchemaDialect === 'string' ? document.jsonSchemaDialect : undefined);
  const was = declared(context.base);
  const now = declared(context.revision);
  const path = '#/jsonSchemaDialect';
  const shown = (dialect: string | undefined) => (dialect === undefined ? `${DEFAULT_DIALECT} (undeclared: the default)` : dialect);
  if ((was ?? DEFAULT_DIALECT) !== (now ?? DEFAULT_DIALECT)) {
    emit(context, { rule: 'schema-dialect-changed', path, document: now === undefined ? 'base' : 'revision', detail: `jsonSchemaDialect ${shown(was)} → ${shown(now)}` });
  } else if (was === undefined && now !== undefined) {
    emit(context, { rule: 'schema-dialect-declared', path, document: 'revision', detail: `jsonSchemaDialect ${now} declared (the dialect the schemas were read in)` });
  } else if (was !== undefined && now === undefined) {
    emit(context, { rule: 'schema-dialect-undeclared', path, document: 'base', detail: `jsonSchemaDialect ${was} no longer declared (still the default)` });
  }
}
