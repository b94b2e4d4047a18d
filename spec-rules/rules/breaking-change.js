// @ts-check
// breaking-change: the document this compile would emit, judged against the last release as `check:breaking` judges
// it; each failing finding reported at the declaration it comes from with the consumers it breaks (the `consumers`
// option), accepted ones as information (trace lines; spec/README.md, "Rules").
/** @import { DiagnosticTarget, Program } from "@typespec/compiler" */
import { createRule, getSourceLocation, NoTarget, paramMessage } from "@typespec/compiler";
import { getOpenAPI3 } from "@typespec/openapi3";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { originOf } from "../origins.js";

/** @typedef {import("../../breaking/live.ts").LiveFinding} LiveFinding */
/** @typedef {typeof import("../../breaking/live.ts")} Live */

/** Where the information lines go: the library's trace area, which tspconfig.yaml's `trace` turns on. */
export const INFO_AREA = "breaking-change";

/** @type {Promise<Live> | undefined} */
let loading;

/**
 * The gate's code (compare/, breaking/, conformance/'s judgement), compiled once by esbuild (breaking/bundle.mjs) so
 * that the compiler, the CLI and the language server load it without a TypeScript loader; built again when a source
 * of it changed.
 * @returns {Promise<Live>}
 */
async function live() {
  loading ??= (async () => {
    const { ensureBundle } = await import("../../breaking/bundle.mjs");
    return /** @type {Live} */ (await import(pathToFileURL(await ensureBundle("live")).href));
  })();
  try {
    return await loading;
  } catch (error) {
    loading = undefined;
    throw error;
  }
}

/**
 * The emitted document, as @typespec/openapi3 makes it from the program in memory with the options tspconfig.yaml
 * gives the emitter (those that shape the document).
 * @param {Program} program
 */
export async function emittedDocument(program) {
  const configured = { ...program.compilerOptions.options?.["@typespec/openapi3"] };
  for (const option of ["emitter-output-dir", "output-file", "file-type", "new-line"]) delete configured[option];
  const records = await getOpenAPI3(program, { ...configured, "openapi-versions": ["3.1.0"] });
  const record = records.find((each) => !each.versioned);
  // As the document's file reads back: plain JSON values only.
  return record && !record.versioned ? JSON.parse(JSON.stringify(record.document)) : undefined;
}

/**
 * A finding in one sentence: the gate's words, the consumers it breaks or warns as the gate says it (the first few,
 * and how many more), who it breaks and what to do.
 * @param {LiveFinding} entry
 */
export function sentence(entry) {
  return `${entry.text}.${entry.consumersText ? ` ${entry.consumersText}` : ""} ${entry.consequence}`;
}

/** `file:line` of a target, relative to the project (for the information lines, which carry no location of their own). */
const lineOf = (/** @type {Program} */ program, /** @type {DiagnosticTarget} */ target) => {
  const location = getSourceLocation(target, { locateId: true });
  if (!location) return "";
  const line = location.file.getLineAndCharacterOfPosition(location.pos).line + 1;
  return `${path.relative(program.projectRoot, location.file.path)}:${line}: `;
};

export const breakingChangeRule = createRule({
  name: "breaking-change",
  severity: "warning",
  async: true,
  description: "The contract does not break what the last release promised, unless spec/breaking-changes.yaml declares it: each break reported where it was made, with the consumers it breaks.",
  messages: {
    default: paramMessage`${"finding"} Undo it, or declare it in spec/breaking-changes.yaml with its reason (npm run check:breaking prints the entry).`,
    problem: paramMessage`The comparison with the last release cannot run: ${"problem"}.`,
    consumer: paramMessage`A consumer's record shows a break no finding accounts for: ${"line"}.`,
  },
  optionSchema: {
    type: "object",
    properties: { consumers: { type: "array", items: { type: "string" }, description: "Consumers' usage records: folders, files or http(s) URLs, relative to the project." } },
    additionalProperties: false,
  },
  defaultOptions: { consumers: [] },
  create(context) {
    return {
      async exit(program) {
        if (program.hasError()) return;
        const gate = await live();
        if (!gate.hasRelease(program.projectRoot)) return;
        const document = await emittedDocument(program);
        if (!document) return;
        const consumers = /** @type {string[]} */ (/** @type {unknown} */ (context.options.consumers ?? []));
        const checked = await gate.checkAgainstRelease(program.projectRoot, document, consumers);
        for (const problem of checked.problems) context.reportDiagnostic({ target: NoTarget, messageId: "problem", format: { problem } });
        for (const line of checked.consumerBreaks) context.reportDiagnostic({ target: NoTarget, messageId: "consumer", format: { line } });
        const tracer = program.tracer.sub("docs-platform-spec-rules");
        const reported = new Set();
        for (const entry of checked.findings) {
          const target = originOf(program, document, entry.finding);
          const finding = sentence(entry);
          if (reported.has(`${finding}\0${lineOf(program, target)}`)) continue;
          reported.add(`${finding}\0${lineOf(program, target)}`);
          if (entry.outcome === "fails") context.reportDiagnostic({ target, messageId: "default", format: { finding } });
          else tracer.trace(INFO_AREA, `${lineOf(program, target)}${finding}`);
        }
      },
    };
  },
});
