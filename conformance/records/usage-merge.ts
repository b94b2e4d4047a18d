// Usage records merged where there are several of one consumer: the records of a sharded CI's jobs (`docs-conformance
// usage merge`), the records several sources hold of one consumer (a folder given to the gate's --consumers or to
// can-i-deploy), and a record written into a file that already holds one (the proxy's --usage; the harness's
// reportUsage and the client's mergeUsageRecords with `merge`). Which records merge is usage-format.ts's
// mergeNamedUsage: of one consumer, against one contract document.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { mergeNamedUsage, type NamedUsage, parseUsageRecord, type UsageRecord } from './usage-format.ts';

/**
 * The records of `entries`, those of one consumer merged into one, in the order each consumer first comes; `merged`
 * hears of each consumer whose records were merged, with their sources. Records of one consumer that do not merge
 * (two contract versions) are a UsageRecordError naming both sources.
 */
export function mergeByConsumer(entries: NamedUsage[], merged?: (consumer: string, sources: string[]) => void): UsageRecord[] {
  const byConsumer = new Map<string, NamedUsage[]>();
  for (const entry of entries) {
    const list = byConsumer.get(entry.record.consumer.name) ?? [];
    byConsumer.set(entry.record.consumer.name, [...list, entry]);
  }
  return [...byConsumer.entries()].map(([consumer, [first, ...others]]) => {
    if (others.length === 0) return first!.record;
    const record = mergeNamedUsage(first!, ...others);
    merged?.(consumer, [first!, ...others].map((entry) => entry.source));
    return record;
  });
}

/** What `record` is called in a message when it is merged into a file: the record of the run that wrote it. */
const THIS_RUN = "this run's record";

/** The record `file` would hold once `record` is merged into it: `record` itself when there is no such file. */
function mergedInto(file: string, record: UsageRecord): UsageRecord {
  if (!existsSync(file)) return record;
  // This run's record first: the file is the one named when the two do not merge, and this run's consumer version and
  // commit are the record's.
  return mergeNamedUsage({ record, source: THIS_RUN }, { record: parseUsageRecord(readFileSync(file, 'utf8'), file), source: file });
}

/**
 * Throws the UsageRecordError writing `record` into `file` with `merge` would throw (a file that is not a record, or
 * one of another consumer or contract document), without writing: the proxy asks before its command runs.
 */
export function checkUsageFile(file: string, record: UsageRecord): void {
  mergedInto(file, record);
}

/**
 * Writes `record` into `file`, whole (a temporary file renamed over it, so that a reader never sees half of it):
 * replacing what the file holds, or with `merge`, merged into the record it holds. A file that holds something else
 * (not a record, a newer format, another consumer's or contract document's record) is a UsageRecordError naming it,
 * and is left as it was. Returns the record written.
 */
export function writeUsageFile(file: string, record: UsageRecord, options: { merge?: boolean } = {}): UsageRecord {
  const written = options.merge ? mergedInto(file, record) : record;
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(written, null, 2)}\n`);
  renameSync(temporary, file);
  return written;
}

/** `search-service: 12 operations (85 calls) of contract 1.0.0`: what a record holds, for a command's line. */
export function usageSummary(record: UsageRecord): string {
  const calls = Object.values(record.operations).reduce((sum, usage) => sum + usage.calls, 0);
  const operations = Object.keys(record.operations).length;
  return `${record.consumer.name}: ${operations} operation${operations === 1 ? '' : 's'} (${calls} call${calls === 1 ? '' : 's'}) of contract ${record.contract.version}`;
}

/**
 * The mark a merge of a usage folder's `records/` leaves there: the file it wrote the record into. The harness's
 * `reportUsage()` and the client's `mergeUsageRecords()` read one folder (docs/consumers.md, "One folder with the
 * harness"); whichever runs second finds the records merged, not missing, and says nothing false. A run's start
 * (`startUsage()`, `startUsageRecording()`) removes `records/`, the mark with it.
 */
const MERGED_MARK = 'merged';

/** Leaves the mark that `records` were merged into `file`. */
export function markMerged(records: string, file: string): void {
  mkdirSync(records, { recursive: true });
  writeFileSync(path.join(records, MERGED_MARK), `${file}\n`);
}

/** The file the records of `records` were merged into in this run, when a merge left its mark. */
export function mergedAlready(records: string): string | undefined {
  try {
    return readFileSync(path.join(records, MERGED_MARK), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
