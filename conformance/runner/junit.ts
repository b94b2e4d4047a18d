// The JUnit XML report (`--junit FILE`): one test case per operation and per check, from a generic list of results
// `{operationId, checkId, ok, message, request?, response?}`. The scenario's results come from the report
// (`scenarioResults`); other phases (the property checks) add theirs to `report.checks`. A test case fails when any
// of its results failed; its failure text gives each failed result's message, request and answer. Each test case,
// suite and the whole report have a `time` in seconds, from the durations of the requests the run made.
import type { Report } from './runner.ts';
import type { CallRecord } from './session.ts';
import type { CheckResult } from '../contract/types.ts';

/** The scenario's checks: `scenario` (exercised, conforming answers) and `invalid-input` (refused with 400), per operation. */
export function scenarioResults(report: Report): CheckResult[] {
  const results: CheckResult[] = [];
  for (const [operationId, operation] of Object.entries(report.operations)) {
    if (operation.excluded) continue;
    const invalid = operation.violations.filter((violation) => violation.step.startsWith('invalid input: '));
    const scenario = operation.violations.filter((violation) => !violation.step.startsWith('invalid input: '));
    for (const violation of scenario) {
      results.push({ operationId, checkId: 'scenario', ok: false, message: `${violation.kind}: ${violation.message} (${violation.step})`, request: violation.request, ...(violation.response ? { response: violation.response } : {}) });
    }
    if (!operation.exercised && scenario.length === 0 && report.skipped?.includes(operationId)) {
      // Skipped: the implementation refused to reach the runner (the reason says what to change); not a failure.
      results.push({ operationId, checkId: 'scenario', ok: true, skipped: true, message: `not exercised: ${report.notExercisedReasons[operationId]}` });
    } else if (!operation.exercised && scenario.length === 0) {
      const reason = report.notExercisedReasons?.[operationId];
      results.push({ operationId, checkId: 'scenario', ok: false, message: `not exercised${reason ? `: ${reason}` : operation.calls === 0 ? ': never called (see the notes)' : ''}` });
    }
    if (scenario.length === 0 && operation.exercised) {
      results.push({ operationId, checkId: 'scenario', ok: true, message: `exercised (${operation.calls} calls, statuses ${operation.statuses.join(', ')})` });
    }
    for (const violation of invalid) {
      results.push({ operationId, checkId: 'invalid-input', ok: false, message: `${violation.kind}: ${violation.message}`, request: violation.request, ...(violation.response ? { response: violation.response } : {}) });
    }
    if (invalid.length === 0 && operation.invalidInputs > 0) {
      results.push({ operationId, checkId: 'invalid-input', ok: true, message: `${operation.invalidInputs} invalid inputs refused` });
    }
  }
  return results;
}

