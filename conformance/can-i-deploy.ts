// can-i-deploy (docs/consumers.md, "can-i-deploy"): whether a consumer can deploy against a contract. A record made
// against contract X, asked about contract Y, is judged as the change X → Y, by the judgement the gate makes
// (judgement.ts); X is found by the record's contract version and SHA-256 among the releases, or given. Where X cannot
// be found, it says so and falls back to the presence check: whether the contract still has, and still accepts,
// everything the record says was used (`canIDeploy`), each use gone named.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { load, CORE_SCHEMA } from 'js-yaml';
import { compareDocuments, type Finding } from '../compare/index.ts';
import { contractIdentity } from './consumer.ts';
import { type Contract, DEFAULT_CONTRACT, declaredResponse, loadContract, type OpenApiDocument, type Operation, type Schema } from './contract.ts';
import { judgeConsumer, type ConsumerVerdict, type Effect } from './judgement.ts';
import { alternatives, responseSchema } from './usage-fields.ts';
import { isObject, type OperationUsage, type UsageRecord } from './usage-format.ts';

/** The schemas found at `pointer` (`/items/*\/title`) below `schema`; empty when the contract no longer has it there. */
function schemasAt(contract: Contract, schema: Schema | undefined, pointer: string): Schema[] {
  let here: Schema[] = schema ? [schema] : [];
  for (const segment of pointer.split('/').slice(1).map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))) {
    const next: Schema[] = [];
    for (const each of here.flatMap((one) => alternatives(contract, one))) {
      if (segment === '*') {
        if (each.items) next.push(each.items as Schema);
        if (isObject(each.additionalProperties)) next.push(each.additionalProperties as Schema);
      } else if (each.properties?.[segment]) next.push(each.properties[segment]);
      else if (isObject(each.additionalProperties)) next.push(each.additionalProperties as Schema);
    }
    here = next;
    if (here.length === 0) return [];
  }
  return here;
}

/** Whether the schemas at a place still allow a value (an enumeration that lost it does not). */
function allows(contract: Contract, schemas: Schema[], value: string | number | boolean): boolean {
  const all = schemas.flatMap((schema) => alternatives(contract, schema));
  const enums = all.filter((schema) => Array.isArray(schema.enum) || 'const' in schema);
  if (enums.length === 0) return true;
  return enums.some((schema) => (Array.isArray(schema.enum) ? schema.enum.includes(value) : schema.const === value));
}

/** Each use of `usage` (an operation's) that `operation` no longer has or accepts, as a sentence. */
function missingUses(contract: Contract, operationId: string, operation: Operation | undefined, usage: OperationUsage): string[] {
  if (!operation) return [`${operationId}: the operation is gone`];
  const gone: string[] = [];
  for (const [key, used] of Object.entries(usage.parameters)) {
    const [place, name] = [key.slice(0, key.indexOf('.')), key.slice(key.indexOf('.') + 1)];
    const declared = operation.parameters.find((parameter) => parameter.in === place && parameter.name.toLowerCase() === name.toLowerCase());
    if (!declared) gone.push(`${operationId}: parameter ${key} is gone`);
    else for (const value of used.values ?? []) if (!allows(contract, [declared.schema ?? {}], value)) gone.push(`${operationId}: parameter ${key} no longer accepts ${JSON.stringify(value)}`);
  }
  for (const [pointer, used] of Object.entries(usage.body)) {
    const schemas = schemasAt(contract, operation.body?.schema, pointer);
    if (schemas.length === 0) gone.push(`${operationId}: request field ${pointer} is gone`);
    else for (const value of used.values ?? []) if (!allows(contract, schemas, value)) gone.push(`${operationId}: request field ${pointer} no longer accepts ${JSON.stringify(value)}`);
  }
  for (const [key, response] of Object.entries(usage.responses)) {
    const [status, mediaType] = key.split(' ') as [string, string | undefined];
    const declared = declaredResponse(operation, Number(status))?.response;
    if (!declared) {
      gone.push(`${operationId}: status ${status} is no longer declared`);
      continue;
    }
    if (!mediaType) continue;
    if (!declared.contentTypes.includes(mediaType)) {
      gone.push(`${operationId}: ${status} is no longer answered as ${mediaType}`);
      continue;
    }
    const schema = responseSchema(contract, operation, Number(status), mediaType);
    for (const pointer of response.read ?? response.present) {
      if (schemasAt(contract, schema, pointer).length === 0) gone.push(`${operationId}: response field ${pointer} (${status}) is gone`);
    }
  }
  return gone;
}

/** The presence check: every use of `record` that `contract` no longer has or accepts (empty: all are still there). */
export function canIDeploy(record: UsageRecord, contract: Contract): string[] {
  return Object.entries(record.operations).flatMap(([operationId, usage]) => missingUses(contract, operationId, contract.operations.get(operationId), usage));
}

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
 * record's.
 */
