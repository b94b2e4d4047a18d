// The consumer's usage record of its suite, across its test files and workers: while it is on, every server the harness
// starts records what each request used of the contract in a file of its own (http/usage-recorder.ts); `reportUsage()`
// merges them into one record of the consumer (conformance/records/usage-format.ts) and prints one line; `startUsage()` turns
// it on for the run (server/docs/harness.md, "Usage record").
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { consumerIdentity } from '../../conformance/records/consumer.ts';
import { mergeNamedUsage, parseUsageRecord, type UsageRecord } from '../../conformance/records/usage-format.ts';
import { markMerged, mergedAlready, writeUsageFile } from '../../conformance/records/usage-merge.ts';
import { DEFAULT_USAGE_FOLDER, USAGE_CONSUMER_VARIABLE, USAGE_VARIABLE, usageFolder, usageRecordsFolder } from '../start/harness-protocol.ts';

export type { OperationUsage, ResponseUsage, UsageRecord, Used } from '../../conformance/records/usage-format.ts';

export interface UsageOptions {
  /** The usage folder: DOCS_SERVER_USAGE's, or `docs-platform-usage` in the working directory. */
  folder?: string;
}

const folderOf = (options: UsageOptions) => (options.folder ? path.resolve(options.folder) : (usageFolder() ?? path.resolve(DEFAULT_USAGE_FOLDER)));

/**
 * Turns the usage record on for the servers this process and the workers it starts afterwards start (it sets
 * DOCS_SERVER_USAGE, and DOCS_SERVER_USAGE_CONSUMER when `consumer` names the consumer), and removes the records a run
 * that did not report left behind. Returns the folder.
 */
export function startUsage(options: UsageOptions & { consumer?: string } = {}): string {
  const folder = folderOf(options);
  rmSync(usageRecordsFolder(folder), { recursive: true, force: true });
  process.env[USAGE_VARIABLE] = folder;
  if (options.consumer !== undefined) process.env[USAGE_CONSUMER_VARIABLE] = options.consumer;
  return folder;
}

let consumer: { named: string | undefined; identity: UsageRecord['consumer'] } | undefined;

/**
 * @internal What a server records usage with (start/harness-protocol.ts, `HarnessUsage`), for a `folder` the harness
 * was given: the consumer is DOCS_SERVER_USAGE_CONSUMER, or the package.json in the working directory (its name and
 * version), with the commit of its git checkout; found once per process.
 */
export function harnessUsage(folder: string): { folder: string; consumer: UsageRecord['consumer'] } {
  const named = process.env[USAGE_CONSUMER_VARIABLE] || undefined;
  if (consumer === undefined || consumer.named !== named) {
    try {
      consumer = { named, identity: consumerIdentity(process.cwd(), named) };
    } catch (error) {
      throw new Error(`docs-platform-server/testing: the usage record names its consumer: ${(error as Error).message} (or set ${USAGE_CONSUMER_VARIABLE}, or startUsage({ consumer }))`);
    }
  }
  return { folder, consumer: consumer.identity };
}

export interface UsageReport {
  /** The consumer's record, as written; undefined when no server recorded a request. */
  record: UsageRecord | undefined;
  /** The file written (`usage.json` in the usage folder, or `file`), when one was. */
  file: string | undefined;
  /** The line printed (empty when the client's merge had merged the records already, and printed its own). */
  line: string;
}

export interface ReportUsageOptions extends UsageOptions {
  /** Where the record goes: `usage.json` in the usage folder by default. */
  file?: string;
  /**
   * Merge into the record `file` already holds (of the same consumer and contract document), instead of replacing it:
   * for several test commands of one job that make one record. Off by default: a run's record is what that run used.
   */
  merge?: boolean;
  /** Receives the line (console.log by default). */
  log?: (line: string) => void;
}

/**
 * Merges the records of the servers that ran into one usage record of the consumer, writes it whole into `file`
 * (`usage.json` in the usage folder by default; replaced, or with `merge`, merged into the record it holds), removes
 * them, prints one line (`log`, console.log by default) and returns it. A record that cannot be read (a broken file, a
 * newer format, another consumer's), or with `merge` a file holding anything but a record of this consumer and
 * contract, throws, naming it, and nothing is written or removed.
 */
export function reportUsage(options: ReportUsageOptions = {}): UsageReport {
  const folder = folderOf(options);
  const records = usageRecordsFolder(folder);
  let files: string[] = [];
  try {
    files = readdirSync(records)
      .filter((file) => file.endsWith('.json'))
      .sort();
  } catch {
    // no server recorded anything
  }
  const log = options.log ?? console.log;
  const [first, ...others] = files.map((file) => ({ record: parseUsageRecord(readFileSync(path.join(records, file), 'utf8'), path.join(records, file)), source: path.join(records, file) }));
  if (first === undefined) {
    // The client's mergeUsageRecords() merged them already (the same folder): its line said so.
    const merged = mergedAlready(records);
    if (merged !== undefined) return { record: existsSync(merged) ? parseUsageRecord(readFileSync(merged, 'utf8'), merged) : undefined, file: merged, line: '' };
    const line = `docs-platform-server usage: no server recorded a request (was the usage record on when they started?): ${path.relative(process.cwd(), folder) || '.'}`;
    log(line);
    return { record: undefined, file: undefined, line };
  }
  const file = options.file ? path.resolve(options.file) : path.join(folder, 'usage.json');
  const record = writeUsageFile(file, mergeNamedUsage(first, ...others), { merge: options.merge === true });
  rmSync(records, { recursive: true, force: true });
  markMerged(records, file);
  const calls = Object.values(record.operations).reduce((sum, usage) => sum + usage.calls, 0);
  const operations = Object.keys(record.operations).length;
  const line =
    `docs-platform-server usage: ${record.consumer.name} called ${operations} operation${operations === 1 ? '' : 's'} (${calls} request${calls === 1 ? '' : 's'}) ` +
    `of contract ${record.contract.version}: ${path.relative(process.cwd(), file) || file}`;
  log(line);
  return { record, file, line };
}
