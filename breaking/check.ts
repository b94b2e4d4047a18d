// npm run check:breaking: compares what spec/ compiles to now (breaking/current.ts) with the last release (generated/releases/<highest>/), or
// any two OpenAPI 3.0/3.1 documents (a release, a file, or a document at a git ref), and fails on a breaking change
// that is neither declared in spec/breaking-changes.yaml nor allowed by a major version bump, or on a stale
// declaration. Prints text, JSON, Markdown, JUnit XML, SARIF or GitHub annotations. Exit 0 pass, 1 fail, 2 usage
// (bad option, unreadable document).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { compareDocuments, type Finding } from '../compare/index.ts';
import { today } from '../compare/removals.ts';
import { listReleases, locations, parseYaml, readDeclarations, relative, versionOf } from './files.ts';
import { FORMATS, formatGithub, formatJson, formatJunit, formatMarkdown, formatSarif, type Format } from './formats.ts';
import { FAIL_ON, evaluateGate, parseVersion, type FailOn } from './gate.ts';
import { documentLocator, specDirOf, specLocator, type Locator, type SourceLocation } from './locate.ts';
import { isObject } from '../compare/pointer.ts';
import { formatReport } from './report.ts';
import { currentDocument, NoCurrentDocument, staleNote } from './current.ts';
import { readConsumers } from '../conformance/records/usage-sources.ts';
import { judgeByConsumers } from './consumers.ts';
import { checkPromise, promiseProblems } from './promise.ts';
import { loadContract, type OpenApiDocument } from '../conformance/contract/contract.ts';

const USAGE = `Usage: npm run check:breaking -- [options]

Compares the contract (what spec/ compiles to now: generated/openapi.yaml when its stamp says it is current, else spec/
compiled in memory, said on stderr) with its last release (generated/releases/<version>/openapi.yaml), or
any two OpenAPI 3.0 or 3.1 documents, and prints every difference with its rule, severity, operations, JSON path,
who it breaks and what to do. Fails (exit 1) on a breaking change that is not declared in
spec/breaking-changes.yaml and not allowed by a higher major version, and on a stale declaration.
Rules and declarations: breaking/README.md.

Options:
  --base <version|ref|file>      compare with this release (1.0.0), the contract at a git ref (main, v1.0.0,
                                 HEAD~1, or ref:path/to/openapi.yaml), or a document file (YAML or JSON)
                                 (default: the last release)
  --revision <file|ref>          the document to check (default: what spec/ compiles to now)
  --declarations <file>          the declarations (default spec/breaking-changes.yaml when the revision is the
                                 contract, none otherwise)
  --as-version <version>         judge the revision as if its info.version were this (npm run release uses it)
  --fail-on <level>              client: fail only on what breaks clients (on the wire or in typed source);
                                 implementation (default): also on what breaks implementations;
                                 warning: also on warnings; consumers: only on what breaks a known consumer
                                 (--consumers), every finding still reported
  --consumers <folder|file|URL>  consumers' usage records or Pact files (docs/contract-consumers.md; a pact is read
                                 against the base), a folder of them, a file or an http(s) URL; repeat for more: each finding names the consumers it breaks, or says
                                 it breaks none, and those it warns, by what each record shows it sent, received
                                 and read (the judgement can-i-deploy makes); then each consumer's verdict, with
                                 its record judged against the revision alone too
  --format <format>              text (default), json, markdown, junit, sarif, or github (workflow annotations)
  --json                         the same as --format json
  -h, --help                     this text
`;

function fail(message: string): never {
  process.stderr.write(`check:breaking: ${message}\n\n${USAGE}`);
  process.exit(2);
}

