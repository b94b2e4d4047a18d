// @ts-check
// The errors every operation declares (spec/README.md, "Errors"), so that the client types them, the server's answers
// validate and the conformance runner expects them: common-errors (400 and 401 on every operation; 413 and 415 when it
// takes a body) and resource-errors (403 and 404 when a path parameter addresses a resource; one that names a value
// says so with `#suppress "docs-platform-spec-rules/resource-errors" "<why>"`).
/** @import { HttpOperation } from "@typespec/http" */
import { createRule, paramMessage } from "@typespec/compiler";
import { httpOperations, operationName } from "../operations.js";

/** The error models of common.tsp, by status, as the messages name them. */
const MODELS = /** @type {const} */ ({
  400: "BadRequestError",
  401: "UnauthorizedError",
  403: "ForbiddenError",
  404: "NotFoundError",
  413: "PayloadTooLargeError",
  415: "UnsupportedMediaTypeError",
});

/**
 * The statuses an operation declares, each by itself (a range or a default response declares none of them).
 * @param {HttpOperation} httpOperation
 */
function declaredStatuses(httpOperation) {
  return new Set(
    httpOperation.responses
      .map((response) => response.statusCodes)
      .filter(/** @returns {statusCodes is number} */ (statusCodes) => typeof statusCodes === "number"),
  );
}

/**
 * A rule that operations declare some error statuses.
 * @param {{ name: string, description: string, required: (httpOperation: HttpOperation) => (keyof typeof MODELS)[], why: string }} rule
 *   `required` gives the statuses an operation must declare; `why` ends the message (whose operations need them).
 */
function declaresErrors({ name, description, required, why }) {
  return createRule({
    name,
    severity: "warning",
    description,
    messages: { default: paramMessage`Operation \`${"operation"}\` does not declare ${"missing"}: add ${"models"} to its answers (${"why"}).` },
    create(context) {
      return {
        exit(program) {
          for (const httpOperation of httpOperations(program)) {
            const declared = declaredStatuses(httpOperation);
            const missing = required(httpOperation).filter((status) => !declared.has(status));
            if (missing.length === 0) continue;
            context.reportDiagnostic({
              target: httpOperation.operation,
              format: {
                operation: operationName(program, httpOperation.operation),
                missing: missing.join(" and "),
                models: missing.map((status) => MODELS[status]).join(" | "),
                why,
              },
            });
          }
        },
      };
    },
  });
}

export const commonErrorsRule = declaresErrors({
  name: "common-errors",
  description: "Every operation declares 400 and 401, and 413 and 415 when it takes a body.",
  required: (httpOperation) => (httpOperation.parameters.body ? [400, 401, 413, 415] : [400, 401]),
  why: "every operation answers 400 and 401, and one taking a body 413 and 415 (BodyErrors)",
});

export const resourceErrorsRule = declaresErrors({
  name: "resource-errors",
  description: "Every operation with a path parameter (it addresses a resource) declares 403 and 404.",
  required: (httpOperation) => (httpOperation.parameters.parameters.some((parameter) => parameter.type === "path") ? [403, 404] : []),
  why: "it addresses a resource by its path (ResourceErrors)",
});
