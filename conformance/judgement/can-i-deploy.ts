// can-i-deploy (docs/consumers.md, "can-i-deploy"): whether a consumer can deploy against a contract. A record is
// judged against contract Y alone (record-judgement.ts: does Y still accept what it sent and guarantee what it read);
// when the contract it was made against, X, is found (by the record's contract version and SHA-256 among the
// releases, or given), the change X → Y is judged too: both by the one owner of a consumer's verdict (verdict.ts), which
// the gate and the contract's rule call too.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { load, CORE_SCHEMA } from 'js-yaml';
import { compareDocuments, type Finding } from '../../compare/index.ts';
import { today } from '../../compare/removals.ts';
import { contractIdentity } from '../records/consumer.ts';
import { type Contract, DEFAULT_CONTRACT, loadContract, type OpenApiDocument } from '../contract/contract.ts';
import type { ConsumerVerdict } from './judgement.ts';
import { holdsAgainst, judgeConsumerVerdicts } from './verdict.ts';
import { pactRecord } from '../records/pact-record.ts';
import { mergeNamedUsage, type NamedUsage, type UsageRecord, UsageRecordError } from '../records/usage-format.ts';
import { mergeByConsumer } from '../records/usage-merge.ts';
import { isNamedPact, type NamedPact, readUsageSources, withPactsRead } from '../records/usage-sources.ts';

/** The releases this package carries: generated/releases/<version>/openapi.yaml, as the toolkit records them. */
export const PACKAGE_RELEASES = path.resolve(path.dirname(DEFAULT_CONTRACT), 'releases');

const RELEASE_VERSION = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;
const isUrl = (source: string) => /^https?:\/\//.test(source);

/** The versions recorded in a folder of releases, oldest first. */
function recordedVersions(folder: string): string[] {
  try {
    return readdirSync(folder)
      .filter((version) => RELEASE_VERSION.test(version) && existsSync(path.join(folder, version, 'openapi.yaml')))
      .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  } catch {
    return [];
  }
}

/**
 * Where a contract is: a file path, an http(s) URL, or a bare release version (`1.2.0`), looked up in `releases` (a
 * folder or a URL holding `<version>/openapi.yaml`, as generated/releases/ does), by default the releases this
 * package carries.
 */
export function contractSource(source: string, releases: string = PACKAGE_RELEASES): string {
  if (!RELEASE_VERSION.test(source) || existsSync(source)) return source;
  if (isUrl(releases)) return `${releases.replace(/\/+$/, '')}/${source}/openapi.yaml`;
  const file = path.join(releases, source, 'openapi.yaml');
  if (existsSync(file)) return file;
  const known = recordedVersions(releases);
  throw new Error(`no release ${source} in ${releases}${known.length > 0 ? ` (it has ${known.join(', ')})` : ' (no release recorded there)'}`);
}

/** A contract from a file path, an http(s) URL (YAML or JSON) or a release version (`contractSource`). */
export async function contractFrom(source: string, releases?: string): Promise<Contract> {
  const where = contractSource(source, releases);
  if (!isUrl(where)) return loadContract(where);
  const answer = await fetch(where, { signal: AbortSignal.timeout(30_000) });
  if (!answer.ok) throw new Error(`${where}: answered ${answer.status}`);
  return loadContract(load(await answer.text(), { schema: CORE_SCHEMA }) as OpenApiDocument);
}

// ---- the judgement of a record against a contract ---------------------------------------------------------------

/** The contract a record was made against, found or given; or why it was not found. */
export type RecordedContract = { contract: Contract; label: string } | { why: string };

/**
 * The contract `record` was made against: `base` when given (a file, a URL or a release version); else the release of
 * its contract version in `releases` (by default those this package carries), when that document's SHA-256 is the
 * record's; else, for a pre-release (`1.1.0-dev.2a8ff6af`, as `npm run pack:*` versions unreleased changes), the
 * contract this package carries when it is that pre-release (`prereleaseContract`), or the last release below it, which
 * the pre-release was built on.
 */
