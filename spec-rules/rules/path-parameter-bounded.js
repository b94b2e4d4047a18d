// @ts-check
// Everything a client sends is bounded (spec/README.md, "Limits"): a path parameter by its @maxLength, or by a type
// that cannot be long: an enumeration or literal, a boolean, a fixed-width integer, a format of fixed length, or a
// pattern anchored at both ends that repeats nothing without bound.
/** @import { ModelProperty, Program, Scalar, Type } from "@typespec/compiler" */
import { createRule, getFormat, getMaxLength, getPattern, paramMessage } from "@typespec/compiler";
import { httpOperations, operationName } from "../operations.js";

/** Formats whose values have a length of their own: `uuid` 36 characters, `date` 10, `ipv4` at most 15. */
const BOUNDED_FORMATS = new Set(["uuid", "date", "ipv4"]);

/** Standard scalars whose text is bounded: booleans and fixed-width integers. */
const BOUNDED_SCALARS = new Set(["boolean", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "safeint"]);

/**
 * The scalars a type is made from: itself and the scalars it extends, nearest first.
 * @param {Type} type
 * @returns {Scalar[]}
 */
function scalarChain(type) {
  const chain = [];
  for (let scalar = type.kind === "Scalar" ? type : undefined; scalar; scalar = scalar.baseScalar) chain.push(scalar);
  return chain;
}

/**
 * Whether a pattern bounds the length of what matches it: anchored with `^…$`, no alternative escaping the anchors,
 * and no `*`, `+` or `{n,}` (outside character classes and escapes, which repeat nothing).
 * @param {string} pattern
 */
export function patternBounds(pattern) {
  if (!pattern.startsWith("^") || !pattern.endsWith("$")) return false;
  const bare = pattern.replace(/\[(?:\\.|[^\]\\])*\]|\\./g, "x");
  if (!bare.endsWith("$") || /[*+]|\{\d*,\}/.test(bare)) return false;
  let depth = 0;
  for (const character of bare) {
    if (character === "(") depth++;
    else if (character === ")") depth--;
    else if (character === "|" && depth === 0) return false;
  }
  return true;
}

/**
 * Whether the values of a type are bounded by the type itself.
 * @param {Program} program
 * @param {Type} type
 * @returns {boolean}
 */
function typeBounds(program, type) {
  switch (type.kind) {
    case "Enum":
    case "EnumMember":
    case "String":
    case "Number":
    case "Boolean":
      return true;
    case "Union":
      return [...type.variants.values()].every((variant) => typeBounds(program, variant.type));
    case "Scalar":
      return scalarChain(type).some((scalar) => {
        if (getMaxLength(program, scalar) !== undefined) return true;
        if (BOUNDED_SCALARS.has(scalar.name) && program.checker.isStdType(scalar)) return true;
        const format = getFormat(program, scalar);
        if (format !== undefined && BOUNDED_FORMATS.has(format)) return true;
        const pattern = getPattern(program, scalar);
        return pattern !== undefined && patternBounds(pattern);
      });
    default:
      return false;
  }
}

/**
 * Whether a path parameter is bounded, by its own decorators or by its type.
 * @param {Program} program
 * @param {ModelProperty} parameter
 */
function isBounded(program, parameter) {
  if (getMaxLength(program, parameter) !== undefined) return true;
  const format = getFormat(program, parameter);
  if (format !== undefined && BOUNDED_FORMATS.has(format)) return true;
  const pattern = getPattern(program, parameter);
  if (pattern !== undefined && patternBounds(pattern)) return true;
  return typeBounds(program, parameter.type);
}

/**
 * The declared property a parameter was copied from (a spread alias gives each operation a copy of its properties).
 * @param {ModelProperty} property
 */
function declared(property) {
  let source = property;
  while (source.sourceProperty) source = source.sourceProperty;
  return source;
}

export const pathParameterBoundedRule = createRule({
  name: "path-parameter-bounded",
  severity: "warning",
  description: "Every path parameter is bounded: @maxLength, or an enumeration, a fixed-length format or an anchored pattern without unbounded repetition.",
  messages: {
    default: paramMessage`Path parameter \`${"parameter"}\` (of \`${"operation"}\`) has no bound: add @maxLength(…) (limitId for an id), or give it an enumeration, a fixed-length format (uuid, date, ipv4) or a pattern anchored with ^…$ without *, + or {n,}.`,
  },
  create(context) {
    return {
      exit(program) {
        // A parameter declared once and spread into many operations is reported once, where it is declared.
        const reported = new Set();
        for (const httpOperation of httpOperations(program)) {
          for (const parameter of httpOperation.parameters.parameters) {
            if (parameter.type !== "path" || isBounded(program, parameter.param)) continue;
            const target = declared(parameter.param);
            if (reported.has(target)) continue;
            reported.add(target);
            context.reportDiagnostic({ target, format: { parameter: parameter.name, operation: operationName(program, httpOperation.operation) } });
          }
        }
      },
    };
  },
});
