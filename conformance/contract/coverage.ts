// Response coverage: per operation of the contract, the responses it declares (statuses as the contract writes them:
// "200", "4XX", "default"; with the media type where a status declares several) and which of them answers were seen
// for, in the format the test harness writes too (conformance/contract/coverage-format.ts, which this re-exports): the
// validating proxy writes it in its JSON report and prints its summary line; the runner's report has it too.
import type { Coverage, OperationCoverage } from './coverage-format.ts';
import { type Contract, declaredResponse, type Operation } from './contract.ts';

export {
  type Coverage,
  coverageLine,
  coverageMarkdown,
  coverageSummary,
  type CoverageSummary,
  mergeCoverage,
  type OperationCoverage,
} from './coverage-format.ts';

/** An operation's declared responses: each status, followed by its media type where it declares several. */
function declaredKeys(operation: Operation): string[] {
  return Object.entries(operation.responses).flatMap(([status, response]) =>
    response.contentTypes.length > 1 ? response.contentTypes.map((type) => `${status} ${type}`) : [status],
  );
}

/** Every operation of the contract with its declared responses, none seen. */
export function emptyCoverage(contract: Contract): Coverage {
  const operations: Record<string, OperationCoverage> = {};
  for (const operation of contract.operations.values()) operations[operation.operationId] = { declared: declaredKeys(operation), seen: [] };
  return { operations };
}

/**
 * Records an answer of `operation` with `status` (and `contentType`): the declared response it falls under (the exact
 * code, else its class, else `default`; with its media type where that status declares several) is seen. Returns
 * that key, or undefined when the answer is not declared (nothing is recorded).
 */
export function recordAnswer(coverage: Coverage, operation: Operation, status: number, contentType?: string): string | undefined {
  const declared = declaredResponse(operation, status);
  if (declared === undefined) return undefined;
  let key = declared.key;
  const types = declared.response.contentTypes;
  if (types.length > 1) {
    const type = contentType?.split(';')[0]!.trim().toLowerCase();
    if (!type || !types.includes(type)) return undefined;
    key = `${key} ${type}`;
  }
  const entry = (coverage.operations[operation.operationId] ??= { declared: declaredKeys(operation), seen: [] });
  if (!entry.seen.includes(key)) entry.seen = entry.declared.filter((candidate) => candidate === key || entry.seen.includes(candidate));
  return key;
}
