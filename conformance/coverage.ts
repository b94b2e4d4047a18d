// Response coverage: per operation of the contract, the statuses it declares (as the contract writes them: "200",
// "4XX", "default") and which of them answers were seen for, in the format the test harness writes too
// (conformance/coverage-format.ts, which this re-exports): the validating proxy writes it in its JSON report
// (`coverage`) and prints its summary line.
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

/** Every operation of the contract with its declared statuses, none seen. */
export function emptyCoverage(contract: Contract): Coverage {
  const operations: Record<string, OperationCoverage> = {};
  for (const operation of contract.operations.values()) operations[operation.operationId] = { declared: Object.keys(operation.responses), seen: [] };
  return { operations };
}

/**
 * Records an answer of `operation` with `status`: the declared status it falls under (the exact code, else its class,
 * else `default`) is seen. Returns that key, or undefined when the status is not declared (nothing is recorded).
 */
export function recordAnswer(coverage: Coverage, operation: Operation, status: number): string | undefined {
  const key = declaredResponse(operation, status)?.key;
  if (key === undefined) return undefined;
  const entry = (coverage.operations[operation.operationId] ??= { declared: Object.keys(operation.responses), seen: [] });
  if (!entry.seen.includes(key)) entry.seen = entry.declared.filter((declared) => declared === key || entry.seen.includes(declared));
  return key;
}