let values: Record<string, string | boolean | string[] | undefined>;
try {
  ({ values } = parseArgs({
    options: {
      base: { type: 'string' },
      revision: { type: 'string' },
      declarations: { type: 'string' },
      'as-version': { type: 'string' },
      'fail-on': { type: 'string' },
      consumers: { type: 'string', multiple: true },
      format: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  }));
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}

const format = (values.json ? 'json' : (values.format ?? 'text')) as Format;
if (!FORMATS.includes(format)) fail(`--format ${String(values.format)}: expected one of ${FORMATS.join(', ')}`);
const failOnConsumers = values['fail-on'] === 'consumers';
const failOn = (failOnConsumers ? 'implementation' : (values['fail-on'] ?? 'implementation')) as FailOn;
if (!FAIL_ON.includes(failOn)) fail(`--fail-on ${String(values['fail-on'])}: expected one of ${[...FAIL_ON, 'consumers'].join(', ')}`);
const consumerSources = (values.consumers as string[] | undefined) ?? [];
if (failOnConsumers && consumerSources.length === 0) fail('--fail-on consumers needs --consumers: the usage records of the consumers');
/** Bad input, not a misuse of the options: one line naming the record, without the usage text. */
function badRecord(error: unknown): never {
  process.stderr.write(`check:breaking: --consumers: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
}
const where = locations();

/**
 * `BREAKING_TIMING=1`: where the command's time goes, on stderr, in milliseconds since the process started (`started`:
 * when the compiled command's launcher began, breaking/check.mjs).
 */
const timing = process.env.BREAKING_TIMING === '1';
const launched = (globalThis as { breakingLaunched?: number }).breakingLaunched;
const marks: [string, number][] = [...(launched === undefined ? [] : [['started', launched] as [string, number]]), ['loaded', performance.now()]];
const mark = (label: string) => {
  if (timing) marks.push([label, performance.now()]);
};

interface Source {
  document: Record<string, unknown>;
  /** For the report: `release 1.0.0`, `generated/openapi.yaml at main`, `their-openapi.json`. */
  label: string;
  /** The text and the file it is in, for locating lines (not for a document read from git). */
  text?: string;
  file?: string;
}

function parse(text: string, label: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (error) {
    fail(`${label} is not valid YAML or JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isObject(value)) fail(`${label} is not an OpenAPI document`);
  const version = value.openapi;
  if (typeof version !== 'string' || !/^3\.[01]\./.test(version)) {
    fail(`${label} is not an OpenAPI 3.0 or 3.1 document (openapi: ${JSON.stringify(version ?? value.swagger ?? null)})`);
  }
  return value;
}

/** A file as the report names it: relative to the repository, or absolute when it is elsewhere. */
function shown(file: string): string {
  const inside = relative(file);
  return inside.startsWith('..') ? file : inside;
}

function fromFile(file: string, label = shown(file)): Source {
  const text = readFileSync(file, 'utf8');
  return { document: parse(text, label), label, text, file: shown(file) };
}

/** A document at a git ref: `main` (the contract there), or `main:path/to/openapi.yaml`. */
function fromGit(reference: string): Source | undefined {
  const colon = reference.indexOf(':');
  const revision = colon > 0 ? reference.slice(0, colon) : reference;
  const file = colon > 0 ? reference.slice(colon + 1) : relative(where.document);
  const verified = spawnSync('git', ['rev-parse', '--verify', '--quiet', `${revision}^{commit}`], { cwd: where.root, encoding: 'utf8' });
  if (verified.error || verified.status !== 0) return undefined;
  const shown = spawnSync('git', ['show', `${revision}:${file}`], { cwd: where.root, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (shown.status !== 0) fail(`${file} is not in git at ${revision}: ${shown.stderr.trim()}`);
  const label = `${file} at ${revision}`;
  return { document: parse(shown.stdout, label), label };
}

/** A release version, a file, or a git ref, in that order. */
function resolve(value: string, option: string): Source {
  if (parseVersion(value)) {
    const release = listReleases().find((entry) => entry.version === value);
    if (release) return { ...fromFile(release.document), label: `release ${release.version}` };
  }
  if (existsSync(path.resolve(value))) return fromFile(path.resolve(value));
  const git = fromGit(value);
  if (git) return git;
  fail(`${option} ${value}: not a release in ${relative(where.releases)}/, a file, or a git ref`);
}

let base: Source;
if (typeof values.base === 'string') base = resolve(values.base, '--base');
else {
  const last = listReleases().at(-1);
  if (!last) {
    process.stdout.write(
      `check:breaking: no release recorded yet (none in ${relative(where.releases)}/), nothing to compare; cut the first with \`npm run release -- <version>\`.\n`,
    );
    process.exit(0);
  }
  base = { ...fromFile(last.document), label: `release ${last.version}` };
}
const revisionOption = typeof values.revision === 'string' ? values.revision : undefined;
/** Whether the revision is this repository's contract: then its TypeSpec lines are known, and its declarations apply. */
const ours = revisionOption === undefined || path.resolve(revisionOption) === where.document;
/**
 * The contract as spec/ compiles it now (breaking/current.ts): generated/openapi.yaml when it is current, else spec/
 * compiled in memory, said on stderr; none when spec/ does not compile (exit 2, the compiler's diagnostics shown).
 */
function fromSpec(): Source {
  try {
    const current = currentDocument(where.root);
    const note = staleNote(current, 'check:breaking');
    if (note) process.stderr.write(`${note}\n`);
    return { document: current.document, label: current.label, ...(current.text !== undefined ? { text: current.text, file: current.file } : {}) };
  } catch (error) {
    if (!(error instanceof NoCurrentDocument)) throw error;
    process.stderr.write(`check:breaking: ${error.message}\n`);
    process.exit(2);
  }
}
if (revisionOption !== undefined && ours && !existsSync(where.document)) fail(`${relative(where.document)} does not exist: run npm run generate`);
const revision = revisionOption === undefined ? fromSpec() : ours ? fromFile(where.document) : resolve(revisionOption, '--revision');

const declarationsFile =
  typeof values.declarations === 'string' ? path.resolve(values.declarations) : ours ? where.declarations : undefined;
const read = declarationsFile ? readDeclarations(declarationsFile) : { declarations: [], problems: [] };
if (read.problems.length > 0) {
  process.stdout.write(
    `check:breaking: FAILED: ${shown(declarationsFile!)} is not valid:\n${read.problems.map((problem) => `  - ${problem}`).join('\n')}\n`,
  );
  process.exit(1);
}

// The contract's versions are MAJOR.MINOR.PATCH, and the gate holds it to that; another document's version is used
// when it has that form, and otherwise left out (no major-version allowance, no version check).
const semver = (version: string | undefined, strict: boolean) => (strict || parseVersion(version) ? version : undefined);
const revisionVersion = typeof values['as-version'] === 'string' ? values['as-version'] : versionOf(revision.document);
mark('read');
// Removals are held to the release's deprecations on today's date (compare/removals.ts).
const findings = compareDocuments(base.document, revision.document, { today: today() });
mark('compared');
const verdict = evaluateGate(findings, {
  baseVersion: semver(versionOf(base.document), ours && base.label.startsWith('release ')),
  revisionVersion: semver(revisionVersion, ours),
  declarations: read.declarations,
  failOn,
});

// The consumers each finding breaks or warns (--consumers): named in its message, in every format, and in the JSON
// entry; each consumer's verdict, with its record judged against the revision alone too; --fail-on consumers fails
// only on what breaks one. A Pact file is read against the base: the contract the change starts from, whose
// operations the findings name.
if (consumerSources.length > 0) {
  const revisionContract = loadContract(revision.document as OpenApiDocument);
  const baseContract = loadContract(base.document as OpenApiDocument);
  const { records, unread } = await readConsumers(consumerSources, {
    base: baseContract,
    note: (line) => void process.stderr.write(`check:breaking: --consumers: ${line}\n`),
    merged: (consumer, merged) => void process.stderr.write(`check:breaking: --consumers: ${consumer}'s ${merged.length} records merged into one (${merged.join(', ')})\n`),
  });
  if (unread.length > 0) badRecord(unread.join('\n  '));
  judgeByConsumers(verdict, records, failOnConsumers, revisionContract, baseContract);
}

// The promise of a version range: a declared break that breaks a known consumer (tspconfig.yaml's) fails, unless its
// declaration names it in accepted-by or the major version is raised (breaking/promise.ts; npm run release refuses it).
if (ours) {
  const kept = await checkPromise(where.root, verdict, base.document, revision.document);
  const problems = promiseProblems(kept, shown(where.declarations));
  if (problems.length > 0) Object.assign(verdict, { problems: [...verdict.problems, ...problems], passed: false });
}

// Where each finding was made: the TypeSpec declaration when the revision is the contract, else the document's line
// (for what was removed, the line in the base document, when it is a file).
const specDir = specDirOf(where.root);
const spec: Locator | undefined = ours && specDir ? specLocator(specDir, where.root) : undefined;
const lines = (source: Source) => (source.text !== undefined && source.file ? documentLocator(source.text, source.file) : undefined);
const revisionLines = lines(revision);
const baseLines = lines(base);
const documentLine = (finding: Finding): SourceLocation | undefined =>
  finding.document === 'base' ? baseLines?.(finding.path) ?? revisionLines?.(finding.path) : revisionLines?.(finding.path);
const located: Locator = (finding) => spec?.(finding) ?? documentLine(finding);

const options = {
  subject: `${revision.label} (${revisionVersion ?? 'no version'}) against ${base.label}`,
  declarationsFile: declarationsFile ? shown(declarationsFile) : 'a declarations file (--declarations)',
  ...(ours ? {} : { versionAt: "the revision's info.version" }),
};

const output: Record<Format, () => string> = {
  text: () => formatReport(verdict, { ...options, locate: spec }),
  json: () => formatJson(verdict, { subject: options.subject, ...(spec ? { locate: spec } : {}) }),
  markdown: () => formatMarkdown(verdict, { ...options, locate: located }),
  junit: () => formatJunit(verdict, { ...options, locate: located }),
  sarif: () => formatSarif(verdict, { ...options, locate: located }),
  github: () => formatGithub(verdict, { ...options, locate: located }),
};
process.stdout.write(output[format]());
mark('written');
if (timing) process.stderr.write(`check:breaking timing (ms since start): ${marks.map(([label, time]) => `${label} ${time.toFixed(0)}`).join(', ')}\n`);
// Not process.exit(): into a pipe, stdout is written asynchronously, and exiting at once would cut a long report.
process.exitCode = verdict.passed ? 0 : 1;