export async function recordedContract(record: UsageRecord, options: { base?: string; releases?: string } = {}): Promise<RecordedContract> {
  if (options.base !== undefined) return { contract: await contractFrom(options.base, options.releases), label: options.base };
  const { version, sha256 } = record.contract;
  const releases = options.releases ?? PACKAGE_RELEASES;
  if (!RELEASE_VERSION.test(version)) return { why: `the contract its record was made against (version ${version}) is not a release` };
  let contract: Contract;
  try {
    contract = await contractFrom(version, releases);
  } catch (error) {
    return { why: `the contract its record was made against (${version}) is not among the releases (${(error as Error).message})` };
  }
  if (sha256 === undefined) return { why: `its record names no SHA-256 of the contract it was made against (${version}), so release ${version} cannot be told to be it` };
  if (contractIdentity(contract).sha256 !== sha256) {
    return { why: `the contract its record was made against (${version}, SHA-256 ${sha256.slice(0, 12)}…) is not release ${version} in ${releases}, whose document differs` };
  }
  return { contract, label: `release ${version}` };
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
  /** How it was judged: as the change from the contract the record was made against, or by presence only (and why). */
  judgedBy: { change: string } | { presence: string };
  /** What breaks it (each a line: operation, finding, rule, the use that shows it), or, by presence, each use gone. */
  breaks: string[];
  /** What warns it. */
  warnings: string[];
}

const line = (effect: Effect) => `${effect.operationId}: ${effect.finding.message} (${effect.finding.rule}); ${effect.evidence}`;

/** The findings of each pair of contracts, worked out once per pair for every consumer made against the same one. */
const comparisons = new WeakMap<Contract, WeakMap<Contract, Finding[]>>();
function findingsOf(base: Contract, revision: Contract): Finding[] {
  let byRevision = comparisons.get(base);
  if (!byRevision) comparisons.set(base, (byRevision = new WeakMap()));
  let findings = byRevision.get(revision);
  if (!findings) byRevision.set(revision, (findings = compareDocuments(base.document, revision.document)));
  return findings;
}

/** Can `record`'s consumer deploy against `contract`? The change from `recorded`, or, where that is unknown, presence. */
export function judgeDeploy(record: UsageRecord, contract: Contract, recorded: RecordedContract): DeployJudgement {
  if ('why' in recorded) {
    const gone = canIDeploy(record, contract);
    return { verdict: gone.length > 0 ? 'breaks' : 'untouched', judgedBy: { presence: recorded.why }, breaks: gone, warnings: [] };
  }
  const judgement = judgeConsumer(findingsOf(recorded.contract, contract), record);
  return {
    verdict: judgement.verdict,
    judgedBy: { change: recorded.label },
    breaks: judgement.effects.filter((effect) => effect.verdict === 'breaks').map(line),
    warnings: judgement.effects.filter((effect) => effect.verdict === 'warns').map(line),
  };
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** A cell of the table, or the tail of the consumer's summary line: `✓`, `✓ 1 warning`, `✗ 2 breaks`, `✗ 1 use gone (presence only)`. */
export function deployCell(judged: DeployJudgement): string {
  if ('presence' in judged.judgedBy) return judged.breaks.length === 0 ? '✓ (presence only)' : `✗ ${count(judged.breaks.length, 'use')} gone (presence only)`;
  const warnings = judged.warnings.length > 0 ? count(judged.warnings.length, 'warning') : '';
  if (judged.breaks.length === 0) return warnings ? `✓ ${warnings}` : '✓';
  return `✗ ${count(judged.breaks.length, 'break')}${warnings ? `, ${warnings}` : ''}`;
}

/** How a judgement was made, in words: `(the change from release 1.0.0, which its record was made against)`, or the reason for presence only. */
export function judgedByText(judged: DeployJudgement): string {
  return 'change' in judged.judgedBy
    ? `the change from ${judged.judgedBy.change}, which its record was made against`
    : `${judged.judgedBy.presence}: judged by presence only, whether what it used is still there (--base names the contract it was made against)`;
}

/**
 * The consumers × contracts table, in Markdown (each cell `deployCell`, and a note under it for each consumer judged
 * by presence only), and as JSON: each consumer's judgement against each contract.
 */
export function deployTable(
  records: UsageRecord[],
  contracts: { label: string; contract: Contract }[],
  recorded: RecordedContract[],
): { markdown: string; json: Record<string, Record<string, DeployJudgement>> } {
  const json: Record<string, Record<string, DeployJudgement>> = {};
  const notes: string[] = [];
  const rows = records.map((record, index) => {
    const cells = contracts.map(({ label, contract }) => {
      const judged = judgeDeploy(record, contract, recorded[index]!);
      (json[record.consumer.name] ??= {})[label] = judged;
      return deployCell(judged);
    });
    const based = recorded[index]!;
    if ('why' in based) notes.push(`- ${record.consumer.name}: ${judgedByText({ verdict: 'untouched', judgedBy: { presence: based.why }, breaks: [], warnings: [] })}.`);
    return `| ${record.consumer.name}${record.consumer.version ? ` ${record.consumer.version}` : ''} | ${cells.join(' | ')} |`;
  });
  const header = `| Consumer | ${contracts.map(({ label }) => label).join(' | ')} |\n|---|${contracts.map(() => '---|').join('')}`;
  return { markdown: `${header}\n${rows.join('\n')}\n${notes.length > 0 ? `\nPresence only:\n\n${notes.join('\n')}\n` : ''}`, json };
}
