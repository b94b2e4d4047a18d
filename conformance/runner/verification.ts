// can-i-deploy --verification: the conformance runner's report of an implementation (its JSON, `--report`, or its
// JUnit, `--junit`) read back: which contract it checked (the version and SHA-256 the report names) and whether the
// implementation conforms to it: every operation checked, none failing. The provider's table gets a row for it, and a
// contract can be deployed only where the consumers can deploy against it and the implementation conforms to it
// (docs/consumers.md, "can-i-deploy").
import { readFileSync } from 'node:fs';
import { contractIdentity } from '../records/consumer.ts';
import type { Contract } from '../contract/contract.ts';
import { CONTRACT_PROPERTIES } from './junit.ts';
import { isObject } from '../records/usage-format.ts';

/** What a runner's report says of the implementation, against which contract. */
export interface Verification {
  /** The report's file. */
  source: string;
  contract: { version: string; sha256: string };
  /** The operations of the report (excluded ones too). */
  operations: number;
  /** Each operation that failed a check, with the first failure: `getSpace: body-schema: …`. */
  failing: string[];
  /** Each operation the run did not check, and why: `deleteSpace: excluded`, `importSpaceContent: not exercised: …`. */
  unchecked: string[];
}

/** A report that cannot be used (unreadable, not the runner's, naming no contract or another): exit 2, naming it. */
export class VerificationError extends Error {}

/** The row's name in the table and the JSON: no consumer has it (npm refuses parentheses in a package's name). */
export const IMPLEMENTATION = '(implementation)';

const short = (sha256: string) => `${sha256.slice(0, 12)}…`;
const first = (lines: string[], more: number) => `${lines[0]}${more > 0 ? ` (and ${more} more)` : ''}`;

/** The verification in the JSON report `value` (the runner's `--report`). */
function fromJson(value: unknown, source: string): Verification {
  if (!isObject(value) || !isObject(value.summary) || !isObject(value.operations) || !Array.isArray(value.violations)) {
    throw new VerificationError(`${source}: not a report of the conformance runner (docs-conformance --report or --junit)`);
  }
  const contract = { version: value.contractVersion, sha256: value.contractSha256 };
  const violations = new Map<string, string[]>();
  for (const violation of value.violations as { operationId?: unknown; kind?: unknown; message?: unknown }[]) {
    const id = String(violation.operationId);
    violations.set(id, [...(violations.get(id) ?? []), `${String(violation.kind)}: ${String(violation.message)}`]);
  }
  const skipped = new Set(Array.isArray(value.skipped) ? value.skipped.map(String) : []);
  const reasons = isObject(value.notExercisedReasons) ? value.notExercisedReasons : {};
  const failing: string[] = [];
  const unchecked: string[] = [];
  for (const [id, operation] of Object.entries(value.operations)) {
    const state = isObject(operation) ? operation : {};
    const found = violations.get(id) ?? [];
    const reason = typeof reasons[id] === 'string' ? `: ${reasons[id]}` : '';
    if (state.excluded === true) unchecked.push(`${id}: excluded`);
    else if (found.length > 0) failing.push(`${id}: ${first(found, found.length - 1)}`);
    else if (state.exercised !== true && skipped.has(id)) unchecked.push(`${id}: not exercised${reason}`);
    else if (state.exercised !== true) failing.push(`${id}: not exercised${reason}`);
  }
  if (typeof value.interrupted === 'string') failing.push(`the run was interrupted by ${value.interrupted}`);
  return checked({ source, contract, operations: Object.keys(value.operations).length, failing, unchecked });
}

/** An attribute's value as the runner's JUnit writer escapes it (junit.ts, xmlText). */
const unescape = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
const attribute = (attributes: string, name: string) => {
  const found = new RegExp(`(?:^|\\s)${name}="([^"]*)"`).exec(attributes);
  return found ? unescape(found[1]!) : undefined;
};

/** The verification in the JUnit XML `text` (the runner's `--junit`): its test cases, by operation. */
function fromJunit(text: string, source: string): Verification {
  if (!/<testsuites[\s>]/.test(text)) throw new VerificationError(`${source}: not a report of the conformance runner (docs-conformance --report or --junit)`);
  const property = (name: string) => [...text.matchAll(/<property\s([^>]*?)\/?>/g)].map((match) => match[1]!).find((attributes) => attribute(attributes, 'name') === name);
  const contract = { version: attribute(property(CONTRACT_PROPERTIES.version) ?? '', 'value'), sha256: attribute(property(CONTRACT_PROPERTIES.sha256) ?? '', 'value') };
  const failures = new Map<string, string[]>();
  const skips = new Map<string, string>();
  const operations = new Set<string>();
  for (const match of text.matchAll(/<testcase\s([^>]*?)(?:\/>|>([^]*?)<\/testcase>)/g)) {
    const id = attribute(match[1]!, 'name') ?? '';
    const check = (attribute(match[1]!, 'classname') ?? '').replace(/^docs-conformance\./, '');
    operations.add(id);
    const failure = /<failure\s([^>]*?)\/?>/.exec(match[2] ?? '');
    const skip = /<skipped\s([^>]*?)\/?>/.exec(match[2] ?? '');
    if (failure) failures.set(id, [...(failures.get(id) ?? []), `${check}: ${attribute(failure[1]!, 'message') ?? 'failed'}`]);
    else if (skip) skips.set(id, attribute(skip[1]!, 'message') ?? 'skipped');
  }
  const failing = [...failures].map(([id, found]) => `${id}: ${first(found, found.length - 1)}`);
  const unchecked = [...skips].filter(([id]) => !failures.has(id)).map(([id, why]) => `${id}: ${why}`);
  return checked({ source, contract, operations: operations.size, failing, unchecked });
}

