// Contract coverage of a consumer's suite, across its test files and workers: while it is on, every server the harness
// starts records the declared responses it answered in a file of its own (http/coverage-recorder.ts);
// `reportCoverage()` merges them into `coverage.json` and `coverage.md` and prints one line; `startCoverage()` turns it
// on for the run (server/docs/harness.md, "Contract coverage").
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Coverage, coverageLine, coverageMarkdown, coverageSummary, type CoverageSummary, mergeCoverage, responsesPercent } from '../../conformance/contract/coverage-format.ts';

import { COVERAGE_VARIABLE, coverageFolder, DEFAULT_COVERAGE_FOLDER, recordsFolder } from '../start/harness-protocol.ts';

export type { Coverage, CoverageSummary, OperationCoverage } from '../../conformance/contract/coverage-format.ts';

/** The lowest share of declared responses seen, in percent, below which `reportCoverage()` fails. */
export const COVERAGE_THRESHOLD_VARIABLE = 'DOCS_SERVER_COVERAGE_THRESHOLD';

export interface CoverageOptions {
  /** The coverage folder: DOCS_SERVER_COVERAGE's, or `docs-platform-coverage` in the working directory. */
  folder?: string;
}

/**
 * Turns coverage on for the servers this process and the workers it starts afterwards start (it sets
 * DOCS_SERVER_COVERAGE), and removes the records a run that did not report left behind. Returns the folder.
 */
export function startCoverage(options: CoverageOptions = {}): string {
  const folder = options.folder ? path.resolve(options.folder) : (coverageFolder() ?? path.resolve(DEFAULT_COVERAGE_FOLDER));
  rmSync(recordsFolder(folder), { recursive: true, force: true });
  process.env[COVERAGE_VARIABLE] = folder;
  return folder;
}

export interface CoverageReport extends CoverageSummary {
  /** The merged coverage, as written to coverage.json. */
  coverage: Coverage;
  /** The line printed. */
  line: string;
}

/**
 * Merges the records of the servers that ran into `coverage.json` and `coverage.md` in the coverage folder, removes
 * them, prints one line (`log`, console.log by default) and returns the summary. Throws, after printing, when the share
 * of declared responses seen is below the threshold (`threshold`, or DOCS_SERVER_COVERAGE_THRESHOLD).
 */
export function reportCoverage(options: CoverageOptions & { threshold?: number; log?: (line: string) => void } = {}): CoverageReport {
  const folder = options.folder ? path.resolve(options.folder) : (coverageFolder() ?? path.resolve(DEFAULT_COVERAGE_FOLDER));
  const threshold = options.threshold ?? thresholdOf(process.env[COVERAGE_THRESHOLD_VARIABLE]);
  const records = recordsFolder(folder);
  let files: string[] = [];
  try {
    files = readdirSync(records).filter((file) => file.endsWith('.json'));
  } catch {
    // no server recorded anything
  }
  const coverage = mergeCoverage(...files.map((file) => JSON.parse(readFileSync(path.join(records, file), 'utf8')) as Coverage));
  const summary = coverageSummary(coverage);
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, 'coverage.json'), `${JSON.stringify({ ...summary, ...coverage }, null, 2)}\n`);
  writeFileSync(path.join(folder, 'coverage.md'), coverageMarkdown(coverage));
  rmSync(records, { recursive: true, force: true });
  const where = path.relative(process.cwd(), path.join(folder, 'coverage.md')) || 'coverage.md';
  const line =
    files.length === 0
      ? `docs-platform-server coverage: no server recorded an answer (was coverage on when they started?): ${where}`
      : `docs-platform-server coverage: ${coverageLine(coverage)}: ${where}`;
  // A run that started no server (one test file of a suite, say) has nothing to report: said only when a threshold
  // makes it fail.
  if (files.length > 0 || threshold !== undefined) (options.log ?? console.log)(line);
  const percent = responsesPercent(summary);
  if (threshold !== undefined && (files.length === 0 || percent < threshold)) {
    throw new Error(`docs-platform-server coverage: ${percent.toFixed(1)} % of the declared responses seen, below the threshold of ${threshold} %`);
  }
  return { ...summary, coverage, line };
}

function thresholdOf(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const threshold = Number(value);
  if (!Number.isFinite(threshold) || threshold < 0 || threshold > 100) {
    throw new Error(`${COVERAGE_THRESHOLD_VARIABLE} must be a percentage from 0 to 100, got ${JSON.stringify(value)}`);
  }
  return threshold;
}
