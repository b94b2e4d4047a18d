// Lints an OpenAPI file with Redocly's built-in `recommended` ruleset (which includes the structural `spec` rules).
import path from 'node:path';
import { createConfig, getLineColLocation, lint, type NormalizedProblem } from '@redocly/openapi-core';

// Problems that mean the document is malformed; these fail even where a ruleset only warns.
const isStructural = (problem: NormalizedProblem) =>
  ['struct', 'no-unresolved-refs'].includes(problem.ruleId) || problem.ruleId.startsWith('spec-');

export type LintReport = { failures: string[]; warnings: string[] };

export async function lintOpenApi(file: string): Promise<LintReport> {
  const config = await createConfig({
    extends: ['recommended'],
    // Every operation carries a one-sentence description from its doc comment; a summary would repeat it.
    rules: { 'operation-summary': 'off' },
  });
  const problems = (await lint({ ref: file, config })).filter((problem) => !problem.ignored);
  const failures = problems.filter((problem) => problem.severity === 'error' || isStructural(problem));
  const warnings = problems.filter((problem) => !failures.includes(problem));
  return { failures: failures.map(describe), warnings: warnings.map(describe) };
}

/** `[rule] file:line:col #/json/pointer: message` */
function describe(problem: NormalizedProblem): string {
  const location = problem.location[0];
  let where = '(no location)';
  if (location) {
    const { start } = getLineColLocation(location);
    const file = path.relative(process.cwd(), location.source.absoluteRef);
    const pointer = location.pointer ? ` ${location.pointer}` : '';
    where = `${file}:${start.line}:${start.col}${pointer}`;
  }
  return `[${problem.ruleId}] ${where}: ${problem.message}`;
}
