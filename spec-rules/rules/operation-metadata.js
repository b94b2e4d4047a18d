// @ts-check
// What every operation carries besides its route: an explicit operation id (the emitter runs with
// `operation-id-strategy: explicit-only`, so a forgotten one emits none), a doc comment (its description), a
// @summary (its title in the docs page and in tools) and an @opExample (what the docs page and the contract-served
// answers show).
/** @import { Operation, Program } from "@typespec/compiler" */
import { createRule, getDoc, getOpExamples, getSummary, paramMessage } from "@typespec/compiler";
import { getOperationId } from "@typespec/openapi";
import { httpOperations, operationName } from "../operations.js";

/**
 * A rule that every operation has something, reported on the operation.
 * @param {{ name: string, description: string, has: (program: Program, operation: Operation) => boolean, add: string }} rule
 *   `add` is what to write, the end of the message.
 */
function everyOperationHas({ name, description, has, add }) {
  return createRule({
    name,
    severity: "warning",
    description,
    messages: { default: paramMessage`Operation \`${"operation"}\` ${"missing"}` },
    create(context) {
      return {
        exit(program) {
          for (const { operation } of httpOperations(program)) {
            if (has(program, operation)) continue;
            context.reportDiagnostic({ target: operation, format: { operation: operationName(program, operation), missing: add } });
          }
        },
      };
    },
  });
}

export const operationIdRule = everyOperationHas({
  name: "operation-id",
  description: "Every operation names its id with @operationId.",
  has: (program, operation) => getOperationId(program, operation) !== undefined,
  add: 'has no operation id: add @operationId("verbNoun") (camelCase, unique; spec/README.md, "Operations").',
});

export const operationDocRule = everyOperationHas({
  name: "operation-doc",
  description: "Every operation has a doc comment, its description.",
  has: (program, operation) => Boolean(getDoc(program, operation)?.trim()),
  add: "has no doc comment: add /** … */ above it, saying what it does.",
});

export const operationSummaryRule = everyOperationHas({
  name: "operation-summary",
  description: "Every operation has a @summary, its title in the docs page and in tools.",
  has: (program, operation) => Boolean(getSummary(program, operation)?.trim()),
  add: 'has no summary: add @summary("…"), a short title without a final period.',
});

export const operationExampleRule = everyOperationHas({
  name: "operation-example",
  description: "Every operation has an @opExample: its parameters, its body where it takes one, and its success answer.",
  has: (program, operation) => getOpExamples(program, operation).length > 0,
  add: "has no example: add @opExample(#{ parameters: #{ … }, returnType: #{ … } }) with its parameters, its body where it takes one, and its success answer.",
});