export async function recordedContract(record: UsageRecord, options: { base?: string; releases?: string } = {}): Promise<RecordedContract> {
  if (options.base !== undefined) return { contract: await contractFrom(options.base, options.releases), label: options.base };
  const { version, sha256 } = record.contract;
  const releases = options.releases ?? PACKAGE_RELEASES;
  if (!RELEASE_VERSION.test(version)) return { why: `the contract its record was made against (version ${version}) is not a release` };
  const prerelease = version.includes('-');
  let contract: Contract | undefined;
  let missing = '';
  try {
    contract = await contractFrom(version, releases);
  } catch (error) {
    missing = (error as Error).message;
  }
  if (contract && sha256 !== undefined && contractIdentity(contract).sha256 === sha256) return { contract, label: `release ${version}` };
  if (prerelease) return (sha256 !== undefined && prereleaseContract(version, sha256)) || (await releaseBelow(version, releases));
  if (!contract) return { why: `the contract its record was made against (${version}) is not among the releases (${missing})` };
  if (sha256 === undefined) return { why: `its record names no SHA-256 of the contract it was made against (${version}), so release ${version} cannot be told to be it` };
  return { why: `the contract its record was made against (${version}, SHA-256 ${sha256.slice(0, 12)}…) is not release ${version} in ${releases}, whose document differs` };
}

/**
 * The contract this package carries as pre-release `version` (its info.version set to it, as `npm run pack:*` packs
 * it), when that document's SHA-256 is `sha256`: the exact contract a record of the pre-release was made against.
 */
function prereleaseContract(version: string, sha256: string): RecordedContract | undefined {
  const carried = loadContract(DEFAULT_CONTRACT).document;
  const contract = loadContract({ ...carried, info: { ...(carried.info as Record<string, unknown>), version } } as OpenApiDocument);
  return contractIdentity(contract).sha256 === sha256 ? { contract, label: `pre-release ${version}, the contract this package carries` } : undefined;
}

/** The last release in `releases` below pre-release `version` (`1.0.0` for `1.1.0-dev.…`): the release it was built on. */
async function releaseBelow(version: string, releases: string): Promise<RecordedContract> {
  const core = version.slice(0, version.indexOf('-'));
  const below = recordedVersions(isUrl(releases) ? '' : releases)
    .filter((release) => !release.includes('-') && release.localeCompare(core, 'en', { numeric: true }) < 0)
    .at(-1);
  if (!below) return { why: `the contract its record was made against (pre-release ${version}) is not the contract this package carries, and no release below ${core} is in ${releases} to judge it from` };
  return { contract: await contractFrom(below, releases), label: `release ${below}, the base of pre-release ${version}` };
}

/** The contract each record was made against (`recordedContract`), each looked up once for the records that share it. */
export async function recordedContracts(records: readonly UsageRecord[], options: { base?: string; releases?: string } = {}): Promise<RecordedContract[]> {
  const found = new Map<string, Promise<RecordedContract>>();
  return Promise.all(
    records.map((record) => {
      const key = options.base !== undefined ? '' : `${record.contract.version}\u0000${record.contract.sha256 ?? ''}`;
      if (!found.has(key)) found.set(key, recordedContract(record, options));
      return found.get(key)!;
    }),
  );
}

/** What can-i-deploy answers for one consumer and one contract. */
export interface DeployJudgement {
  verdict: ConsumerVerdict;
  /** How it was judged: as the change from the contract the record was made against, or against the contract alone (and why). */
  judgedBy: { change: string } | { record: string };
  /** What breaks it (each a line: operation, finding, rule, the use that shows it; or operation, what the contract no longer accepts or guarantees). */
  breaks: string[];
  /** What warns it. */
  warnings: string[];
  /** Where the record held too little to judge all of it (a version-1 record). */
  notes: string[];
}

/** The findings of each pair of contracts, worked out once per pair for every consumer made against the same one. */
const comparisons = new WeakMap<Contract, WeakMap<Contract, Finding[]>>();
function findingsOf(base: Contract, revision: Contract): Finding[] {
  let byRevision = comparisons.get(base);
  if (!byRevision) comparisons.set(base, (byRevision = new WeakMap()));
  let findings = byRevision.get(revision);
  if (!findings) byRevision.set(revision, (findings = compareDocuments(base.document, revision.document, { today: today() })));
  return findings;
}

/**
 * Can `record`'s consumer deploy against `contract`? The record judged against the contract alone; and where the
 * contract it was made against is known (`recorded`), the change from it, with what the record alone shows of the
 * operations the change breaks nothing in.
 */
