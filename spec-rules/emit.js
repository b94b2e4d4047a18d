// @ts-check
// The library as an emitter, listed in tspconfig.yaml's `emit` after @typespec/openapi3 (the compiler runs emitters in
// the order listed): it finishes the document that emitter wrote (document.js), so that `tsp compile`, `npm run
// generate` and `npm run dev` write the same generated/openapi.yaml. No emitter option may add to another's output.
/** @import { EmitContext } from "@typespec/compiler" */
import { emitFile, resolvePath } from "@typespec/compiler";
import { finishDocument } from "./document.js";

const OPENAPI_EMITTER = "@typespec/openapi3";

/**
 * Rewrites the OpenAPI emitter's document where that emitter wrote it: its `emitter-output-dir` and `output-file` as
 * the compile resolved them (tspconfig.yaml's, or a caller's override); nothing when it emitted none (not listed in
 * `emit`, or a compile with errors, which emits nothing).
 * @param {EmitContext} context
 */
export async function $onEmit(context) {
  const { program } = context;
  const options = /** @type {Record<string, unknown>} */ (program.compilerOptions.options?.[OPENAPI_EMITTER] ?? {});
  const dir = typeof options["emitter-output-dir"] === "string" ? options["emitter-output-dir"] : resolvePath(program.compilerOptions.outputDir ?? "tsp-output", OPENAPI_EMITTER);
  const file = resolvePath(dir, typeof options["output-file"] === "string" ? options["output-file"] : "openapi.yaml");
  let emitted;
  try {
    emitted = (await program.host.readFile(file)).text;
  } catch {
    return;
  }
  const finished = finishDocument(emitted);
  if (finished !== emitted) await emitFile(program, { path: file, content: finished });
}