/** Text that is safe in XML content and attribute values: escaped, without the characters XML 1.0 forbids. */
export function xmlText(value: string): string {
  return value
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

function describeResult(result: CheckResult): string {
  const lines = [result.message];
  if (result.request) {
    lines.push(`request: ${result.request.method} ${result.request.url}`);
    if (result.request.body !== undefined) lines.push(`request body: ${JSON.stringify(result.request.body)}`);
  }
  if (result.response) {
    lines.push(`response: ${result.response.status}`);
    if (result.response.body !== undefined) lines.push(`response body: ${result.response.body}`);
  } else if (result.request) {
    lines.push('response: none');
  }
  return lines.join('\n');
}

export interface JUnitOptions {
  /** Name of the outer `testsuites` element (default `docs-conformance`). */
  name?: string;
  /** Duration of the run, in ms: the `time` of `testsuites` (default: the sum of the suites'). */
  durationMs?: number;
  /** Operations to report as skipped (excluded ones), for each check that has any test case. */
  skipped?: string[];
  /** The requests the run made, with their durations (`report.calls`), from which each test case's `time` comes. */
  calls?: readonly Pick<CallRecord, 'operationId' | 'kind' | 'ms'>[];
  /** Properties of the run, in each `testsuite`'s `<properties>` (the contract's version and SHA-256). */
  properties?: Record<string, string>;
}

/** The requests whose time a check's test cases are given: the scenario's own (with its polls and clean-up), the invalid inputs, the property phase's. */
const KINDS_OF: Record<string, readonly CallRecord['kind'][]> = { scenario: ['scenario', 'poll', 'cleanup'], 'invalid-input': ['invalid'] };
const PROPERTY_KINDS: readonly CallRecord['kind'][] = ['property'];

/** Milliseconds as JUnit's `time`: seconds, with three decimals. */
const seconds = (ms: number) => (ms / 1000).toFixed(3);

/**
 * The JUnit XML document: a `testsuite` per check id, a `testcase` per operation (classname `docs-conformance.<check>`).
 * A test case's `time` is the time of the operation's requests of its kind (`options.calls`): for `scenario` its
 * scenario steps, polls and clean-up, for `invalid-input` its invalid inputs; the property phase sends requests that
 * serve several checks at once, so an operation's property requests are shared evenly among its property checks'
 * test cases. A suite's time is the sum of its test cases', the whole report's the run's duration.
 */
export function junitXml(results: CheckResult[], options: JUnitOptions = {}): string {
  const checks = new Map<string, Map<string, CheckResult[]>>();
  for (const result of results) {
    const byOperation = checks.get(result.checkId) ?? new Map<string, CheckResult[]>();
    checks.set(result.checkId, byOperation);
    byOperation.set(result.operationId, [...(byOperation.get(result.operationId) ?? []), result]);
  }
  // Milliseconds of each operation's requests, by kind; how many property checks each operation has a test case in.
  const spent = new Map<string, number>();
  for (const call of options.calls ?? []) {
    const key = `${call.operationId}\u0000${call.kind}`;
    spent.set(key, (spent.get(key) ?? 0) + call.ms);
  }
  const propertyChecks = new Map<string, number>();
  for (const [checkId, byOperation] of checks) {
    if (checkId in KINDS_OF) continue;
    for (const operationId of byOperation.keys()) propertyChecks.set(operationId, (propertyChecks.get(operationId) ?? 0) + 1);
  }
  const timeOf = (checkId: string, operationId: string) => {
    const kinds = KINDS_OF[checkId] ?? PROPERTY_KINDS;
    const ms = kinds.reduce((sum, kind) => sum + (spent.get(`${operationId}\u0000${kind}`) ?? 0), 0);
    return checkId in KINDS_OF ? ms : ms / (propertyChecks.get(operationId) ?? 1);
  };
  const name = options.name ?? 'docs-conformance';
  const properties = Object.entries(options.properties ?? {}).map(([key, value]) => `      <property name="${xmlText(key)}" value="${xmlText(value)}"/>`);
  // JUnit's schema has properties in a testsuite, before its test cases: each suite has the run's.
  const propertiesXml = properties.length > 0 ? `    <properties>\n${properties.join('\n')}\n    </properties>\n` : '';
  const suites: string[] = [];
  let tests = 0;
  let failures = 0;
  let skippedCount = 0;
  let totalMs = 0;
  for (const [checkId, byOperation] of checks) {
    const cases: string[] = [];
    let suiteFailures = 0;
    let suiteSkipped = 0;
    let suiteMs = 0;
    for (const [operationId, list] of byOperation) {
      const failed = list.filter((result) => !result.ok);
      const ms = timeOf(checkId, operationId);
      suiteMs += ms;
      const head = `    <testcase name="${xmlText(operationId)}" classname="${xmlText(`${name}.${checkId}`)}" time="${seconds(ms)}"`;
      const skippedResult = list.find((result) => result.skipped);
      if (failed.length === 0 && skippedResult) {
        suiteSkipped++;
        cases.push(`${head}>\n      <skipped message="${xmlText(skippedResult.message.split('\n')[0]!)}"/>\n    </testcase>`);
        continue;
      }
      if (failed.length === 0) {
        cases.push(`${head}/>`);
        continue;
      }
      suiteFailures++;
      const first = failed[0]!.message.split('\n')[0]!;
      const message = failed.length > 1 ? `${first} (and ${failed.length - 1} more)` : first;
      const text = failed.map(describeResult).join('\n\n');
      cases.push(`${head}>\n      <failure message="${xmlText(message)}" type="${xmlText(checkId)}">${xmlText(text)}</failure>\n    </testcase>`);
    }
    const skipped = (options.skipped ?? []).filter((operationId) => !byOperation.has(operationId));
    for (const operationId of skipped) {
      cases.push(`    <testcase name="${xmlText(operationId)}" classname="${xmlText(`${name}.${checkId}`)}" time="${seconds(0)}">\n      <skipped message="excluded"/>\n    </testcase>`);
    }
    tests += byOperation.size + skipped.length;
    failures += suiteFailures;
    skippedCount += skipped.length + suiteSkipped;
    totalMs += suiteMs;
    suites.push(
      `  <testsuite name="${xmlText(checkId)}" tests="${byOperation.size + skipped.length}" failures="${suiteFailures}" errors="0" skipped="${skipped.length + suiteSkipped}" time="${seconds(suiteMs)}">\n${propertiesXml}${cases.join('\n')}\n  </testsuite>`,
    );
  }
  const time = seconds(options.durationMs ?? totalMs);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${xmlText(name)}" tests="${tests}" failures="${failures}" errors="0" skipped="${skippedCount}" time="${time}">\n${suites.join('\n')}\n</testsuites>\n`;
}

/** The properties naming the contract a run checked (can-i-deploy --verification reads them). */
export const CONTRACT_PROPERTIES = { version: 'docs-conformance.contract.version', sha256: 'docs-conformance.contract.sha256' } as const;

/** The JUnit XML of a whole report: the scenario's results, the property phase's (`report.property.results`) and
 *  any other `report.checks`; each suite's properties name the contract. */
export function reportJunit(report: Report): string {
  const skipped = Object.entries(report.operations).filter(([, operation]) => operation.excluded).map(([id]) => id);
  const properties = { [CONTRACT_PROPERTIES.version]: report.contractVersion, [CONTRACT_PROPERTIES.sha256]: report.contractSha256 };
  return junitXml([...scenarioResults(report), ...(report.property?.results ?? []), ...(report.checks ?? [])], { durationMs: report.durationMs, skipped, calls: report.calls, properties });
}
