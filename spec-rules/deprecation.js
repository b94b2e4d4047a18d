// @ts-check
// Deprecations: the reason is TypeSpec's `#deprecated`, the dates and the successor the library's decorators
// (lib/main.tsp). Each deprecated operation, parameter and field is emitted with `x-deprecation: { reason, since?,
// successor? }` and `x-sunset` (spec/README.md, "Deprecations"); the compile's own emitter (emit.js) adds the description's paragraph.
/** @import { DecoratorContext, ModelProperty, Operation, Program, Type } from "@typespec/compiler" */
import { getDeprecationDetails, navigateProgram } from "@typespec/compiler";
import { getOperationId, setExtension } from "@typespec/openapi";
import { $lib } from "./lib.js";

/** @typedef {Operation | ModelProperty} Deprecatable */

/**
 * A date as the decorators take it: `YYYY-MM-DD`, a day of the calendar.
 * @param {string} date
 */
export function isDate(date) {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return false;
  const parsed = new Date(`${date}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === date;
}

/**
 * @param {symbol} key
 * @returns {(context: DecoratorContext, target: Deprecatable, date: string) => void}
 */
const dateDecorator = (key) => (context, target, date) => {
  if (!isDate(date)) {
    context.program.reportDiagnostic($lib.createDiagnostic({ code: "invalid-date", target: context.getArgumentTarget(0) ?? target, format: { date } }));
    return;
  }
  context.program.stateMap(key).set(target, date);
};

export const $decorators = {
  DocsPlatform: {
    deprecatedSince: dateDecorator($lib.stateKeys.deprecatedSince),
    sunset: dateDecorator($lib.stateKeys.sunset),
    /** @type {(context: DecoratorContext, target: Deprecatable, successor: Deprecatable) => void} */
    successor: (context, target, successor) => {
      context.program.stateMap($lib.stateKeys.successor).set(target, successor);
    },
  },
};

/**
 * The declarations a type was copied from, itself first (a spread alias, `is` or a template gives each use a copy).
 * @param {Type} type
 */
function sources(type) {
  const chain = [type];
  for (let source = type.kind === "ModelProperty" ? type.sourceProperty : undefined; source; source = source.sourceProperty) chain.push(source);
  return chain;
}

/**
 * The library's state of a declaration under `key`, from itself or what it was copied from.
 * @param {Program} program
 * @param {symbol} key
 * @param {Type} type
 */
const stateOf = (program, key, type) => sources(type).map((source) => program.stateMap(key).get(source)).find((value) => value !== undefined);

/**
 * @typedef {object} Deprecation
 * @property {string | undefined} reason  `#deprecated`'s message; undefined when not deprecated
 * @property {string} [since]
 * @property {string} [sunset]
 * @property {Deprecatable} [successor]
 */

/**
 * A declaration's deprecation: its reason, dates and successor, as written at it (or at what it was copied from).
 * @param {Program} program
 * @param {Type} type
 * @returns {Deprecation}
 */
export function deprecationOf(program, type) {
  const details = sources(type)
    .map((source) => getDeprecationDetails(program, source) ?? (source.node ? getDeprecationDetails(program, source.node) : undefined))
    .find(Boolean);
  return {
    reason: details?.message,
    since: stateOf(program, $lib.stateKeys.deprecatedSince, type),
    sunset: stateOf(program, $lib.stateKeys.sunset, type),
    successor: stateOf(program, $lib.stateKeys.successor, type),
  };
}

/**
 * How the document names a successor: an operation by its operationId, a field as `Model.property`.
 * @param {Program} program
 * @param {Deprecatable} successor
 */
export function successorName(program, successor) {
  if (successor.kind === "Operation") return getOperationId(program, successor) ?? successor.name;
  return successor.model?.name ? `${successor.model.name}.${successor.name}` : successor.name;
}

/**
 * Every deprecated operation and property of the program gets its `x-deprecation` (and `x-sunset` when dated), which
 * @typespec/openapi3 writes beside its `deprecated: true`.
 * @param {Program} program
 */
export function $onValidate(program) {
  /** @param {Deprecatable} type */
  const mark = (type) => {
    const deprecation = deprecationOf(program, type);
    if (deprecation.reason === undefined) return;
    /** @type {Record<string, string>} */
    const extension = { reason: deprecation.reason };
    if (deprecation.since) extension.since = deprecation.since;
    if (deprecation.successor) extension.successor = successorName(program, deprecation.successor);
    setExtension(program, type, "x-deprecation", extension);
    if (deprecation.sunset) setExtension(program, type, "x-sunset", deprecation.sunset);
  };
  navigateProgram(program, { operation: mark, modelProperty: mark }, { includeTemplateDeclaration: false });
}
