// npm run release -- <version> [--date YYYY-MM-DD] [--no-git]: cuts a release of the contract. It refuses a contract
// the gate fails, a last release's database that does not upgrade and operations still pending; then sets the version
// in spec/ and the packages, records generated/releases/<version>/, writes the notes into CHANGELOG.md, commits and
// tags `v<version>`. On a refusal nothing is left changed. The steps, and why it commits and tags: release/README.md.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { stringify } from 'yaml';
import { compareDocuments } from '../compare/index.ts';
import { emptyDeclarations, listReleases, locations, readDeclarations, readDocument, relative, type Release } from '../breaking/files.ts';
import { compareVersions, declarationEntry, evaluateGate, parseVersion, type Verdict } from '../breaking/gate.ts';
import { checkPromise, promiseProblems } from '../breaking/promise.ts';
import { notesBetween, prependNotes, renderFirstNotes } from './notes.ts';
import { formatReport } from '../breaking/report.ts';
import { STAMP_FILE } from '../breaking/stamp.ts';
import { currentDocument, isGeneratedCurrent, NoCurrentDocument, staleNote } from '../breaking/current.ts';

const USAGE = `Usage: npm run release -- <version> [--date YYYY-MM-DD] [--no-git]

Cuts release <version> (MAJOR.MINOR.PATCH, above the last release) of the contract: sets the packages' versions and
info.version in spec/main.tsp, regenerates generated/, records generated/releases/<version>/, writes the
notes into CHANGELOG.md and empties spec/breaking-changes.yaml; then commits it ("Release <version>") and tags the
commit v<version> (annotated). Refused when check:breaking would fail for the new version, while operations are
pending (server/handlers/pending.ts), and (but with --no-git) when the work tree has changes not committed or the tag
exists.

  --no-git   record the release only: no commit, no tag (the commands to make them are printed)

Its packages are published after review: npm run publish-release -- <version>.

See release/README.md.
`;

function usage(message: string): never {
  process.stderr.write(`release: ${message}\n\n${USAGE}`);
  process.exit(2);
}

function refuse(message: string): never {
  process.stderr.write(`release: refused: ${message}\n`);
  process.exit(1);
}

