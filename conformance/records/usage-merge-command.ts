// `docs-conformance usage merge`: usage records of one consumer (each job's of a sharded CI, each test command's) made
// into one, written whole, or printed. Exit 0 once written; 2, naming the file, on a record that cannot be read or
// records that do not merge (two consumers, two contract versions or documents), and nothing is written then.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { load, CORE_SCHEMA } from 'js-yaml';
import { type Contract, DEFAULT_CONTRACT, loadContract, type OpenApiDocument } from '../contract/contract.ts';
import { contractIdentity } from './consumer.ts';
import { isNamedPact, type NamedSource, readUsageSources, withPactsRead } from './usage-sources.ts';
import { mergeNamedUsage, UsageRecordError } from './usage-format.ts';
import { usageSummary, writeUsageFile } from './usage-merge.ts';

export const USAGE_MERGE_USAGE = `Usage: docs-conformance usage merge <record|pact|folder|URL>... [--out FILE] [--contract <file|URL>]

Merges usage records of one consumer made against one contract (the records of a sharded CI's jobs, of several test
commands) into one record: calls add up, parameters, fields, statuses and values unite. Each argument is a record
file, a Pact file, a folder (its .json files) or an http(s) URL. Writes the record whole to --out, replacing what the
file holds (to add to a record kept from before, name that file among the records too: in a folder given, it is left
out), or prints it without --out; then one line on stderr: the consumer, what the record holds, the records merged.

A Pact file is read as a record against --contract (a file or a URL); without it, against the contract the records
among them were made against (this package's contract or one of its releases, by version and SHA-256), or, with no
record among them, this package's contract.

Exit codes:
  0    the record was written (or printed)
  2    a record that cannot be read (not JSON, another format, a newer version of the format, malformed), records of
       two consumers, of two contract versions or of two documents of one version, or no record at all: one line
       naming the file, and nothing is written
`;

/** Runs `usage …` with `argv` (after `usage`); resolves to its exit code, printing to `out` and `err`. */
export async function usageMain(argv: string[], out: (text: string) => void, err: (text: string) => void): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h') {
    out(USAGE_MERGE_USAGE);
    return 0;
  }
  if (command !== 'merge') {
    err(`docs-conformance usage: ${command === undefined ? 'give a command' : `unknown command ${command}`}: usage merge (see docs-conformance usage merge --help)\n`);
    return 2;
  }
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: { out: { type: 'string' }, contract: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: true });
  } catch (error) {
    err(`usage merge: ${(error as Error).message.split('\n')[0]} (see docs-conformance usage merge --help)\n`);
    return 2;
  }
  if (parsed.values.help) {
    out(USAGE_MERGE_USAGE);
    return 0;
  }
  if (parsed.positionals.length === 0) {
    err('usage merge: name the records to merge: files, folders or URLs (see docs-conformance usage merge --help)\n');
    return 2;
  }
  try {
    const where = parsed.values.out;
    // The record --out names, found in a folder given, is last run's merge: read only when named itself.
    const named = new Set(parsed.positionals.map((source) => path.resolve(source)));
    const read = (await readUsageSources(parsed.positionals)).filter(({ source }) => !where || path.resolve(source) !== path.resolve(where) || named.has(path.resolve(source)));
    const contract = read.some(isNamedPact) ? await pactContract(read, parsed.values.contract) : undefined;
    const entries = withPactsRead(read, contract!, (line) => err(`usage merge: ${line}\n`));
    const [first, ...others] = entries;
    if (!first) throw new Error(`no usage record in ${parsed.positionals.join(', ')} (a folder's records are its .json files)`);
    const merged = mergeNamedUsage(first, ...others);
    if (where) writeUsageFile(path.resolve(where), merged);
    else out(`${JSON.stringify(merged, null, 2)}\n`);
    err(`usage merge: ${usageSummary(merged)}, from ${entries.length} record${entries.length === 1 ? '' : 's'}${where ? `: ${where}` : ''}\n`);
    return 0;
  } catch (error) {
    err(`usage merge: ${(error as Error).message}\n`);
    return 2;
  }
}

/** The contract the Pact files among `read` are read against: `given` (a file or a URL); else the one its records were made against, this package's contract or one of its releases (by version and SHA-256); else this package's. */
async function pactContract(read: NamedSource[], given: string | undefined): Promise<Contract> {
  if (given !== undefined && /^https?:\/\//.test(given)) {
    const answer = await fetch(given, { signal: AbortSignal.timeout(30_000) });
    if (!answer.ok) throw new Error(`${given}: answered ${answer.status}`);
    return loadContract(load(await answer.text(), { schema: CORE_SCHEMA }) as OpenApiDocument);
  }
  if (given !== undefined) return loadContract(path.resolve(given));
  const record = read.find((entry) => !isNamedPact(entry));
  if (!record || isNamedPact(record)) return loadContract();
  const { version, sha256 } = record.record.contract;
  const release = path.join(path.dirname(DEFAULT_CONTRACT), 'releases', version, 'openapi.yaml');
  for (const candidate of [DEFAULT_CONTRACT, ...(existsSync(release) ? [release] : [])]) {
    const contract = loadContract(candidate);
    const identity = contractIdentity(contract);
    if (identity.version === version && identity.sha256 === sha256) return contract;
  }
  throw new UsageRecordError(read.find(isNamedPact)!.source, `a Pact file, read against the contract the records were made against (${version}), which is neither this package's contract nor one of its releases: give it with --contract`);
}
