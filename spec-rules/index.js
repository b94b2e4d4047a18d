// @ts-check
// The contract's rules, as a TypeSpec linter library: tspconfig.yaml enables them (`linter:`), so every compile of
// spec/ (`npm run generate`, `npm run dev`, `npm run check`, `tsp compile`, the editor's language server) reports a
// broken one at its TypeSpec line. spec/README.md ("Rules") lists them; its decorators (lib/main.tsp) are in "Deprecations".
import { defineLinter } from "@typespec/compiler";
import { breakingChangeRule } from "./rules/breaking-change.js";
import { deprecationRule } from "./rules/deprecation.js";

/** The document a compiled program emits, as the breaking-change rule makes it (scripts/compile-current.ts uses it). */
export { emittedDocument } from "./rules/breaking-change.js";
import { commonErrorsRule, resourceErrorsRule } from "./rules/errors.js";
import { listPagingRule } from "./rules/list-paging.js";
import { operationDocRule, operationExampleRule, operationIdRule, operationSummaryRule } from "./rules/operation-metadata.js";
import { pathParameterBoundedRule } from "./rules/path-parameter-bounded.js";

export { $lib } from "./lib.js";
export { $decorators, $onValidate } from "./deprecation.js";
/** The library is the compile's second emitter too (tspconfig.yaml's `emit`): it finishes the OpenAPI document. */
export { $onEmit } from "./emit.js";

// Without a ruleset of its own, the library gets `all`, every rule, which tspconfig.yaml extends.
export const $linter = defineLinter({
  rules: [
    operationIdRule,
    operationDocRule,
    operationSummaryRule,
    operationExampleRule,
    listPagingRule,
    pathParameterBoundedRule,
    commonErrorsRule,
    resourceErrorsRule,
    deprecationRule,
    breakingChangeRule,
  ],
});