let parsed: { values: { date?: string; help?: boolean; 'no-git'?: boolean }; positionals: string[] };
try {
  parsed = parseArgs({ options: { date: { type: 'string' }, 'no-git': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true });
} catch (error) {
  usage(error instanceof Error ? error.message : String(error));
}
if (parsed.values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (parsed.positionals.length !== 1) usage('give exactly one version');
const version = parsed.positionals[0]!;
const target = parseVersion(version) ?? usage(`${version} is not a version of the form MAJOR.MINOR.PATCH`);
const date = parsed.values.date ?? new Date().toISOString().slice(0, 10);
if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) usage(`--date ${date} is not YYYY-MM-DD`);
const useGit = !parsed.values['no-git'];
const tag = `v${version}`;

const where = locations();
const last: Release | undefined = listReleases().at(-1);
if (last && compareVersions(target, last.parsed) <= 0) refuse(`${version} is not greater than the last release ${last.version}`);

// Checked where the tree has the server (the gate's own tests release copies of the contract alone).
const pendingList = path.join(where.root, 'server/handlers/pending.ts');
const pending = existsSync(pendingList)
  ? Object.entries(((await import(pathToFileURL(pendingList).href)) as { pendingOperations: Readonly<Record<string, string>> }).pendingOperations)
  : [];
if (pending.length > 0) {
  refuse(
    `the reference server does not implement ${pending.length} operation(s) of the contract yet (server/handlers/pending.ts):\n${pending.map(([id, reason]) => `  - ${id}: ${reason}`).join('\n')}\nImplement them and remove their entries first.`,
  );
}

const read = readDeclarations(where.declarations);
if (read.problems.length > 0) {
  refuse(`${relative(where.declarations)} is not valid:\n${read.problems.map((problem) => `  - ${problem}`).join('\n')}`);
}

/** Runs the gate of `document` judged as `version`; prints the report and refuses when it fails. */
function gate(document: Record<string, unknown>, onRefusal: () => void = () => {}): Verdict {
  const base = last ? readDocument(last.document) : undefined;
  const findings = base ? compareDocuments(base, document) : [];
  const verdict = evaluateGate(findings, {
    ...(last ? { baseVersion: last.version } : {}),
    revisionVersion: version,
    declarations: read.declarations,
  });
  if (!verdict.passed) {
    process.stdout.write(
      formatReport(verdict, {
        subject: `${relative(where.document)} (as ${version}) against ${last ? `release ${last.version}` : 'no release'}`,
        declarationsFile: relative(where.declarations),
      }),
    );
    onRefusal();
    refuse(`check:breaking fails for ${version} (above)`);
  }
  return verdict;
}

/**
 * The promise of `^MAJOR`: a release that is not a new major is refused while a declared break breaks a known consumer
 * (tspconfig.yaml's) that its declaration does not name in accepted-by (breaking/promise.ts).
 */
async function keepPromise(verdict: Verdict, document: Record<string, unknown>): Promise<void> {
  if (!last) return;
  const kept = await checkPromise(where.root, verdict, readDocument(last.document), document);
  const problems = promiseProblems(kept, relative(where.declarations));
  if (problems.length > 0) refuse(`${version} is not a new major version, and ${problems.length === 1 ? 'this' : 'these'} would break the promise of ^${target[0]}:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
}

/**
 * `npm run check`'s type-check of the project, run as a command of its own: refuses (restoring what step 2 wrote) when
 * it fails; what it says of the project, for the last lines.
 */
function typecheckProject(): string {
  const checker = path.join(where.root, 'scripts/check.ts');
  if (!existsSync(path.join(where.root, 'tsconfig.json')) || !existsSync(checker)) {
    const line = `not type-checked: ${where.root} has no tsconfig.json and scripts/check.ts to type-check it with`;
    process.stderr.write(`release: ${line}\n`);
    return line;
  }
  const run = spawnSync(path.join(where.root, 'node_modules/.bin/tsx'), [checker, '--only', 'typecheck'], { cwd: where.root, encoding: 'utf8' });
  if (run.status !== 0) {
    process.stderr.write(`${run.stdout ?? ''}${run.stderr ?? ''}`);
    restore();
    refuse('the project does not type-check against the release (npm run check\'s typecheck, above); spec/main.tsp and generated/ are restored');
  }
  return 'the project type-checks (npm run check\'s typecheck)';
}

// 1. The gate on what spec/ compiles to now (breaking/current.ts), first when that is generated/openapi.yaml, so that a
// refusal costs no compilation; when generated/ is stale, after git's refusals (1c), which cost nothing.
let gated = false;
async function gateCurrent(): Promise<void> {
  gated = true;
  let current: ReturnType<typeof currentDocument>;
  try {
    current = currentDocument(where.root);
  } catch (error) {
    if (!(error instanceof NoCurrentDocument)) throw error;
    refuse(error.message);
  }
  const note = staleNote(current, 'release');
  if (note) process.stderr.write(`${note}\n`);
  await keepPromise(gate(current.document), current.document);
}
if (isGeneratedCurrent(where.root)) await gateCurrent();

// 1b. Upgrades: a database written by the last release's server must open, migrate and read back under this tree
// (release/upgrade-check.ts, test/server/upgrade.test.ts). Checked where the tree has the server.
if (last && existsSync(path.join(where.root, 'server/start/server.ts'))) {
  const { checkUpgrade, fixtureVersions } = await import('./upgrade-check.ts');
  const versions = fixtureVersions();
  if (!versions.includes(last.version)) {
    refuse(
      `no database written by the server of release ${last.version} to upgrade from (test/fixtures/releases/${last.version}/): ` +
        `make it with npm run fixture:release -- ${last.version}, commit it, and run the release again`,
    );
  }
  for (const version of versions) {
    const { problems } = await checkUpgrade(version);
    if (problems.length > 0) {
      refuse(
        `a database written by the server of release ${version} does not upgrade (the migrations lose or break records):\n` +
          problems.map((problem) => `  - ${problem}`).join('\n'),
      );
    }
  }
}

// 1c. Git: the release is committed and tagged from the tree as committed, so that the tag names exactly what was
// released (the fixture of the release, test/fixtures/releases/, is made from it).
const git = (...args: string[]) => spawnSync('git', args, { cwd: where.root, encoding: 'utf8' });
const noGit = 'or record the release without committing or tagging it: npm run release -- ' + `${version} --no-git`;
if (useGit) {
  const top = git('rev-parse', '--show-toplevel');
  if (top.status !== 0 || realpathSync(top.stdout.trim()) !== realpathSync(where.root)) {
    refuse(`${where.root} is not the top of a git work tree, where a release is committed and tagged; ${noGit}`);
  }
  if (git('rev-parse', '--quiet', '--verify', `refs/tags/${tag}`).status === 0) refuse(`the tag ${tag} exists already`);
  // Changes to tracked files anywhere, and files not tracked where the contract and what it compiles to are.
  const status = git('status', '--porcelain', '--untracked-files=all');
  const unclean = status.stdout.split('\n').filter((line) => line !== '' && (!line.startsWith('?? ') || /^\?\? "?(spec|generated)\//.test(line)));
  if (status.status !== 0 || unclean.length > 0) {
    const shown = unclean.slice(0, 10).map((line) => `  ${line}`).join('\n') + (unclean.length > 10 ? `\n  … and ${unclean.length - 10} more` : '');
    refuse(`the work tree has changes not committed (git status), which the release's commit would leave out:\n${shown}\nCommit them first, ${noGit}`);
  }
}

if (!gated) await gateCurrent();

// 2. The packages' versions (the client's, the root, and the runner's follow the contract), then the version in
// spec/main.tsp, then the regenerated contract, gated again; all restored on a refusal. The packages' first: a server
// that restarts on the new contract (`npm run dev`'s, on the save of spec/main.tsp) reads its version from
// package.json then, and its /health names the version it serves.
const packageFiles = [where.packageJson, ...(existsSync(where.runnerPackageJson) ? [where.runnerPackageJson] : [])];
const saved = new Map<string, string>();
for (const file of [...packageFiles, where.packageLock, where.main, where.document, where.schemaTypes, path.join(where.root, STAMP_FILE)]) {
  if (existsSync(file)) saved.set(file, readFileSync(file, 'utf8'));
}
const restore = () => {
  for (const [file, text] of saved) writeFileSync(file, text);
};
const main = saved.get(where.main) ?? refuse(`${relative(where.main)} does not exist`);
const infoVersion = /(@info\(\s*#\{[^}]*?\bversion:\s*")([^"]*)(")/;
if (!infoVersion.test(main)) refuse(`${relative(where.main)} has no @info(#{ version: "…" }) to set`);
const packageTexts = packageFiles.map((file) => saved.get(file)!);
packageFiles.forEach((file, index) => {
  if (!/"version":\s*"[^"]*"/.test(packageTexts[index]!)) refuse(`${relative(file)} has no "version" to set`);
});
packageFiles.forEach((file, index) => writeFileSync(file, packageTexts[index]!.replace(/"version":\s*"[^"]*"/, `"version": "${version}"`)));
if (saved.has(where.packageLock)) {
  const lock = JSON.parse(saved.get(where.packageLock)!) as { version?: string; packages?: Record<string, { version?: string }> };
  lock.version = version;
  if (lock.packages?.['']) lock.packages[''].version = version;
  writeFileSync(where.packageLock, `${JSON.stringify(lock, null, 2)}\n`);
}
writeFileSync(where.main, main.replace(infoVersion, `$1${version}$3`));

const generate = spawnSync(path.join(where.root, 'node_modules/.bin/tsx'), ['scripts/generate.ts'], { cwd: where.root, encoding: 'utf8' });
if (generate.status !== 0) {
  process.stderr.write(`${generate.stdout ?? ''}${generate.stderr ?? ''}`);
  restore();
  refuse("npm run generate failed (above); spec/main.tsp, generated/ and the packages' versions are restored");
}
const document = readDocument(where.document);
if (document.info === undefined || (document.info as { version?: unknown }).version !== version) {
  restore();
  refuse(`the regenerated document's info.version is not ${version}; spec/main.tsp, generated/ and the packages' versions are restored`);
}
// 2b. The project type-checks against what the release generated, as `npm run check` runs it (scripts/check.ts
// --only typecheck); where the tree has no tsconfig.json (the gate's own tests release copies of the contract alone),
// it says so.
const typechecked = typecheckProject();
const consumed = gate(document, restore).judged.flatMap((entry) => (entry.declaration ? [entry.declaration] : []));

// 3. The release's record.
const releaseDir = path.join(where.releases, version);
mkdirSync(releaseDir, { recursive: true });
copyFileSync(where.document, path.join(releaseDir, 'openapi.yaml'));
writeFileSync(
  path.join(releaseDir, 'breaking-changes.yaml'),
  `# The declarations release ${version} consumed (from spec/breaking-changes.yaml); npm run changelog reads them.\n` +
    (consumed.length > 0 ? stringify(consumed.map(declarationEntry)) : '[]\n'),
);

// 4. The notes, and a fresh declarations file.
const notes = last
  ? notesBetween({ base: readDocument(last.document), revision: document, previous: last.version, version, date, declarations: consumed })
  : renderFirstNotes(version, date, document);
writeFileSync(where.changelog, prependNotes(existsSync(where.changelog) ? readFileSync(where.changelog, 'utf8') : undefined, notes));
emptyDeclarations(where.declarations);

const changed = [
  relative(where.main),
  'generated/',
  relative(where.packageJson),
  ...(existsSync(where.runnerPackageJson) ? [relative(where.runnerPackageJson)] : []),
  ...(existsSync(where.packageLock) ? [relative(where.packageLock)] : []),
  relative(where.changelog),
  relative(where.declarations),
];
const recorded =
  `release: ${version} recorded in ${relative(releaseDir)}/ (${last ? `after ${last.version}` : 'the first release'}); ` +
  `${consumed.length} declaration(s) moved into ${relative(where.changelog)}; ${typechecked}.\n`;
const message = `Release ${version}`;
const commands = [`git add ${changed.join(' ')}`, `git commit -m "${message}"`, `git tag -a ${tag} -m "${message}"`];
const fixture =
  `Then record the database its server writes, which the next release must upgrade (test/server/upgrade.test.ts):\n` +
  `  npm run fixture:release -- ${version}\n  git add test/fixtures/releases/${version} && git commit -m "Fixture of release ${version}"\n`;

// 5. The commit and its tag.
if (!useGit) {
  process.stdout.write(
    `${recorded}Review it, commit it and tag the commit:\n${commands.map((command) => `  ${command}\n`).join('')}` +
      `Then publish its packages from the tag: npm run publish-release -- ${version}\n${fixture}`,
  );
} else {
  for (const args of [['add', '--all', '--', ...changed], ['commit', '--quiet', '-m', message], ['tag', '--annotate', tag, '-m', message]]) {
    const run = git(...args);
    if (run.status !== 0) {
      process.stderr.write(`${run.stdout}${run.stderr}`);
      process.stdout.write(recorded);
      refuse(`git ${args[0]} failed (above): the release is recorded but not ${args[0] === 'tag' ? 'tagged' : 'committed'}; finish it with:\n${commands.slice(args[0] === 'tag' ? 2 : 0).map((command) => `  ${command}`).join('\n')}`);
    }
  }
  const commit = git('rev-parse', '--short', 'HEAD').stdout.trim();
  process.stdout.write(
    `${recorded}Committed as ${commit} ("${message}") and tagged ${tag} (annotated). Review it (git show ${tag}); to take it back before ` +
      `pushing: git tag -d ${tag} && git reset --soft HEAD~1. Push both: git push origin HEAD ${tag}\n` +
      `Then publish its packages to the registry npm is configured with: npm run publish-release -- ${version}\n${fixture}`,
  );
}