export function judgeDeploy(record: UsageRecord, contract: Contract, recorded: RecordedContract): DeployJudgement {
  const known = !('why' in recorded);
  const findings = known ? findingsOf(recorded.contract, contract) : [];
  const [outcome] = judgeConsumerVerdicts(findings, [record], { revision: contract, ...(known ? { base: recorded.contract } : {}), against: 'the contract' }).consumers;
  return {
    verdict: known ? outcome!.verdict : outcome!.breaks.length > 0 ? 'breaks' : 'untouched',
    judgedBy: known ? { change: recorded.label } : { record: recorded.why },
    breaks: outcome!.breaks.map((use) => use.line),
    warnings: known ? outcome!.warnings.map((use) => use.line) : [],
    notes: outcome!.notes,
  };
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** A cell of the table, or the tail of the consumer's summary line: `✓`, `✓ 1 warning`, `✗ 2 breaks`, `✓ (record alone)`. */
export function deployCell(judged: DeployJudgement): string {
  if ('record' in judged.judgedBy) return judged.breaks.length === 0 ? '✓ (record alone)' : `✗ ${count(judged.breaks.length, 'break')} (record alone)`;
  const warnings = judged.warnings.length > 0 ? count(judged.warnings.length, 'warning') : '';
  if (judged.breaks.length === 0) return warnings ? `✓ ${warnings}` : '✓';
  return `✗ ${count(judged.breaks.length, 'break')}${warnings ? `, ${warnings}` : ''}`;
}

/** How a judgement was made, in words: `(the change from release 1.0.0, which its record was made against)`, or why the record was judged alone. */
export function judgedByText(judged: DeployJudgement): string {
  return 'change' in judged.judgedBy
    ? `the change from ${judged.judgedBy.change}, which its record was made against`
    : `${judged.judgedBy.record}: its record judged against the contract alone, whether it still accepts what the consumer sent and guarantees what it read (--base names the contract it was made against; a change to an enumeration it reads can only be told with it)`;
}

/**
 * The consumers × contracts table, in Markdown (each cell `deployCell`, and a note under it for each consumer whose
 * record was judged alone, or held too little to judge all of it), and as JSON: each consumer's judgement against each
 * contract; `against` gives, for a consumer known by Pact files only, its record read against each contract.
 */
export function deployTable(
  records: UsageRecord[],
  contracts: { label: string; contract: Contract }[],
  recorded: RecordedContract[],
  against: ReadonlyMap<number, (contract: Contract) => UsageRecord> = new Map(),
): { markdown: string; json: Record<string, Record<string, DeployJudgement>> } {
  const json: Record<string, Record<string, DeployJudgement>> = {};
  const notes: string[] = [];
  const rows = records.map((record, index) => {
    const cells = contracts.map(({ label, contract }) => {
      // A consumer known by Pact files only: its pacts read against each contract in turn.
      const judged = judgeDeploy(against.get(index)?.(contract) ?? record, contract, recorded[index]!);
      (json[record.consumer.name] ??= {})[label] = judged;
      return deployCell(judged);
    });
    const based = recorded[index]!;
    if ('why' in based) notes.push(`- ${record.consumer.name}: ${judgedByText({ verdict: 'untouched', judgedBy: { record: based.why }, breaks: [], warnings: [], notes: [] })}.`);
    const first = json[record.consumer.name] ? Object.values(json[record.consumer.name]!)[0] : undefined;
    for (const note of first?.notes ?? []) notes.push(`- ${note}.`);
    return `| ${record.consumer.name}${record.consumer.version ? ` ${record.consumer.version}` : ''} | ${cells.join(' | ')} |`;
  });
  const header = `| Consumer | ${contracts.map(({ label }) => label).join(' | ')} |\n|---|${contracts.map(() => '---|').join('')}`;
  return { markdown: `${header}\n${rows.join('\n')}\n${notes.length > 0 ? `\nJudged with less:\n\n${notes.join('\n')}\n` : ''}`, json };
}

// ---- the consumers a can-i-deploy names: records and Pact files ------------------------------------------------

/** The consumers of can-i-deploy's sources: their records, the contract each was made against, and for a consumer known by pacts only, its record read against each contract. */
export interface DeployConsumers {
  records: UsageRecord[];
  recorded: RecordedContract[];
  against: Map<number, (contract: Contract) => UsageRecord>;
}

/** The contracts a pact may have been written against, newest first: the contract this package carries (unless other releases are named), then each release. */
function pactCandidates(releases: string | undefined): { file: string; label: string }[] {
  const folder = releases ?? PACKAGE_RELEASES;
  const released = isUrl(folder) ? [] : recordedVersions(folder).reverse().map((version) => ({ file: path.join(folder, version, 'openapi.yaml'), label: `release ${version}` }));
  return [...(releases === undefined ? [{ file: DEFAULT_CONTRACT, label: 'the contract this package carries' }] : []), ...released];
}

/**
 * The contract the Pact files of one consumer were written against, as far as this package can tell (a pact names
 * none): the newest of `pactCandidates` that every interaction matches and that its pacts, read against it as
 * records, break nowhere in. A contract whose document is one of those asked about is no candidate: a pact read
 * against a contract always holds against it, so the change to it would never be seen. Undefined when none holds.
 */
async function writtenAgainst(group: readonly NamedPact[], asked: readonly Contract[], releases: string | undefined): Promise<{ contract: Contract; label: string } | undefined> {
  const askedDigests = new Set(asked.map((contract) => contractIdentity(contract).sha256));
  for (const candidate of pactCandidates(releases)) {
    const contract = loadContract(candidate.file);
    if (askedDigests.has(contractIdentity(contract).sha256)) continue;
    const read = group.map((entry) => ({ ...pactRecord(entry.pact, contract), source: entry.source }));
    if (read.some((each) => each.unmatched.length > 0)) continue;
    const [record] = mergeByConsumer(read.map(({ record, source }) => ({ record, source })));
    if (record && holdsAgainst(record, contract)) return { contract, label: `${candidate.label}, the newest its Pact files hold against (a pact names no contract)` };
  }
  return undefined;
}

/**
 * The records of `sources`, those of one consumer merged, with the contract each was made against. A Pact file is
 * read against `--base` where it is given; else, of a consumer whose records are among the sources too, against the
 * contract those were made against (which must be found); else against the release it was written against, as far as
 * the releases tell (`writtenAgainst`), and judged as the change from it, as a record is; else against each contract
 * asked about, and judged against it alone.
 */
export async function consumersOf(
  sources: string[],
  contracts: { label: string; contract: Contract }[],
  options: { base?: string; releases?: string },
  merged?: (consumer: string, sources: string[]) => void,
  note: (line: string) => void = () => {},
): Promise<DeployConsumers> {
  const entries = await readUsageSources(sources);
  const pacts = entries.filter(isNamedPact);
  if (options.base !== undefined || pacts.length === 0) {
    const base = pacts.length > 0 ? await contractFrom(options.base!, options.releases) : undefined;
    const records = mergeByConsumer(withPactsRead(entries, base!, note), merged);
    return { records, recorded: await recordedContracts(records, options), against: new Map() };
  }
  const natives = entries.filter((entry): entry is NamedUsage => !isNamedPact(entry));
  const records = mergeByConsumer(natives, merged);
  const recorded = await recordedContracts(records, options);
  const against = new Map<number, (contract: Contract) => UsageRecord>();
  const byConsumer = new Map<string, NamedPact[]>();
  for (const entry of pacts) byConsumer.set(entry.pact.consumer, [...(byConsumer.get(entry.pact.consumer) ?? []), entry]);
  const told = new Set<string>();
  const once = (label: string) => (line: string) => {
    const text = contracts.length > 1 ? `${line} (read against ${label})` : line;
    if (!told.has(text)) note(text);
    told.add(text);
  };
  for (const [consumer, group] of byConsumer) {
    const index = records.findIndex((record) => record.consumer.name === consumer);
    if (index >= 0) {
      const found = recorded[index]!;
      if ('why' in found) {
        throw new UsageRecordError(group[0]!.source, `a Pact file of ${consumer}, whose usage records are among the sources too, is read against the contract they were made against, and ${found.why}: give it with --base`);
      }
      const read = withPactsRead(group, found.contract, once(found.label));
      const sourcesOf = [...natives.filter((entry) => entry.record.consumer.name === consumer).map((entry) => entry.source), ...group.map((entry) => entry.source)];
      records[index] = mergeNamedUsage({ record: records[index]!, source: sourcesOf[0]! }, ...read);
      merged?.(consumer, sourcesOf);
      continue;
    }
    const written = await writtenAgainst(group, contracts.map((each) => each.contract), options.releases);
    if (written) {
      records.push(mergeByConsumer(withPactsRead(group, written.contract, once(written.label)), merged)[0]!);
      recorded.push(written);
      continue;
    }
    const cache = new Map<Contract, UsageRecord>();
    const readAgainst = (contract: Contract) => {
      let record = cache.get(contract);
      if (!record) {
        const label = contracts.find((each) => each.contract === contract)?.label ?? 'the contract';
        cache.set(contract, (record = mergeByConsumer(withPactsRead(group, contract, once(label)), group.length > 1 && cache.size === 0 ? merged : undefined)[0]!));
      }
      return record;
    };
    against.set(records.length, readAgainst);
    records.push(readAgainst(contracts[0]!.contract));
    recorded.push({ why: `it is known by Pact files only (${group.map((entry) => entry.source).join(', ')}), which name no contract its tests were written against, and they hold against no release (nor the contract this package carries) other than those asked about, so each is read against the contract asked about` });
  }
  return { records, recorded, against };
}
