// @ts-check
// deprecation: every deprecation says why (`#deprecated "<reason>"`), its sunset comes after its deprecation date, and
// its successor is an operation (or field) of the contract (spec/README.md, "Deprecations"); a successor deprecated itself
// is TypeSpec's own warning `deprecated`, as any reference to a deprecated declaration.
/** @import { ModelProperty, Operation, Program } from "@typespec/compiler" */
import { createRule, navigateProgram, paramMessage } from "@typespec/compiler";
import { getOperationId } from "@typespec/openapi";
import { deprecationOf, successorName } from "../deprecation.js";
import { httpOperations, operationName } from "../operations.js";

/**
 * How a message names a declaration: an operation by its id, a field as `Model.property`.
 * @param {Program} program
 * @param {Operation | ModelProperty} type
 */
const nameOf = (program, type) => (type.kind === "Operation" ? operationName(program, type) : successorName(program, type));

/**
 * Why the successor of `type` is not one, or undefined when it is: it must be of the same kind, in the contract
 * (an operation of the service with an id; a field of a named model).
 * @param {Program} program
 * @param {Operation | ModelProperty} type
 * @param {Operation | ModelProperty} successor
 */
function successorProblem(program, type, successor) {
  if (successor.kind !== type.kind) return `is ${successor.kind === "Operation" ? "an operation" : "a field"}, where a ${type.kind === "Operation" ? "deprecated operation is replaced by an operation" : "deprecated field is replaced by a field"}`;
  if (successor.kind === "Operation" && (!httpOperations(program).some((http) => http.operation === successor) || getOperationId(program, successor) === undefined))
    return "is not an operation of the contract's service with an @operationId";
  if (successor.kind === "ModelProperty" && !successor.model?.name) return "is not a field of a named model";
  return undefined;
}

export const deprecationRule = createRule({
  name: "deprecation",
  severity: "warning",
  description: "A deprecation says why (#deprecated \"<reason>\"), sunsets after its deprecation date, and names a successor that exists.",
  messages: {
    default: paramMessage`\`${"name"}\` is deprecated without a reason: write it in \`#deprecated "<reason>"\` (the API's users read it in their editor, on the wire and in the release notes).`,
    undeclared: paramMessage`\`${"name"}\` has a deprecation date, a sunset or a successor but is not deprecated: add \`#deprecated "<reason>"\`, or remove them.`,
    sunset: paramMessage`The sunset of \`${"name"}\` (${"sunset"}) is not after its deprecation date (${"since"}): a removal is announced before it may happen.`,
    successor: paramMessage`The successor of \`${"name"}\`, \`${"successor"}\`, ${"problem"}: name one its users can move to.`,
  },
  create(context) {
    return {
      exit(program) {
        /** @param {Operation | ModelProperty} type */
        const check = (type) => {
          // A copy (a spread alias, `is`, a template's use) is checked where it was declared.
          if (type.kind === "ModelProperty" && type.sourceProperty) return;
          const deprecation = deprecationOf(program, type);
          const name = nameOf(program, type);
          const dated = deprecation.since !== undefined || deprecation.sunset !== undefined || deprecation.successor !== undefined;
          if (deprecation.reason === undefined) {
            if (dated) context.reportDiagnostic({ target: type, messageId: "undeclared", format: { name } });
            return;
          }
          if (deprecation.reason.trim() === "") context.reportDiagnostic({ target: type, messageId: "default", format: { name } });
          if (deprecation.since && deprecation.sunset && deprecation.sunset <= deprecation.since)
            context.reportDiagnostic({ target: type, messageId: "sunset", format: { name, sunset: deprecation.sunset, since: deprecation.since } });
          const problem = deprecation.successor && successorProblem(program, type, deprecation.successor);
          if (deprecation.successor && problem)
            context.reportDiagnostic({ target: type, messageId: "successor", format: { name, successor: nameOf(program, deprecation.successor), problem } });
        };
        navigateProgram(program, { operation: check, modelProperty: check }, { includeTemplateDeclaration: false });
      },
    };
  },
});
