// The promise a version range makes (`^1` takes every minor and patch release of major 1): a release that is not a new
// major may hold a declared break only when every known consumer it breaks has accepted it (`accepted-by` in its
// declaration). The known consumers are the records tspconfig.yaml's breaking-change rule names (`consumers/`), read by
// the one reader and judged by the one owner of a consumer's verdict (conformance/judgement/verdict.ts). `npm run
// release` refuses a release that breaks it; `npm run check:breaking` fails (breaking/README.md, "Known consumers").
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CORE_SCHEMA, load } from 'js-yaml';
import type { Finding } from '../compare/index.ts';
import { loadContract, type OpenApiDocument } from '../conformance/contract/contract.ts';
import { consumerName, judgeConsumerVerdicts } from '../conformance/judgement/verdict.ts';
import { readConsumers } from '../conformance/records/usage-sources.ts';
import type { Declaration, Verdict } from './gate.ts';

/** The contract's linter rule whose `consumers` option names the known consumers. */
const BREAKING_RULE = 'docs-platform-spec-rules/breaking-change';

/**
 * The sources of the known consumers: the `consumers` option of the breaking-change rule in `root`'s tspconfig.yaml
 * (folders, files, http(s) URLs), a local one resolved against `root`; none when it names none.
 */
export function contractConsumerSources(root: string): string[] {
  const file = path.join(root, 'tspconfig.yaml');
  if (!existsSync(file)) return [];
  const config = load(readFileSync(file, 'utf8'), { schema: CORE_SCHEMA }) as { linter?: { enable?: Record<string, { consumers?: unknown } | boolean> } } | undefined;
  const option = config?.linter?.enable?.[BREAKING_RULE];
  const sources = typeof option === 'object' && Array.isArray(option.consumers) ? option.consumers : [];
  return sources.filter((source): source is string => typeof source === 'string').map((source) => (/^https?:\/\//.test(source) ? source : path.resolve(root, source)));
}

/** A known consumer a declared break breaks, which its declaration does not name as having accepted it. */
export interface Unaccepted {
  /** The consumer's name, as `accepted-by` names it. */
  name: string;
  /** `search-service 2.1.0 (getSpace: read /revision)`: who, and the use that shows it. */
  shown: string;
  declaration: Declaration;
  finding: Finding;
}

export interface PromiseCheck {
  /** The known consumers read (none: nothing to keep). */
  consumers: number;
  unaccepted: Unaccepted[];
  /** A source of consumers that could not be read: whether the promise holds is then not known. */
  unread: string[];
}

/**
 * The known consumers of the repository at `root` each declared break of `verdict` (base → revision) breaks and its
 * declaration does not accept. Nothing to check for a new major (`verdict.majorBump`) or without declared breaks.
 */
export async function checkPromise(root: string, verdict: Verdict, base: Record<string, unknown>, revision: Record<string, unknown>): Promise<PromiseCheck> {
  const declared = verdict.judged.filter((entry) => entry.allowedBy === 'declaration' && entry.declaration);
  const sources = contractConsumerSources(root);
  if (verdict.majorBump || declared.length === 0 || sources.length === 0) return { consumers: 0, unaccepted: [], unread: [] };
  const contracts = { base: loadContract(structuredClone(base) as OpenApiDocument), revision: loadContract(structuredClone(revision) as OpenApiDocument) };
  const { records, unread } = await readConsumers(sources, { base: contracts.base });
  const judged = judgeConsumerVerdicts(
    declared.map((entry) => entry.finding),
    records,
    contracts,
  );
  const names = new Map(records.map((record) => [consumerName(record), record.consumer.name]));
  const unaccepted = declared.flatMap((entry) =>
    judged.byFinding
      .get(entry.finding)!
      .filter((hit) => hit.verdict === 'breaks')
      .map((hit) => ({ name: names.get(hit.consumer) ?? hit.consumer, shown: `${hit.consumer} (${hit.operationId}: ${hit.evidence})`, declaration: entry.declaration!, finding: entry.finding }))
      .filter((hit) => !(hit.declaration.acceptedBy ?? []).includes(hit.name)),
  );
  return { consumers: records.length, unaccepted, unread };
}

/**
 * What breaks the promise, one line per declaration: the break, the consumers it breaks that have not accepted it, and
 * the `accepted-by` to add once they have; a source not read, named.
 */
export function promiseProblems(check: PromiseCheck, declarationsFile: string): string[] {
  const byDeclaration = new Map<Declaration, Unaccepted[]>();
  for (const hit of check.unaccepted) byDeclaration.set(hit.declaration, [...(byDeclaration.get(hit.declaration) ?? []), hit]);
  const problems = [...byDeclaration].map(([declaration, hits]) => {
    const owner = declaration.operation ?? declaration.schema;
    const accepted = [...new Set([...(declaration.acceptedBy ?? []), ...hits.map((hit) => hit.name)])];
    return (
      `a release that is not a new major may not hold the declared break ${declaration.rule}${owner ? ` ${owner}` : ''} ${declaration.path}: ` +
      `it breaks ${[...new Set(hits.map((hit) => hit.shown))].join(', ')}, a known consumer that has not accepted it. ` +
      `Once ${hits.length === 1 ? 'it has' : 'they have'}, add to that declaration in ${declarationsFile}: \`accepted-by: [${accepted.join(', ')}]\`; or release it as a new major.`
    );
  });
  for (const line of check.unread) problems.push(`whether a declared break breaks a known consumer is not known: a source of consumers was not read: ${line}`);
  return problems;
}
