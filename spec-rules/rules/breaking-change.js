// @ts-check
// breaking-change: the document this compile would emit, judged against the last release as `check:breaking` judges
// it; each failing change reported once at the declaration it comes from with the consumers it breaks (the `consumers`
// option), the declared ones as one information line with their count (trace lines; spec/README.md, "Rules"), and
// each deprecation still in use.
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

/** The information area of the deprecations still in use (tspconfig.yaml's `trace`). */
export const DEPRECATION_AREA = "deprecation";

/**
 * One information line per deprecated operation, parameter or field that a known consumer (the rule's `consumers`)
 * still uses, at its declaration: `spec/main.tsp:53: `readTeam` is deprecated and still used: warns reader-app 1.0.0:
 * calls it (1 calls) (readTeam)`. A trace, never a diagnostic: a deprecation in use is what a deprecation
 * is for, and `warn-as-error` would fail the compile on a warning.
 * @param {Program} program
 * @param {Record<string, unknown>} document
 * @param {string[]} consumers
 * @param {Live} gate
 */
async function traceDeprecatedUses(program, document, consumers, gate) {
  if (consumers.length === 0) return;
  const { uses, problems } = await gate.deprecatedUses(program.projectRoot, document, consumers);
  const tracer = program.tracer.sub("docs-platform-spec-rules");
  for (const problem of problems) tracer.trace(DEPRECATION_AREA, problem);
  for (const use of uses) {
    const named = use.finding.fields.length > 0 ? use.finding.fields : use.finding.operations.map((operation) => operation.operationId);
    const what = named.map((name) => `\`${name}\``).join(", ");
    tracer.trace(DEPRECATION_AREA, `${lineOf(program, originOf(program, document, use.finding))}${what} is deprecated and still used. ${use.consumersText}`);
  }
}

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
        const consumers = /** @type {string[]} */ (/** @type {unknown} */ (context.options.consumers ?? []));
        const released = gate.hasRelease(program.projectRoot);
        if (!released && consumers.length === 0) return;
        const document = await emittedDocument(program);
        if (!document) return;
        await traceDeprecatedUses(program, document, consumers, gate);
        if (!released) return;
        const checked = await gate.checkAgainstRelease(program.projectRoot, document, consumers);
        for (const problem of checked.problems) context.reportDiagnostic({ target: NoTarget, messageId: "problem", format: { problem } });
        for (const line of checked.consumerBreaks) context.reportDiagnostic({ target: NoTarget, messageId: "consumer", format: { line } });
        // Loud where it matters, quiet on what was decided: each failing change once (an error), then the warnings that
        // touch a known consumer, then the declared breaks as one line with their count (trace lines).
        const report = gate.liveReport(checked);
        const tracer = program.tracer.sub("docs-platform-spec-rules");
        const reported = new Set();
        const once = (/** @type {LiveFinding} */ entry, /** @type {(target: DiagnosticTarget, finding: string) => void} */ say) => {
          const target = originOf(program, document, entry.finding);
          const finding = sentence(entry);
          if (reported.has(`${finding}\0${lineOf(program, target)}`)) return;
          reported.add(`${finding}\0${lineOf(program, target)}`);
          say(target, finding);
        };
        for (const entry of report.failing) once(entry, (target, finding) => context.reportDiagnostic({ target, messageId: "default", format: { finding } }));
        for (const entry of report.warnings) once(entry, (target, finding) => tracer.trace(INFO_AREA, `${lineOf(program, target)}${finding}`));
        for (const line of report.decided) tracer.trace(INFO_AREA, line);
      },
    };
  },
});
