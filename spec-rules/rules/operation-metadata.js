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
 * @param {{ name: string, description: string, has: (program: Program, operation: Operation) => boolean | string, add: string }} rule
 *   `add` is what to write, the end of the message; `has` may give another end instead of false.
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
            const found = has(program, operation);
            if (found === true) continue;
            context.reportDiagnostic({ target: operation, format: { operation: operationName(program, operation), missing: found || add } });
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
  // An example's answer (`returnType`) is not asked for here: an example is written request first, and its answer
  // written from the server's (test/api/examples.test.ts, EXAMPLES_UPDATE) needs the request compiled;
  // test/contract/examples.test.ts fails on an operation whose emitted example has no answer.
  description: "Every operation has an @opExample: its parameters, its body where it takes one, and its success answer.",
  has: (program, operation) => {
    const examples = getOpExamples(program, operation);
    if (examples.length === 0) return false;
    const required = [...operation.parameters.properties.values()].some((parameter) => !parameter.optional);
    if (required && examples.some((example) => example.parameters === undefined)) {
      return "has an example without its request: add parameters: #{ … } (its parameters, and its body under the body parameter's name) to each @opExample.";
    }
    return true;
  },
  add: "has no example: add @opExample(#{ parameters: #{ … }, returnType: #{ … } }) with its parameters, its body where it takes one, and its success answer.",
});
