// Lints an OpenAPI file with Redocly's built-in `recommended` ruleset (which includes the structural `spec` rules).
import path from 'node:path';
import { type Config, createConfig, getLineColLocation, lint, type NormalizedProblem } from '@redocly/openapi-core';

// Problems that mean the document is malformed; these fail even where a ruleset only warns.
const isStructural = (problem: NormalizedProblem) =>
  ['struct', 'no-unresolved-refs'].includes(problem.ruleId) || problem.ruleId.startsWith('spec-');

// The configuration as the text of a redocly.yaml, which createConfig also takes. Its object form is typed by
// RawUniversalConfig, built from Redocly's JSON schemas: checking that one call took tsc 3 s, a tenth of
// type-checking the whole project. Typed here as the text form alone, tsc never builds that type.
const REDOCLY_CONFIG = [
  'extends: [recommended]',
  'rules:',
  // Every operation carries a one-sentence description from its doc comment; a summary would repeat it.
  '  operation-summary: off',
].join('\n');
const configFromText = createConfig as unknown as (text: string) => Promise<Config>;

export type LintReport = { failures: string[]; warnings: string[] };

export async function lintOpenApi(file: string): Promise<LintReport> {
  const config = await configFromText(REDOCLY_CONFIG);
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
