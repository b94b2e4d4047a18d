// The gate as the contract's linter rule runs it on every compile (spec-rules/rules/breaking-change.js): a document
// compared with the last release, judged against spec/breaking-changes.yaml and the versions as `check:breaking` judges
// it, each finding with the consumers it breaks or warns, and each consumer's verdict, by the one owner of it
// (conformance/judgement/verdict.ts). What does not change between two compiles (the release, the declarations, the
// consumers' sources) is read once and kept while its files are the same.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { compareDocuments, type Finding } from '../compare/index.ts';
import { type Contract, loadContract, type OpenApiDocument } from '../conformance/contract/contract.ts';
import { contractIdentity } from '../conformance/records/consumer.ts';
import { consumersSentence, type FindingConsumer, judgeConsumerVerdicts } from '../conformance/judgement/verdict.ts';
import { type ReadConsumers, readConsumers, URL_WAIT_MS } from '../conformance/records/usage-sources.ts';
import { SCHEMA_DIALECT } from './dialect.js';
import { listReleases, locations, parseYaml, readDeclarations, versionOf } from './files.ts';
import { evaluateGate, type Judged } from './gate.ts';
import { consequence, plural, severityLabel, sharedFindings, showOperations, summarizeOperations } from './report.ts';

/** A finding as the rule reports it: what the gate makes of it, in the gate's words, with its consumers. */
export interface LiveFinding {
  finding: Finding;
  /** `fails`: the gate fails on it (a warning of the rule); the others are information. */
  outcome: 'fails' | 'declared' | 'major-version' | 'warning';
  /** `BREAKING (client) request-property-enum-value-removed: …`, the gate's label, rule, message and operations. */
  text: string;
  /** Who it breaks and what to do (the gate's `consequence`). */
  consequence: string;
  consumers: FindingConsumer[];
  /** The consumers it breaks and warns in a sentence (the gate's), or that it breaks none when it fails and sources are configured. */
  consumersText: string;
}

export interface LiveCheck {
  /** The release compared with (none recorded: nothing compared). */
  release?: string;
  findings: LiveFinding[];
  /** What could not be read: the declarations, a consumers' source (each named: the compile reports it as an error of the rule). */
  problems: string[];
  /** A consumer's break that no finding shows (its record judged against the revision alone), not failed already by the release: `billing-svc 2.3.0: getSpace: …`. */
  consumerBreaks: string[];
}

/** A value kept while the files it was read from keep their size and time. */
interface Kept<T> {
  stamp: string;
  value: T;
}

/** The size and time of each file (`-` for one that is not there). */
const stampOf = (files: readonly string[]) =>
  files
    .map((file) => {
      const stats = statSync(file, { throwIfNoEntry: false });
      return `${file}:${stats ? `${stats.size}:${stats.mtimeMs}` : '-'}`;
    })
    .join('\n');

/** The value kept under `key` while `stamp` is the same, else `read()` (kept in its place). */
function kept<T>(cache: Map<string, Kept<T>>, key: string, stamp: string, read: () => T): T {
  const known = cache.get(key);
  if (known?.stamp === stamp) return known.value;
  const value = read();
  cache.set(key, { stamp, value });
  return value;
}

const releases = new Map<string, Kept<Record<string, unknown>>>();
const baseContracts = new Map<string, Kept<Contract>>();
const declarationFiles = new Map<string, Kept<ReturnType<typeof readDeclarations>>>();
const recordSets = new Map<string, Kept<Promise<ReadConsumers>>>();

/** How long records fetched from a URL are kept before they are fetched again. */
export const URL_RECORDS_KEPT_MS = 5 * 60_000;

/** The files a local source of records names: the `.json` files of a folder, or the file. */
function recordFiles(source: string): string[] {
  if (statSync(source, { throwIfNoEntry: false })?.isDirectory()) return readdirSync(source).filter((name) => name.endsWith('.json')).sort().map((name) => path.join(source, name));
  return [source];
}

/**
 * The consumers `sources` name (folders, files, URLs; records of every version and Pact files, read against `base`),
 * by the one reader; kept while their files are the same (a URL's for URL_RECORDS_KEPT_MS). A URL is given up after
 * URL_WAIT_MS, so that a keystroke's compile is not held, and named as unread.
 */
