// Usage records from where teams keep them: a folder of records (its `.json` files), a record file, or an http(s) URL
// of any static file host or artifact store (docs/contract-consumers.md, "Where records live, and the gate"); a Pact
// file among them is read as a record against a contract (pact-record.ts). Records of one consumer among them (a
// folder holding a record per CI job) are merged into one (usage-merge.ts).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Contract } from '../contract/contract.ts';
import { isPact, pactRecord, readPact, type PactFile } from './pact-record.ts';
import { type NamedUsage, parseUsageRecord, type UsageRecord, UsageRecordError } from './usage-format.ts';
import { mergeByConsumer } from './usage-merge.ts';

/** A Pact file among the sources, read but not yet as a record: that needs the contract it is read against. */
export interface NamedPact {
  pact: PactFile;
  source: string;
}

export type NamedSource = NamedUsage | NamedPact;
export const isNamedPact = (entry: NamedSource): entry is NamedPact => 'pact' in entry;

/** A file's text as a usage record or a Pact file (by its shape, `isPact`). */
function parseSource(text: string, source: string): NamedSource {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageRecordError(source, `not JSON (${(error as Error).message})`);
  }
  if (isPact(value)) return { pact: readPact(value, source), source };
  return { record: parseUsageRecord(text, source), source };
}

/** How long a URL is waited for before it is given up and named as unread (the editor's compile waits this at most). */
export const URL_WAIT_MS = 3_000;

/** What a source is when it cannot be read: a message naming it. */
const unreadOf = (source: string, error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  return error instanceof UsageRecordError || message.includes(source) ? message : `${source}: ${message}`;
};

/** The records and Pact files one source names (a folder's `.json` files, a file, or an http(s) URL). */
async function readSource(source: string, waitMs: number): Promise<NamedSource[]> {
  if (/^https?:\/\//.test(source)) {
    const answer = await fetch(source, { signal: AbortSignal.timeout(waitMs) }).catch((error: Error) => {
      throw new Error(`${source}: ${error.name === 'TimeoutError' ? `no answer within ${waitMs / 1000} s` : error.message}`);
    });
    if (!answer.ok) throw new Error(`${source}: answered ${answer.status}`);
    return [parseSource(await answer.text(), source)];
  }
  const stats = statSync(source, { throwIfNoEntry: false });
  if (!stats) throw new Error(`${source}: no such file or folder`);
  if (!stats.isDirectory()) return [parseSource(readFileSync(source, 'utf8'), source)];
  return readdirSync(source)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => parseSource(readFileSync(path.join(source, name), 'utf8'), path.join(source, name)));
}

/**
 * THE reader of consumers' sources: each usage record or Pact file `sources` name, with where it came from, and each
 * source that could not be read (missing, unanswered within `waitMs`, not JSON, not a record), a line naming it.
 */
export async function readSources(sources: readonly string[], waitMs = 30_000): Promise<{ entries: NamedSource[]; unread: string[] }> {
  const read = await Promise.all(sources.map((source) => readSource(source, waitMs).then((entries) => ({ entries }), (error: unknown) => ({ unread: unreadOf(source, error) }))));
  return { entries: read.flatMap((each) => ('entries' in each ? each.entries : [])), unread: read.flatMap((each) => ('unread' in each ? [each.unread] : [])) };
}

/** Each usage record or Pact file `sources` name, with where it came from; the first source that cannot be read is an error naming it. */
export async function readUsageSources(sources: string[]): Promise<NamedSource[]> {
  const { entries, unread } = await readSources(sources);
  if (unread[0]) throw new Error(unread[0]);
  return entries;
}

/** The consumers the sources name, and every source or Pact file that could not be read or placed, named. */
export interface ReadConsumers {
  records: UsageRecord[];
  unread: string[];
}

/**
 * The consumers `sources` name, one record each (a consumer's records merged, `merged` hearing of it), as the gate, the
 * editor's rule and can-i-deploy read them: a Pact file read against `base` (the contract the change starts from,
 * whose operations the findings name), else `revision`. Never silent: a source that cannot be read, a Pact file that
 * cannot be placed (no contract), records that do not merge: each a line of `unread` naming it.
 */
export async function readConsumers(
  sources: readonly string[],
  options: { base?: Contract; revision?: Contract; waitMs?: number; note?: (line: string) => void; merged?: (consumer: string, sources: string[]) => void } = {},
): Promise<ReadConsumers> {
  const { entries, unread } = await readSources(sources, options.waitMs);
  const contract = options.base ?? options.revision;
  const placed = entries.filter((entry) => {
    if (!isNamedPact(entry) || contract) return true;
    unread.push(`${entry.source}: a Pact file, read as a record against a contract, and none was given`);
    return false;
  });
  try {
    return { records: mergeByConsumer(withPactsRead(placed, contract!, options.note), options.merged), unread };
  } catch (error) {
    return { records: [], unread: [...unread, unreadOf('consumers', error)] };
  }
}

/**
 * The entries with each Pact file read as a record against `contract` (a function: the contract for that pact); each
 * interaction that matches no operation, and each left unread (a message), told to `note` as a line naming the file.
 */
export function withPactsRead(entries: readonly NamedSource[], contract: Contract | ((entry: NamedPact) => Contract), note: (line: string) => void = () => {}): NamedUsage[] {
  return entries.map((entry) => {
    if (!isNamedPact(entry)) return entry;
    const { record, unmatched, skipped } = pactRecord(entry.pact, typeof contract === 'function' ? contract(entry) : contract);
    for (const line of skipped) note(line);
    for (const line of unmatched) note(`${entry.source}: ${line}`);
    return { record, source: entry.source };
  });
}
