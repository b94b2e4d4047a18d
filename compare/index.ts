// The comparison of two OpenAPI documents (3.0 or 3.1): a released one (base) and a later one (revision). Pure:
// documents in, findings out. Operations are matched by method and path, then by id; each pair is compared here (its
// place, id and deprecation) and in the modules beside (security, parameters, body, responses), every schema walked
// in the direction it travels. The rules of the comparison: breaking/README.md ("How documents are compared").
import { child, isObject, type JsonObject } from './pointer.ts';
import { type RuleId } from './rules.ts';
import { forget } from './schema.ts';
import { byPlace, emit, finish, type Context, type Finding } from './findings.ts';
import { operationsOf, type Operation } from './operations.ts';
import { compareSecurity, compareSecuritySchemes, securityContext, type SecurityContext } from './security.ts';
import { compareParameters } from './parameters.ts';
import { compareRequestBody } from './requests.ts';
import { compareResponses } from './responses.ts';
import { compareComponents, unchangedIn } from './components.ts';
import { heldRemovals } from './removals.ts';

export type { Finding, OperationRef } from './findings.ts';

export interface CompareOptions {
  /** Leave out findings of these rules. */
  ignoreRules?: readonly RuleId[];
  /**
   * Walk every schema, and every time it is reached: no schema is skipped as written alike, no comparison replayed.
   * The findings are the same, in several times the time (the tests check that they are).
   */
  walkEverything?: boolean;
  /**
   * The day of the comparison (`YYYY-MM-DD`): with it, each removal is held to the base's deprecation of what it
   * removes (compare/removals.ts). The gate and can-i-deploy give today.
   */
  today?: string;
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
  const findings = [...context.drafts.values()].map(finish);
  const held = options.today === undefined ? findings : heldRemovals(base, findings, options.today);
  return held.filter((finding) => !ignored.has(finding.rule)).sort(byPlace);
}

// ---- a matched pair of operations ------------------------------------------------------------------------------

/** Two matched operations: their place, id and deprecation, then their security, parameters, body and answers. */
function compareOperation(context: Context, security: SecurityContext, before: Operation, after: Operation): void {
  const operation = after.ref;
  const moved = before.key !== after.key;
  if (moved) {
    emit(context, {
      rule: 'operation-path-changed',
      path: after.pointer,
      document: 'revision',
      operation,
      detail: `${before.ref.method} ${before.ref.path} → ${after.ref.method} ${after.ref.path}`,
    });
  } else if (before.hasId && after.hasId && before.ref.operationId !== after.ref.operationId) {
    emit(context, {
      rule: 'operation-id-changed',
      path: child(after.pointer, 'operationId'),
      document: 'revision',
      operation,
      detail: `operation id \`${before.ref.operationId}\` renamed \`${after.ref.operationId}\` (the same request and answer)`,
      renamed: { from: before.ref.operationId, to: after.ref.operationId },
    });
  }
  const wasDeprecated = before.node.deprecated === true;
  const nowDeprecated = after.node.deprecated === true;
  if (nowDeprecated && !wasDeprecated) {
    emit(context, { rule: 'operation-deprecated', path: child(after.pointer, 'deprecated'), document: 'revision', operation, detail: 'deprecated' });
  } else if (wasDeprecated && !nowDeprecated) {
    emit(context, { rule: 'operation-undeprecated', path: after.pointer, document: 'revision', operation, detail: 'no longer deprecated' });
  }
  compareSecurity(context, security, before, after);
  compareParameters(context, before, after, moved);
  compareRequestBody(context, before, after);
  compareResponses(context, before, after);
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