function consumersOf(sources: readonly string[], base: Contract): Promise<ReadConsumers> {
  if (sources.length === 0) return Promise.resolve({ records: [], unread: [] });
  const local = sources.filter((source) => !/^https?:\/\//.test(source));
  const remote = local.length < sources.length ? `\n@${Math.floor(Date.now() / URL_RECORDS_KEPT_MS)}` : '';
  // The folder's own stamp too: a record added or removed changes it; and the release, which the pacts are read against.
  const key = sources.join('\n');
  const stamp = stampOf([...local, ...local.flatMap(recordFiles)]) + remote + `\n${contractIdentity(base).sha256}`;
  const read = kept(recordSets, key, stamp, () => readConsumers(sources, { base, waitMs: URL_WAIT_MS }));
  // What was unread is read again next time.
  void read.then(({ unread }) => unread.length > 0 && recordSets.delete(key));
  return read;
}

const OUTCOME = (entry: Judged): LiveFinding['outcome'] | undefined => {
  if (entry.fails) return 'fails';
  if (entry.allowedBy === 'declaration') return 'declared';
  if (entry.allowedBy === 'major-version') return 'major-version';
  return entry.finding.severity === 'warning' || entry.finding.severity.startsWith('breaking') ? 'warning' : undefined;
};

/** Whether the repository at `root` has a release to compare with. */
export const hasRelease = (root: string): boolean => listReleases(root).length > 0;

/**
 * The findings of `revision` (the document the compile makes, as an object) against the last release of the repository
 * at `root`, as the gate judges them, with the consumers of the records `consumerSources` names: every finding the gate
 * fails on or lets pass as declared or by the major version; a warning only when it breaks or warns a known consumer.
 */
export async function checkAgainstRelease(root: string, revision: Record<string, unknown>, consumerSources: readonly string[] = []): Promise<LiveCheck> {
  const release = listReleases(root).at(-1);
  if (!release) return { findings: [], problems: [], consumerBreaks: [] };
  const base = kept(releases, release.document, stampOf([release.document]), () => parseYaml(readFileSync(release.document, 'utf8'), root) as Record<string, unknown>);
  const declarationsFile = locations(root).declarations;
  const declared = kept(declarationFiles, declarationsFile, stampOf([declarationsFile]), () => readDeclarations(declarationsFile));
  const problems = declared.problems.map((problem) => `spec/breaking-changes.yaml: ${problem}`);
  const baseContract = kept(baseContracts, release.document, stampOf([release.document]), () => loadContract(structuredClone(base) as OpenApiDocument));
  const { records, unread } = await consumersOf(
    consumerSources.map((source) => (/^https?:\/\//.test(source) ? source : path.resolve(root, source))),
    baseContract,
  );
  problems.push(...unread.map((line) => `a consumers' source was not read: ${line}`));
  // As the compile writes it (spec-rules/emit.js): the emitter has no option for the dialect.
  if (revision.jsonSchemaDialect === undefined) revision = { ...revision, jsonSchemaDialect: SCHEMA_DIALECT };
  const findings = compareDocuments(base, revision);
  const verdict = evaluateGate(findings, { baseVersion: versionOf(base), revisionVersion: versionOf(revision), declarations: declared.declarations });
  const chosen = verdict.judged.filter((entry) => OUTCOME(entry) !== undefined);
  const judged = judgeConsumerVerdicts(
    chosen.map((entry) => entry.finding),
    records,
    records.length > 0 ? { revision: loadContract(revision as OpenApiDocument), base: baseContract } : {},
  );
  const more = `npm run check:breaking -- ${consumerSources.map((source) => `--consumers ${source}`).join(' ')} lists them all`;
  const live = chosen.flatMap((entry): LiveFinding[] => {
    const outcome = OUTCOME(entry)!;
    const consumers = judged.byFinding.get(entry.finding)!;
    if (outcome === 'warning' && consumers.length === 0) return [];
    const { finding } = entry;
    const consumersText = consumersSentence(consumers, consumerSources.length > 0 && outcome === 'fails', { unread: unread.length > 0, more });
    return [{ finding, outcome, consumers, consumersText, consequence: consequence(finding), text: `${severityLabel(entry)} ${finding.rule}: ${finding.message} (${showOperations(finding).replace(/ {2}/g, ' ')})` }];
  });
  const consumerBreaks = judged.consumers.flatMap((outcome) => outcome.breaks.filter((use) => use.foundBy === 'record' && use.baseAlreadyFailed !== true).map((use) => `${outcome.consumer}: ${use.line}`));
  return { release: release.version, findings: live, problems, consumerBreaks };
}

/** A deprecated operation, parameter or field of the document, and the known consumers that still call, send or read it. */
export interface DeprecatedUse {
  /** The deprecation as the comparison finds it (`operation-deprecated`, `response-property-deprecated`…): where it is. */
  finding: Finding;
  consumers: FindingConsumer[];
  /** Those consumers in the gate's sentence (`Warning for consumers: reader-app 1.4.0 (getTeam: calls it).`). */
  consumersText: string;
}

/** `document` without its `deprecated: true` marks (examples and extensions, which are data, left as they are). */
function withoutDeprecations(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutDeprecations);
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key, value]) => !(key === 'deprecated' && value === true))
      .map(([key, value]) => [key, key === 'example' || key === 'examples' || key.startsWith('x-') ? value : withoutDeprecations(value)]),
  );
}

/**
 * The deprecated operations, parameters and fields of `revision` that a consumer of the records `consumerSources`
 * names still uses, each with those consumers: the deprecations are what the comparison finds between the document
 * without its deprecations and the document, judged for each record as the gate judges a deprecation (it warns a
 * consumer that uses it). Information for the author of the deprecation; nothing fails on it.
 */
