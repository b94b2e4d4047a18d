// Contract coverage, as the test harness and the conformance runner's proxy report it: per operation of the contract,
// the responses it declares and which of them were seen. A declared response is its status as the contract writes it
// ("200", "4XX", "default"), followed by the media type where the status declares several ("200 text/markdown").
// Records of the same contract merge by union; the summary counts operations and declared responses seen. No
// imports: the runner (its own bundle) and the server's test harness (server/testing/coverage.ts) share this module.

export interface OperationCoverage {
  /** The responses the operation declares, in the contract's order. */
  declared: string[];
  /** The declared responses an answer was seen for (a subset of `declared`, in its order). */
  seen: string[];
}

export interface Coverage {
  operations: Record<string, OperationCoverage>;
}

export interface CoverageSummary {
  /** Operations with at least one declared response seen, of all operations. */
  operations: { seen: number; total: number };
  /** Declared responses seen, of all the declared responses of all operations. */
  responses: { seen: number; total: number };
}

/** The union of records of the same contract: an operation's declared responses from the first record that has it. */
export function mergeCoverage(...records: Coverage[]): Coverage {
  const operations: Record<string, OperationCoverage> = {};
  for (const record of records) {
    for (const [operationId, entry] of Object.entries(record.operations)) {
      const current = operations[operationId];
      if (!current) {
        operations[operationId] = { declared: [...entry.declared], seen: entry.declared.filter((key) => entry.seen.includes(key)) };
        continue;
      }
      const seen = new Set([...current.seen, ...entry.seen]);
      current.seen = current.declared.filter((key) => seen.has(key));
    }
  }
  return { operations };
}

export function coverageSummary(coverage: Coverage): CoverageSummary {
  const entries = Object.values(coverage.operations);
  return {
    operations: { seen: entries.filter((entry) => entry.seen.length > 0).length, total: entries.length },
    responses: {
      seen: entries.reduce((sum, entry) => sum + entry.seen.length, 0),
      total: entries.reduce((sum, entry) => sum + entry.declared.length, 0),
    },
  };
}

/** The share of declared responses seen, in percent. */
export const responsesPercent = (summary: CoverageSummary): number =>
  summary.responses.total === 0 ? 100 : (100 * summary.responses.seen) / summary.responses.total;

/** `12/152 operations seen, 20/1404 declared responses seen (1.4 %)`. */
export function coverageLine(coverage: Coverage): string {
  const summary = coverageSummary(coverage);
  const { operations, responses } = summary;
  return `${operations.seen}/${operations.total} operations seen, ${responses.seen}/${responses.total} declared responses seen (${responsesPercent(summary).toFixed(1)} %)`;
}

/** Response keys in a table's order: codes by number, then classes (`4XX`), then `default`; media types after. */
function responseOrder(a: string, b: string): number {
  const rank = (key: string) => {
    const status = key.split(' ')[0]!;
    return /^\d{3}$/.test(status) ? Number(status) : status === 'default' ? 10_000 : Number(status[0]) * 100 + 1000;
  };
  return rank(a) - rank(b) || a.localeCompare(b);
}

/**
 * A Markdown table: the summary line, then a row per operation (in the record's order) and a column per response any
 * operation declares; a cell is `✓` when that declared response was seen, `·` when declared and not seen, empty when
 * not declared. `seenOnly` leaves out the operations nothing was seen for.
 */
export function coverageMarkdown(coverage: Coverage, options: { seenOnly?: boolean } = {}): string {
  const rows = Object.entries(coverage.operations).filter(([, entry]) => !options.seenOnly || entry.seen.length > 0);
  const keys = [...new Set(rows.flatMap(([, entry]) => entry.declared))].sort(responseOrder);
  const lines = [
    `${coverageLine(coverage)}.`,
    '',
    `| Operation | ${keys.join(' | ')} |`,
    `|---|${keys.map(() => ':-:|').join('')}`,
    ...rows.map(
      ([operationId, entry]) =>
        `| \`${operationId}\` | ${keys.map((key) => (entry.seen.includes(key) ? '✓' : entry.declared.includes(key) ? '·' : '')).join(' | ')} |`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}
