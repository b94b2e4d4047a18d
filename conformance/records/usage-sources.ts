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

/** Each usage record or Pact file `sources` name (a folder of `.json` files, a file, or an http(s) URL), with where it came from. */
export async function readUsageSources(sources: string[]): Promise<NamedSource[]> {
  const entries: NamedSource[] = [];
  const read = (text: string, source: string) => entries.push(parseSource(text, source));
  for (const source of sources) {
    if (/^https?:\/\//.test(source)) {
      const answer = await fetch(source, { signal: AbortSignal.timeout(30_000) }).catch((error: Error) => {
        throw new Error(`${source}: ${error.message}`);
      });
      if (!answer.ok) throw new Error(`${source}: answered ${answer.status}`);
      read(await answer.text(), source);
    } else if (statSync(source, { throwIfNoEntry: false })?.isDirectory()) {
      for (const file of readdirSync(source).filter((name) => name.endsWith('.json')).sort()) read(readFileSync(path.join(source, file), 'utf8'), path.join(source, file));
    } else {
      read(readFileSync(source, 'utf8'), source);
    }
  }
  return entries;
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

/**
 * Each usage record `sources` name, with where it came from; a Pact file among them is read against `options.contract`
 * (without one, it is a UsageRecordError: a pact holds no operation ids, only methods and paths).
 */
export async function readNamedUsage(sources: string[], options: { contract?: Contract; note?: (line: string) => void } = {}): Promise<NamedUsage[]> {
  const entries = await readUsageSources(sources);
  const pact = entries.find(isNamedPact);
  if (pact && !options.contract) throw new UsageRecordError(pact.source, 'a Pact file, read as a record against a contract, and none was given');
  return withPactsRead(entries, options.contract!, options.note);
}

/**
 * The usage records a `--consumers` source names, one per consumer: its records among them merged into one (`merged`
 * hears of each consumer that had several), or a UsageRecordError naming two that do not merge.
 */
export async function readUsageRecords(sources: string[], merged?: (consumer: string, sources: string[]) => void, options: { contract?: Contract; note?: (line: string) => void } = {}): Promise<UsageRecord[]> {
  return mergeByConsumer(await readNamedUsage(sources, options), merged);
}
