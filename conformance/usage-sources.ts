// Usage records from where teams keep them: a folder of records (one `.json` file per consumer), a record file, or an
// http(s) URL of any static file host or artifact store (docs/contract-consumers.md, "Where records live, and the gate").
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseUsageRecord, type UsageRecord } from './usage-format.ts';

/** The usage records a `--consumers` source names: a folder of `.json` records, a record file, or an http(s) URL. */
export async function readUsageRecords(sources: string[]): Promise<UsageRecord[]> {
  const records: UsageRecord[] = [];
  for (const source of sources) {
    if (/^https?:\/\//.test(source)) {
      const answer = await fetch(source, { signal: AbortSignal.timeout(30_000) }).catch((error: Error) => {
        throw new Error(`${source}: ${error.message}`);
      });
      if (!answer.ok) throw new Error(`${source}: answered ${answer.status}`);
      records.push(parseUsageRecord(await answer.text(), source));
    } else if (statSync(source, { throwIfNoEntry: false })?.isDirectory()) {
      for (const file of readdirSync(source).filter((name) => name.endsWith('.json')).sort()) {
        records.push(parseUsageRecord(readFileSync(path.join(source, file), 'utf8'), path.join(source, file)));
      }
    } else {
      records.push(parseUsageRecord(readFileSync(source, 'utf8'), source));
    }
  }
  return records;
}