/** The verification, once it names its contract (a report of an older runner does not). */
function checked(verification: Omit<Verification, 'contract'> & { contract: { version: unknown; sha256: unknown } }): Verification {
  const { version, sha256 } = verification.contract;
  if (typeof version !== 'string' || typeof sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(sha256)) {
    throw new VerificationError(`${verification.source}: the report does not name the contract it checked (its version and SHA-256): write it again with this docs-conformance`);
  }
  return { ...verification, contract: { version, sha256 } };
}

/** The runner's report in `file`: its JSON (`--report`) or its JUnit XML (`--junit`), by what the file holds. */
export function readVerification(file: string): Verification {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new VerificationError(`${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  if (text.trimStart().startsWith('<')) return fromJunit(text, file);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new VerificationError(`${file}: neither the runner's JSON report nor its JUnit XML (${(error as Error).message})`);
  }
  return fromJson(value, file);
}

/**
 * The reports in `files`, each matched to the contracts it checked (by version and SHA-256), by contract label. A
 * report of none of `contracts` (another version, or another document of one) is a VerificationError naming it.
 */
export function verificationsOf(files: string[], contracts: { label: string; contract: Contract }[]): Map<string, Verification[]> {
  const identities = contracts.map(({ label, contract }) => ({ label, ...contractIdentity(contract) }));
  const byContract = new Map<string, Verification[]>(contracts.map(({ label }) => [label, []]));
  for (const verification of files.map(readVerification)) {
    const { version, sha256 } = verification.contract;
    const matching = identities.filter((identity) => identity.version === version && identity.sha256 === sha256);
    if (matching.length === 0) {
      const asked = identities.map((identity) => `${identity.label} is ${identity.version} (SHA-256 ${short(identity.sha256!)})`).join('; ');
      throw new VerificationError(`${verification.source}: a report of contract ${version} (SHA-256 ${short(sha256)}), not of a contract asked about: ${asked}`);
    }
    for (const { label } of matching) byContract.get(label)!.push(verification);
  }
  return byContract;
}

/** The implementation's cell for a contract and what keeps it from conforming (empty: it conforms). */
function implementationCell(verifications: Verification[]): { cell: string; problems: string[] } {
  if (verifications.length === 0) return { cell: '✗ not verified', problems: ['no --verification report of this contract'] };
  const failing = [...new Set(verifications.flatMap((verification) => verification.failing))];
  const unchecked = [...new Set(verifications.flatMap((verification) => verification.unchecked))];
  if (failing.length === 0 && unchecked.length === 0) return { cell: `✓ conforms (${Math.max(...verifications.map((verification) => verification.operations))} operations)`, problems: [] };
  const parts = [...(failing.length > 0 ? [`${failing.length} failing`] : []), ...(unchecked.length > 0 ? [`${unchecked.length} not checked`] : [])];
  return { cell: `✗ ${parts.join(', ')}`, problems: [...failing, ...unchecked.map((line) => `not checked: ${line}`)] };
}

/**
 * The provider's table (deployTable's Markdown and JSON) with the implementation's row after the consumers': for each
 * contract, whether the implementation conforms to it. `ok`: it conforms to every contract.
 */
export function withImplementation<J extends Record<string, Record<string, unknown>>>(
  table: { markdown: string; json: J },
  verified: Map<string, Verification[]>,
): { markdown: string; json: J & Record<typeof IMPLEMENTATION, Record<string, string[]>>; ok: boolean } {
  const cells = [...verified].map(([label, verifications]) => ({ label, ...implementationCell(verifications) }));
  const row = `| ${IMPLEMENTATION} | ${cells.map((cell) => cell.cell).join(' | ')} |`;
  const lines = table.markdown.split('\n');
  const last = lines.length - 1 - [...lines].reverse().findIndex((line) => line.startsWith('|'));
  const markdown = [...lines.slice(0, last + 1), row, ...lines.slice(last + 1)].join('\n');
  const json = { ...table.json, [IMPLEMENTATION]: Object.fromEntries(cells.map((cell) => [cell.label, cell.problems])) };
  return { markdown, json, ok: cells.every((cell) => cell.problems.length === 0) };
}