export async function deprecatedUses(root: string, revision: Record<string, unknown>, consumerSources: readonly string[]): Promise<{ uses: DeprecatedUse[]; problems: string[] }> {
  const contract = loadContract(structuredClone(revision) as OpenApiDocument);
  const { records, unread } = await consumersOf(consumerSources.map((source) => (/^https?:\/\//.test(source) ? source : path.resolve(root, source))), contract);
  const problems = unread.map((line) => `a consumers' source was not read: ${line}`);
  if (records.length === 0) return { uses: [], problems };
  const deprecations = compareDocuments(withoutDeprecations(revision) as Record<string, unknown>, revision).filter((finding) => finding.rule.endsWith('-deprecated'));
  const { byFinding } = judgeConsumerVerdicts(deprecations, records, { revision: contract });
  const uses = deprecations.map((finding) => ({ finding, consumers: byFinding.get(finding) ?? [] })).filter((use) => use.consumers.length > 0);
  return { uses: uses.map((use) => ({ ...use, consumersText: consumersSentence(use.consumers, false) })), problems };
}

/**
 * What a compile prints of a check, loud where it matters and quiet on what was decided: each failing change once,
 * then the warnings that touch a known consumer (a change made in many operations one entry, its operations counted,
 * as the gate's text report groups it: report.ts, `sharedFindings`), and the decided ones (declared, allowed by the
 * major version) as one line each with their count and the command that lists them.
 */
export interface LiveReport {
  /** The changes the gate fails on, one entry each, its text led by `BREAKING, undeclared (client)`. */
  failing: LiveFinding[];
  /** The warnings that break or warn a known consumer, one entry per change (made in two operations or more, one). */
  warnings: LiveFinding[];
  /** `declared: 19 breaking changes since release 1.0.0 (npm run check:breaking lists them)`, and the like for the major version. */
  decided: string[];
}

/** The gate's judgement of a finding of the check, as the grouping reads it. */
const judgedOf = (entry: LiveFinding): Judged => ({
  finding: entry.finding,
  fails: entry.outcome === 'fails',
  ...(entry.outcome === 'declared' ? { allowedBy: 'declaration' as const } : entry.outcome === 'major-version' ? { allowedBy: 'major-version' as const } : {}),
});

/** `BREAKING (client)` → `BREAKING, undeclared (client)`: what fails reads unlike anything decided from its first word. */
const undeclaredLabel = (label: string) => label.replace(/^BREAKING/, 'BREAKING, undeclared');

/**
 * The findings as changes: one made in many operations is one entry (the first's place, every consumer, the
 * operations counted); `at`: how many make one (the gate's count by default).
 */
function changesOf(entries: readonly LiveFinding[], at?: number): LiveFinding[] {
  const { shared } = sharedFindings(entries, judgedOf, at);
  const groupOf = new Map(shared.flatMap((group) => group.map((entry) => [entry, group] as const)));
  return entries.flatMap((entry): LiveFinding[] => {
    const group = groupOf.get(entry) ?? [entry];
    if (group[0] !== entry) return [];
    const { finding } = entry;
    const label = severityLabel(judgedOf(entry));
    const operations = group.length > 1 ? summarizeOperations(group.flatMap((each) => each.finding.operations)) : showOperations(finding).replace(/ {2}/g, ' ');
    const text = `${entry.outcome === 'fails' ? undeclaredLabel(label) : label} ${finding.rule}: ${finding.message} (${operations})`;
    if (group.length === 1) return [{ ...entry, text }];
    // The group's consumers, each named once, in one sentence (the first finding's names only its own).
    const consumers = [...new Map(group.flatMap((each) => each.consumers).map((hit) => [`${hit.consumer}\0${hit.verdict}`, hit])).values()];
    return [{ ...entry, text, consumers, consumersText: consumersSentence(consumers, entry.outcome === 'fails' && entry.consumersText !== '') }];
  });
}

/** The most consumers a line of decided changes names; the others are counted. */
const NAMED = 3;

/** `declared: 19 breaking changes since release 1.0.0 (…)`: how many, the known consumers they break, where they are listed. */
function decidedLine(lead: string, entries: readonly LiveFinding[], release: string | undefined): string {
  const broken = [...new Set(entries.flatMap((entry) => entry.consumers.filter((hit) => hit.verdict === 'breaks').map((hit) => hit.consumer)))];
  const named = broken.length > NAMED ? `${broken.slice(0, NAMED).join(', ')} and ${broken.length - NAMED} more` : broken.join(', ');
  const since = release ? ` since release ${release}` : '';
  return `${lead}: ${plural(entries.length, 'breaking change')}${since}${broken.length > 0 ? `, breaking ${named}` : ''} (npm run check:breaking lists them)`;
}

/** The check as a compile prints it (`LiveReport`). */
export function liveReport(checked: LiveCheck): LiveReport {
  const of = (outcome: LiveFinding['outcome']) => checked.findings.filter((entry) => entry.outcome === outcome);
  const decided: string[] = [];
  if (of('declared').length > 0) decided.push(decidedLine('declared', of('declared'), checked.release));
  if (of('major-version').length > 0) decided.push(decidedLine('allowed by the major version', of('major-version'), checked.release));
  // The warnings are those that touch a known consumer, a few of each change's operations: each change one line.
  return { failing: changesOf(of('fails')), warnings: changesOf(of('warning'), 2), decided };
}
