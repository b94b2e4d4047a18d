// Lints generated/openapi.yaml with Redocly's linter as redocly.yaml configures it (the `recommended` ruleset), for
// `npm run check`. Every problem counts, warnings included, unless .redocly.lint-ignore.yaml (beside redocly.yaml,
// where Redocly reads it) ignores it with its reason; an entry there that matches no problem is stale.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getLineColLocation, lint, loadConfig, type NormalizedProblem } from '@redocly/openapi-core';

export interface LintReport {
  /** `severity [rule] file:line:col #/json/pointer: message`, for each problem not ignored. */
  problems: string[];
  /** The entries of the ignore file that match no problem: `[rule] file #/json/pointer`. */
  stale: string[];
  /** How many problems the ignore file ignores. */
  ignored: number;
}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Lints `<repo>/generated/openapi.yaml` with `<repo>/redocly.yaml` and the ignore file beside it. */
export async function lintOpenApi(repo = repoRoot): Promise<LintReport> {
  const config = await loadConfig({ configPath: path.join(repo, 'redocly.yaml') });
  const found = await lint({ ref: path.join(repo, 'generated/openapi.yaml'), config });
  const ignored = new Set(found.filter((problem) => problem.ignored).map((problem) => {
    const location = problem.location[0]!;
    return `${problem.ruleId} ${location.source.absoluteRef} ${location.pointer}`;
  }));
  const stale = Object.entries(config.ignore).flatMap(([file, rules]) =>
    Object.entries(rules).flatMap(([rule, pointers]) =>
      [...pointers].filter((pointer) => !ignored.has(`${rule} ${file} ${pointer}`)).map((pointer) => `[${rule}] ${path.relative(repo, file)} ${pointer}`),
    ),
  );
  return { problems: found.filter((problem) => !problem.ignored).map((problem) => describe(problem, repo)), stale, ignored: ignored.size };
}

/** `severity [rule] file:line:col #/json/pointer: message` */
function describe(problem: NormalizedProblem, repo: string): string {
  const location = problem.location[0];
  let where = '(no location)';
  if (location) {
    const { start } = getLineColLocation(location);
    const pointer = location.pointer ? ` ${location.pointer}` : '';
    where = `${path.relative(repo, location.source.absoluteRef)}:${start.line}:${start.col}${pointer}`;
  }
  return `${problem.severity} [${problem.ruleId}] ${where}: ${problem.message}`;
}
