// Usage records from where teams keep them: a folder of records (its `.json` files), a record file, or an http(s) URL
// of any static file host or artifact store (docs/contract-consumers.md, "Where records live, and the gate"). Records of
// one consumer among them (a folder holding a record per CI job) are merged into one (usage-merge.ts).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { type NamedUsage, parseUsageRecord, type UsageRecord } from './usage-format.ts';
import { mergeByConsumer } from './usage-merge.ts';

/** Each usage record `sources` name (a folder of `.json` records, a record file, or an http(s) URL), with where it came from. */
export async function readNamedUsage(sources: string[]): Promise<NamedUsage[]> {
  const entries: NamedUsage[] = [];
  const read = (text: string, source: string) => entries.push({ record: parseUsageRecord(text, source), source });
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
 * The usage records a `--consumers` source names, one per consumer: its records among them merged into one (`merged`
 * hears of each consumer that had several), or a UsageRecordError naming two that do not merge.
 */
export async function readUsageRecords(sources: string[], merged?: (consumer: string, sources: string[]) => void): Promise<UsageRecord[]> {
  return mergeByConsumer(await readNamedUsage(sources), merged);
}
