// @ts-check
// Lists are paged one way, which the client's `paginate`, the server's list handling and the conformance runner rely
// on: an operation answering a page of a list (`List<T>` of common.tsp, or a model that `is` or extends it) takes the
// paging query parameters `page` and `limit` (`...PagingParameters`), and an operation taking `limit` answers such a
// page. `page` alone may name something else (a page of content: a PDF of one page), so it does not make a list.
/** @import { Model, Type } from "@typespec/compiler" */
/** @import { HttpOperation } from "@typespec/http" */
import { createRule, isTemplateInstance, paramMessage } from "@typespec/compiler";
import { httpOperations, isSuccess, operationName } from "../operations.js";

/** The list envelope: the template `List<Item>`, which instances keep the name of. */
const ENVELOPE = "List";

/** The paging query parameters, as `PagingParameters` declares them. */
const PAGING = ["page", "limit"];

/**
 * Whether a type is a page of a list: an instance of `List<…>`, or a model made from one with `is` or `extends`.
 * @param {Type} type
 */
function isListPage(type) {
  for (let model = type.kind === "Model" ? type : undefined; model; model = model.sourceModel ?? model.baseModel) {
    if (model.name === ENVELOPE && isTemplateInstance(model)) return true;
  }
  return false;
}

/**
 * The names of the bodies of an operation's success answers that are pages of a list.
 * @param {HttpOperation} httpOperation
 * @returns {string[]}
 */
function listPages(httpOperation) {
  return httpOperation.responses
    .filter((response) => isSuccess(response.statusCodes))
    .flatMap((response) => response.responses.map((content) => content.body?.type))
    .filter((type) => type !== undefined && isListPage(type))
    .map((type) => /** @type {Model} */ (type).name);
}

export const listPagingRule = createRule({
  name: "list-paging",
  severity: "warning",
  description: "An operation answering a page of a list (List<T>) takes the query parameters page and limit, and one taking limit answers such a page.",
  messages: {
    parameters: paramMessage`Operation \`${"operation"}\` answers a page of a list (\`${"page"}\`) but has no ${"missing"} query parameter: spread ...PagingParameters into its parameters.`,
    envelope: paramMessage`Operation \`${"operation"}\` takes the paging parameter \`limit\` but does not answer a page of a list: answer List<T> (or a model that \`is List<T>\`), or drop \`limit\`.`,
  },
  create(context) {
    return {
      exit(program) {
        for (const httpOperation of httpOperations(program)) {
          const query = new Set(httpOperation.parameters.parameters.filter((parameter) => parameter.type === "query").map((parameter) => parameter.name));
          const missing = PAGING.filter((parameter) => !query.has(parameter));
          const pages = listPages(httpOperation);
          const name = operationName(program, httpOperation.operation);
          if (pages.length > 0 && missing.length > 0) {
            const names = missing.map((parameter) => `\`${parameter}\``).join(" or ");
            context.reportDiagnostic({ messageId: "parameters", target: httpOperation.operation, format: { operation: name, page: pages[0], missing: names } });
          } else if (pages.length === 0 && query.has("limit")) {
            context.reportDiagnostic({ messageId: "envelope", target: httpOperation.operation, format: { operation: name } });
          }
        }
      },
    };
  },
});
