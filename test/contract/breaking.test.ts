// The breaking-change gate, the release command and the release notes, end to end on the real contract: in a
// temporary copy of the repository, a git repository of its own, changes made in spec/ are compiled by the project's
// generate script and judged by the real commands, through one story of three compiles (a first release, a variant
// with breaking and additive changes, a major release declaring some of them).
// Where its time goes and what keeps it down: test/README.md, "The gate end to end".
// @needs processes
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse, stringify } from 'yaml';
import { compareDocuments } from '../../breaking/index.ts';
import { emptyOperationUsage, emptyUsage } from '../../conformance/records/usage-format.ts';
import { openapiPath, repoRoot } from '../support/repo.ts';

/** Tests that compile the contract, and tests that run the commands a few times. */
const COMPILE = 300_000;
const COMMANDS = 120_000;

interface Result {
  status: number | null;
  stdout: string;
  stderr: string;
  output: string;
}

/**
 * Runs a command's script in `cwd` as npm runs it (`tsx <script>`), with tsx's loader in the one process; resolves
 * when it exits. `env` is added to the environment.
 */
function run(cwd: string, script: string, args: string[] = [], env: Record<string, string> = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr, output: `${stdout}${stderr}` }));
  });
}

describe('the gate on the real contract', () => {
  test('the contract compared with itself has no difference', () => {
    const document = parse(readFileSync(openapiPath, 'utf8'));
    expect(compareDocuments(document, structuredClone(document))).toEqual([]);
  });

  test('removing, tightening and loosening in the real contract are found where they are, for every operation affected', () => {
    const document = parse(readFileSync(openapiPath, 'utf8'));
    const changed = structuredClone(document);
    const schemas = changed.components.schemas;
    delete schemas.Space.properties.emoji;
    schemas.MoveCollectionRequest.properties.parent.anyOf.pop();
    const findings = compareDocuments(document, changed);
    expect(findings.map((finding) => [finding.rule, finding.path])).toEqual([
      ['request-property-became-not-nullable', '#/components/schemas/MoveCollectionRequest/properties/parent'],
      ['response-property-removed', '#/components/schemas/Space/properties/emoji'],
    ]);
    expect(findings[0]!.operations.map((operation) => operation.operationId)).toEqual(['moveCollection']);
    expect(findings[1]!.operations.map((operation) => operation.operationId)).toContain('getSpace');
  });

  test('npm run check:breaking passes on the repository; npm test runs it before vitest', async () => {
    const result = await run(repoRoot, 'breaking/check.ts');
    expect(result.output).toMatch(/no release recorded yet|check:breaking: passed/);
    expect(result.status).toBe(0);
    const scripts = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).scripts;
    // The command compiled once (breaking/check.mjs, no TypeScript loader), or the TypeScript itself.
    expect(['node breaking/check.mjs', 'tsx breaking/check.ts']).toContain(scripts['check:breaking']);
    expect(scripts.test).toMatch(/npm run check:breaking && .*vitest run/);
  }, COMMANDS);
});

// The story of the describe below: its copy of the repository, the commands run in it, and what it declares.
let copy: string;
/** Every directory made (the copy and its forks), removed at the end. */
const made: string[] = [];
const at = (file: string, root = copy) => path.join(root, file);
const read = (file: string, root = copy) => readFileSync(at(file, root), 'utf8');
const write = (file: string, text: string, root = copy) => writeFileSync(at(file, root), text);
/** Replaces `from` (which must be there) in a file of the copy. */
const edit = (file: string, from: string | RegExp, to: string) => {
  const text = read(file);
  expect(typeof from === 'string' ? text.includes(from) : from.test(text), `${file} holds ${from}`).toBe(true);
  write(file, text.replace(from, to));
};
/**
 * The commands of the story, in the copy (or in `root`): generate writes openapi.yaml only (test/README.md, "The gate
 * end to end").
 */
const command = (script: string, args: string[] = [], root = copy) => run(root, script, args, { GENERATE_OPENAPI_ONLY: '1' });
const generate = async () => {
  const result = await command('scripts/generate.ts');
  expect(result.status, result.output).toBe(0);
};
const release = (...args: string[]) => command('release/release.ts', args);
/** git in the copy (or in `root`): its output, trimmed; throws when it fails. */
const git = (args: string[], root = copy) => {
  const run = spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
  return run.stdout.trim();
};
const notesOf = (...args: string[]) => command('release/changelog.ts', args);
const check = (...args: string[]) => command('breaking/check.ts', args);
const checkIn = (root: string) => command('breaking/check.ts', [], root);
const lineWith = (output: string, ...parts: string[]) => output.split('\n').find((line) => parts.every((part) => line.includes(part)));
let header = '';
/** Writes the declarations file of the copy (or of `root`): its comment header, then `entries`. */
const declarations = (entries: object[], root = copy) =>
  write('spec/breaking-changes.yaml', `${header}${entries.length > 0 ? stringify(entries) : '[]\n'}`, root);
/** A new directory holding the files of `from`, node_modules linked. */
const copyOf = (from: string, entries: string[]) => {
  const to = mkdtempSync(path.join(tmpdir(), 'breaking-e2e-'));
  made.push(to);
  for (const entry of entries) cpSync(path.join(from, entry), path.join(to, entry), { recursive: true });
  symlinkSync(path.join(repoRoot, 'node_modules'), path.join(to, 'node_modules'), 'dir');
  return to;
};
const COPIED = ['spec', 'scripts', 'breaking', 'compare', 'release', 'generated', 'tspconfig.yaml', 'package.json', 'package-lock.json', 'conformance/package.json', 'conformance/judgement', 'conformance/contract', 'conformance/records'];
/** A copy of the copy as it is now, for judging another state of it beside it. */
const fork = () => copyOf(copy, [...COPIED, ...(existsSync(at('CHANGELOG.md')) ? ['CHANGELOG.md'] : [])]);
/**
 * The state of the variant with the source declaration left out, where the major-version step starts: its fork,
 * the files that state is made of, and its check (the major-version step's failing check too). The major release
 * runs in that fork as soon as the check is done, beside the steps before it (they read other copies).
 */
let withoutSource: { root: string; files: string[]; result: Result; release: Promise<Result> } | undefined;
const STATE = ['spec/main.tsp', 'spec/breaking-changes.yaml', 'generated/openapi.yaml', 'package.json'];

const DECLARED = {
  title: {
    rule: 'request-property-max-length-decreased',
    schema: 'CreateSpaceRequest',
    path: '#/components/schemas/CreateSpaceRequest/properties/title',
    reason: 'Titles longer than 100 characters were cut in every view.',
  },
  revision: {
    rule: 'response-property-became-optional',
    schema: 'Space',
    path: '#/components/schemas/Space/properties/revision',
    reason: 'A space still being imported has no revision yet.',
  },
  source: {
    rule: 'request-property-enum-value-added',
    schema: 'ImportSource',
    path: '#/components/schemas/ImportSource',
    reason: 'The server imports Git sources in the same change.',
  },
};

describe('releases, the gate and the notes, in a copy of the repository', () => {
  beforeAll(() => {
    copy = copyOf(repoRoot, COPIED);
    // The story starts before any release, whatever the repository has recorded since.
    rmSync(at('generated/releases'), { recursive: true, force: true });
    rmSync(at('CHANGELOG.md'), { force: true });
    // The story compiles breaking changes to judge them with the commands: the rule that reports them in the compile
    // itself (breaking-change) is spec-rules-breaking.test.ts's.
    edit('tspconfig.yaml', '\nlinter:\n  extends:\n', '\nlinter:\n  disable:\n    "docs-platform-spec-rules/breaking-change": "the gate is judged by its commands here"\n  extends:\n');
    header = read('spec/breaking-changes.yaml').split('\n').filter((line) => line.startsWith('#')).map((line) => `${line}\n`).join('');
    declarations([]);
    // A repository of its own, the copy committed, where `npm run release` commits and tags.
    git(['init', '--quiet']);
    for (const [key, value] of [['user.name', 'Release Test'], ['user.email', 'release@test.invalid'], ['commit.gpgsign', 'false'], ['tag.gpgsign', 'false']]) git(['config', key!, value!]);
    writeFileSync(at('.git/info/exclude'), 'node_modules\n');
    git(['add', '--all']);
    git(['commit', '--quiet', '-m', 'The repository before its first release']);
  });
  afterAll(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });

  releasesAndTheirRefusals();
  theGateAndTheNotes();
  thePromiseOfARange();
  theMajorVersion();
});

/** The releases of the story, and what a release refuses. */
function releasesAndTheirRefusals(): void {
  test(
    'the first release records the emitted document, sets the versions, starts the changelog',
    async () => {
      const released = await release('1.0.0', '--date', '2026-01-15');
      expect(released.status, released.output).toBe(0);
      expect(read('generated/releases/1.0.0/openapi.yaml')).toBe(read('generated/openapi.yaml'));
      expect(parse(read('generated/openapi.yaml')).info.version).toBe('1.0.0');
      expect(read('spec/main.tsp')).toMatch(/@info\(#\{\s*version: "1\.0\.0",/);
      expect(JSON.parse(read('package.json')).version).toBe('1.0.0');
      expect(JSON.parse(read('conformance/package.json')).version).toBe('1.0.0');
      const lock = JSON.parse(read('package-lock.json'));
      expect([lock.version, lock.packages[''].version]).toEqual(['1.0.0', '1.0.0']);
      const operations = Object.values(parse(read('generated/openapi.yaml')).paths as Record<string, object>).flatMap(Object.keys).length;
      expect(read('CHANGELOG.md')).toContain(`## 1.0.0 (2026-01-15)\n\nFirst release of the contract: ${operations} operations.`);
      expect(read('CHANGELOG.md')).toMatch(/- Spaces: .*`createSpace`/);
      expect(read('spec/breaking-changes.yaml')).toMatch(/^# [\s\S]*\n\[\]\n$/);
      // Committed, and the commit tagged v1.0.0 (annotated): nothing left out of it.
      expect(released.stdout).toContain('and tagged v1.0.0 (annotated)');
      expect(git(['tag', '--list'])).toBe('v1.0.0');
      expect(git(['cat-file', '-t', 'v1.0.0'])).toBe('tag');
      expect(git(['rev-parse', 'v1.0.0^{commit}'])).toBe(git(['rev-parse', 'HEAD']));
      expect(git(['log', '-1', '--format=%s'])).toBe('Release 1.0.0');
      expect(git(['tag', '--list', '--format=%(contents:subject)', 'v1.0.0'])).toBe('Release 1.0.0');
      // (The copy is at 1.0.0 already: its version files are unchanged.) Nothing the release wrote is left out.
      expect(git(['show', '--name-only', '--format=', 'HEAD']).split('\n')).toEqual(
        expect.arrayContaining(['CHANGELOG.md', 'generated/releases/1.0.0/breaking-changes.yaml', 'generated/releases/1.0.0/openapi.yaml']),
      );
      expect(git(['status', '--porcelain'])).toBe('');

      const unchanged = await check();
      expect(unchanged.status, unchanged.output).toBe(0);
      expect(unchanged.stdout).toContain('against release 1.0.0: 0 differences');
    },
    COMPILE,
  );

  test('a release refuses a version that is not above the last one, or not a version', async () => {
    const versions = ['1.0.0', '0.9.9'];
    const [bad, ...refusals] = await Promise.all(['v1.1', ...versions].map((version) => release(version)));
    versions.forEach((version, index) => {
      const refused = refusals[index]!;
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain(`release: refused: ${version} is not greater than the last release 1.0.0`);
    });
    expect(bad!.status).toBe(2);
    expect(bad!.stderr).toContain('v1.1 is not a version of the form MAJOR.MINOR.PATCH');
    expect(existsSync(at('generated/releases/0.9.9'))).toBe(false);
  }, COMMANDS);

  test('a release refuses a tree with changes not committed, and a tag that exists; each refusal changes nothing', async () => {
    const head = git(['rev-parse', 'HEAD']);
    const refused = async (expected: string) => {
      const result = await release('1.0.1');
      expect(result.status, result.output).toBe(1);
      expect(result.stderr).toContain(expected);
      expect(existsSync(at('generated/releases/1.0.1'))).toBe(false);
      expect(git(['rev-parse', 'HEAD'])).toBe(head);
      return result;
    };
    const config = read('tspconfig.yaml');
    write('tspconfig.yaml', `${config}# changed\n`);
    const modified = await refused('release: refused: the work tree has changes not committed (git status)');
    expect(modified.stderr).toContain(' M tspconfig.yaml');
    expect(modified.stderr).toContain('npm run release -- 1.0.1 --no-git');
    expect(git(['status', '--porcelain'])).toBe('M tspconfig.yaml');
    write('tspconfig.yaml', config);
    // A file not tracked under spec/ would be compiled into the release but left out of its commit.
    write('spec/draft.tsp', '// a draft\n');
    expect((await refused('release: refused: the work tree has changes not committed')).stderr).toContain('?? spec/draft.tsp');
    rmSync(at('spec/draft.tsp'));
    git(['tag', 'v1.0.1']);
    await refused('release: refused: the tag v1.0.1 exists already');
    git(['tag', '--delete', 'v1.0.1']);
    expect(git(['status', '--porcelain'])).toBe('');
  }, COMMANDS);

  test(
    "the issue's three breaking changes fail the gate, each named by its rule, operations and field; additions pass",
    async () => {
      // CreateSpaceRequest.title maxLength 255 → 100 (a request a released client may send is refused).
      const spaces = read('spec/spaces.tsp');
      const start = spaces.indexOf('model CreateSpaceRequest {');
      const limit = spaces.indexOf('@maxLength(255)', start);
      expect(start >= 0 && limit > start).toBe(true);
      write('spec/spaces.tsp', `${spaces.slice(0, limit)}@maxLength(100)${spaces.slice(limit + '@maxLength(255)'.length)}`);
      // Space.revision required → optional (released clients read it without a check), and a new optional field.
      edit(
        'spec/spaces.tsp',
        /(model Space \{[\s\S]*?)\brevision: string;/,
        '$1revision?: string;\n\n  /** A short name of the space. */\n  @visibility(Lifecycle.Read)\n  nickname?: string;',
      );
      // A new ImportSource value, the import handler left as it was.
      edit('spec/content.tsp', /(enum ImportSource \{[\s\S]*?)\n\}/, '$1\n\n  /** A Git repository. */\n  git,\n}');
      // A new operation.
      write(
        'spec/spaces.tsp',
        `${read('spec/spaces.tsp')}\n/** The summary of a space. */\nmodel SpaceSummary {\n  /** Title of the space. */\n  title: string;\n}\n\n/** Summaries of spaces. */\n@tag("Spaces")\ninterface SpaceSummaries {\n  /** Get the summary of a space. */\n  @summary("Get the summary of a space")\n  @opExample(#{ parameters: #{ spaceId: "0Vby0wpu00D991cSl5LhmQ" }, returnType: #{ title: "Developer handbook" } })\n  @operationId("getSpaceSummary")\n  @route("/v1/spaces/{spaceId}/summary")\n  @get\n  getSummary(...SpacePath): SpaceSummary | ResourceErrors;\n}\n`,
      );
      await generate();

      const [failed, annotated] = await Promise.all([check(), check('--format', 'github')]);
      expect(failed.status, failed.output).toBe(1);
      const out = failed.stdout;
      expect(
        lineWith(out, 'BREAKING (client) request-property-max-length-decreased', 'createSpace  POST /v1/orgs/{organizationId}/spaces', DECLARED.title.path, '`CreateSpaceRequest.title`: maxLength 255 → 100'),
        out,
      ).toBeDefined();
      // Space is answered by many operations: they are counted by tag (the JSON output lists them).
      expect(lineWith(out, 'BREAKING (client) response-property-became-optional', ' operations: ', 'Spaces (', DECLARED.revision.path, '`Space.revision`: now optional'), out).toBeDefined();
      expect(
        lineWith(out, 'BREAKING (implementation) request-property-enum-value-added', 'importChangeRequestContent, importSpaceContent', DECLARED.source.path, '`ImportContentRequest.source`: new value "git"'),
        out,
      ).toBeDefined();
      expect(lineWith(out, 'non-breaking response-property-added', '#/components/schemas/Space/properties/nickname', '`Space.nickname`: new optional field'), out).toBeDefined();
      expect(lineWith(out, 'non-breaking operation-added', 'getSpaceSummary  GET /v1/spaces/{spaceId}/summary'), out).toBeDefined();
      expect(out).toContain('check:breaking: FAILED: 3 undeclared breaking changes (2 for clients, 1 for implementations)');
      // It prints the declarations to copy.
      expect(out).toContain(`- rule: request-property-enum-value-added\n  schema: ImportSource\n  path: "${DECLARED.source.path}"`);

      // In CI, each is an annotation on the TypeSpec line where it was made.
      expect(annotated.status, annotated.output).toBe(1);
      const sourceLine = (file: string, after: RegExp, line: RegExp) => {
        const lines = read(file).split('\n');
        const start = lines.findIndex((text) => after.test(text));
        return start + lines.slice(start).findIndex((text) => line.test(text)) + 1;
      };
      const annotation = (rule: string) => annotated.stdout.split('\n').find((line) => line.includes(`%3A ${rule}::`));
      expect(annotation('request-property-max-length-decreased')).toMatch(
        new RegExp(`^::error file=spec/spaces\\.tsp,line=${sourceLine('spec/spaces.tsp', /^model CreateSpaceRequest \{/, /^\s*title\??:/)},`),
      );
      expect(annotation('response-property-became-optional')).toMatch(new RegExp(`^::error file=spec/spaces\\.tsp,line=${sourceLine('spec/spaces.tsp', /^model Space \{/, /^\s*revision\?:/)},`));
      expect(annotation('request-property-enum-value-added')).toMatch(new RegExp(`^::error file=spec/content\\.tsp,line=${sourceLine('spec/content.tsp', /^enum ImportSource \{/, /^\s*git,/)},`));
      expect(annotated.stdout).toMatch(/^::notice file=spec\/spaces\.tsp,line=\d+,title=non-breaking%3A operation-added::/m);
    },
    COMPILE,
  );
}

/** The gate on each change of the story until it is declared, and the notes of the unreleased changes. */
function theGateAndTheNotes(): void {
  test('each breaking change fails until it is declared; a declaration that matches nothing fails too', async () => {
    const all = Object.values(DECLARED);
    const stale = { rule: 'request-property-removed', schema: 'CreateSpaceRequest', path: '#/components/schemas/CreateSpaceRequest/properties/emoji', reason: 'Never used.' };
    // Each state in a fork of the copy, judged side by side; the copy goes on with all three declared.
    const states = [...all.map((left) => all.filter((entry) => entry !== left)), all, [...all, stale]];
    const roots = states.map((entries) => {
      const root = fork();
      declarations(entries, root);
      return root;
    });
    declarations(all);
    const source = all.indexOf(DECLARED.source);
    const files = STATE.map((file) => read(file, roots[source]!));
    const checks = roots.map(checkIn);
    // In a fork, which is no git repository: recorded only.
    const majorRelease = checks[source]!.then(() => command('release/release.ts', ['2.0.0', '--date', '2026-02-01', '--no-git'], roots[source]!));
    const results = await Promise.all(checks);
    withoutSource = { root: roots[source]!, files, result: results[source]!, release: majorRelease };

    all.forEach((left, index) => {
      const result = results[index]!;
      expect(result.status, result.output).toBe(1);
      expect(result.stdout).toContain('FAILED: 1 undeclared breaking change');
      expect(lineWith(result.stdout, 'BREAKING', left.rule, left.path)).not.toContain(', declared');
      // What fails leads; the two declared follow the other differences, counted.
      const failing = result.stdout.indexOf('\nBREAKING, undeclared: 1 change the gate fails on');
      expect(failing).toBeGreaterThan(0);
      expect(result.stdout.indexOf('\nOther differences, none failing the gate: ')).toBeGreaterThan(failing);
      expect(result.stdout.indexOf('\ndeclared in spec/breaking-changes.yaml: 2 changes, by rule and reason')).toBeGreaterThan(result.stdout.indexOf('\nOther differences'));
    });
    const passed = results[all.length]!;
    expect(passed.status, passed.output).toBe(0);
    expect(passed.stdout).toContain('\ndeclared in spec/breaking-changes.yaml: 3 changes, by rule and reason (--format json lists each)\n');
    expect(lineWith(passed.stdout, '  request-property-max-length-decreased (breaks clients in use): 1 finding  createSpace  ')).toBeDefined();
    expect(passed.stdout).not.toContain('BREAKING');
    expect(passed.stdout).toContain(`declared: ${DECLARED.title.reason}`);
    expect(passed.stdout).toContain('check:breaking: passed: 3 breaking declared, 0 warnings, 2 non-breaking.');

    const staleResult = results[all.length + 1]!;
    expect(staleResult.status).toBe(1);
    expect(staleResult.stdout).toContain(`STALE declaration in spec/breaking-changes.yaml: request-property-removed CreateSpaceRequest ${stale.path} matches no difference`);
    expect(staleResult.stdout).toContain('FAILED: 1 stale declaration');
  }, COMMANDS);

  test('the notes of the unreleased changes put the breaking ones first, with what to do and why', async () => {
    const notes = await notesOf();
    expect(notes.status, notes.output).toBe(0);
    const text = notes.stdout;
    expect(text.startsWith('## Unreleased\n\nCompared with 1.0.0: 3 breaking changes, 1 new operation')).toBe(true);
    const order = ['### Breaking changes', '#### `CreateSpaceRequest`, used by `createSpace`', '### Added operations', '- `getSpaceSummary` (GET /v1/spaces/{spaceId}/summary)', '### New fields', '`Space.nickname`: new optional field.'];
    const positions = order.map((part) => text.indexOf(part));
    expect(positions.every((position) => position >= 0), text).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(text).toContain(
      '- **Breaking for clients** (`request-property-max-length-decreased`): `CreateSpaceRequest.title`: maxLength 255 → 100.\n' +
        '  What to do: Send values no longer than the new maximum.\n' +
        `  Why: ${DECLARED.title.reason}`,
    );
    expect(text).toContain('**Breaking for implementations** (`request-property-enum-value-added`): `ImportContentRequest.source`: new value "git".');
  }, COMMANDS);
}

/** The promise of `^1`: a declared break that breaks a known consumer, in a minor release (a fork of the story). */
function thePromiseOfARange(): void {
  test(
    "a minor release whose declared break breaks a known consumer is refused, naming it, until the declaration says it accepted it; then until the project type-checks",
    async () => {
      // A fork of the copy (the three declared), whose tspconfig.yaml names its consumers' records, as the rule reads
      // them: search-service reads Space.revision, which the declared break makes optional.
      const root = fork();
      const config = read('tspconfig.yaml', root);
      write('tspconfig.yaml', config.replace(/\n {2}disable:\n.*\n/, '\n  enable:\n    "docs-platform-spec-rules/breaking-change":\n      consumers: ["consumers/"]\n'), root);
      expect(read('tspconfig.yaml', root)).toContain('consumers: ["consumers/"]');
      const record = emptyUsage({ name: 'search-service', version: '3.2.0' }, { version: '1.0.0' }, 'client');
      record.operations.getSpace = { ...emptyOperationUsage(), method: 'get', path: '/v1/spaces/{spaceId}', calls: 2, parameters: { 'path.spaceId': {} } };
      record.operations.getSpace.responses['200 application/json'] = { present: ['/id', '/title', '/revision'], read: ['/revision'], schemas: { '': ['Space'] } };
      mkdirSync(at('consumers', root));
      write('consumers/search-service.json', JSON.stringify(record), root);
      expect((await command('scripts/generate.ts', [], root)).status).toBe(0);

      const [refused, failing] = await Promise.all([command('release/release.ts', ['1.1.0', '--no-git'], root), command('breaking/check.ts', [], root)]);
      expect(refused.status, refused.output).toBe(1);
      expect(refused.stderr).toContain('release: refused: 1.1.0 is not a new major version, and this would break the promise of ^1:');
      const refusal = lineWith(refused.stderr, `the declared break response-property-became-optional Space ${DECLARED.revision.path}`, 'it breaks search-service 3.2.0 (getSpace: ');
      expect(refusal, refused.stderr).toContain('add to that declaration in spec/breaking-changes.yaml: `accepted-by: [search-service]`; or release it as a new major.');
      expect(existsSync(at('generated/releases/1.1.0', root))).toBe(false);
      // check:breaking fails the same, before the release is tried.
      expect(failing.status, failing.output).toBe(1);
      expect(lineWith(failing.stdout, 'PROBLEM: a release that is not a new major may not hold the declared break response-property-became-optional', 'search-service 3.2.0')).toBeDefined();

      declarations([DECLARED.title, { ...DECLARED.revision, 'accepted-by': ['search-service'] }, DECLARED.source], root);
      // Accepted, it is the project's type-check that refuses it: as npm run check runs it, on what the release generated.
      write('tsconfig.json', JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'nodenext', types: [] }, files: ['typed.ts'] }), root);
      write('typed.ts', "export const count: number = 'one';\n", root);
      const before = STATE.map((file) => read(file, root));
      const [untyped, passing, major] = await Promise.all([
        command('release/release.ts', ['1.1.0', '--no-git', '--date', '2026-01-20'], root),
        command('breaking/check.ts', [], root),
        command('breaking/check.ts', ['--as-version', '2.0.0', '--declarations', at('spec/breaking-changes.yaml', copy)], root),
      ]);
      expect(passing.status, passing.output).toBe(0);
      // A new major needs no acceptance (the copy's declarations name none).
      expect(major.status, major.output).toBe(0);
      expect(untyped.status, untyped.output).toBe(1);
      expect(untyped.output).toContain('check typecheck  FAIL  1 type error(s)');
      expect(untyped.output).toMatch(/typed\.ts\(1,14\): error TS2322/);
      expect(untyped.stderr).toContain("release: refused: the project does not type-check against the release (npm run check's typecheck, above)");
      expect(STATE.map((file) => read(file, root))).toEqual(before);
      expect(existsSync(at('generated/releases/1.1.0', root))).toBe(false);

      write('typed.ts', 'export const count: number = 1;\n', root);
      const released = await command('release/release.ts', ['1.1.0', '--no-git', '--date', '2026-01-20'], root);
      expect(released.status, released.output).toBe(0);
      expect(released.stdout).toContain("3 declaration(s) moved into CHANGELOG.md; the project type-checks (npm run check's typecheck).");
      expect(parse(read('generated/releases/1.1.0/breaking-changes.yaml', root))).toContainEqual({ ...DECLARED.revision, 'accepted-by': ['search-service'] });
    },
    COMPILE,
  );
}

/** The major version: what it lets pass, and its release. */
function theMajorVersion(): void {
  test(
    'a higher major version lets undeclared breaking changes pass; a minor release of them is refused and changes nothing',
    async () => {
      declarations([DECLARED.title, DECLARED.revision]);
      // The previous step judged this state (the source declaration left out) in a fork: that run is the check here.
      expect(withoutSource, 'the previous step ran').toBeDefined();
      expect(STATE.map((file) => read(file))).toEqual(withoutSource!.files);
      const failing = withoutSource!.result;
      expect(failing.status, failing.output).toBe(1);
      expect(failing.stdout).toContain('FAILED: 1 undeclared breaking change (0 for clients, 1 for implementations)');

      const before = STATE.map((file) => read(file));
      // Neither writes (the release is refused before it changes anything): they run side by side.
      const [major, refused] = await Promise.all([check('--as-version', '2.0.0'), release('1.1.0')]);
      expect(major.status, major.output).toBe(0);
      expect(lineWith(major.stdout, 'BREAKING (implementation), major version request-property-enum-value-added', 'importSpaceContent'), major.stdout).toBeDefined();
      expect(major.stdout).toContain('check:breaking: passed: 2 breaking declared, 1 breaking allowed by the major version');

      expect(refused.status, refused.output).toBe(1);
      expect(lineWith(refused.stdout, 'BREAKING (implementation) request-property-enum-value-added')).toBeDefined();
      expect(refused.stderr).toContain('release: refused: check:breaking fails for 1.1.0');
      expect(STATE.map((file) => read(file))).toEqual(before);
      expect(existsSync(at('generated/releases/1.1.0'))).toBe(false);
    },
    COMMANDS,
  );

  test(
    'a major release records the document, moves the declarations into its notes and empties the file',
    async () => {
      // The release ran in the fork of the state the previous step left the copy in (it checks that it was left
      // unchanged, and the fork was that state: see the previous step); the story goes on in that fork.
      expect(STATE.map((file) => read(file))).toEqual(withoutSource!.files);
      copy = withoutSource!.root;
      const released = await withoutSource!.release;
      expect(released.status, released.output).toBe(0);
      expect(released.stdout).toContain('2 declaration(s) moved into CHANGELOG.md');
      // A copy of the contract alone has no project to type-check: said, not hidden.
      expect(released.stderr).toContain('release: not type-checked: ');
      // --no-git: the commands that commit and tag it, to run after reviewing.
      expect(released.stdout).toContain('  git commit -m "Release 2.0.0"\n  git tag -a v2.0.0 -m "Release 2.0.0"\n');
      expect(existsSync(at('.git', withoutSource!.root))).toBe(false);
      expect(read('spec/main.tsp')).toMatch(/@info\(#\{\s*version: "2\.0\.0",/);
      expect(read('generated/releases/2.0.0/openapi.yaml')).toBe(read('generated/openapi.yaml'));
      expect(parse(read('generated/releases/2.0.0/breaking-changes.yaml'))).toEqual([DECLARED.title, DECLARED.revision]);
      expect(read('spec/breaking-changes.yaml')).toMatch(/^# [\s\S]*\n\[\]\n$/);
      expect(JSON.parse(read('package.json')).version).toBe('2.0.0');
      expect(JSON.parse(read('conformance/package.json')).version).toBe('2.0.0');

      const changelog = read('CHANGELOG.md');
      expect(changelog.indexOf('## 2.0.0 (2026-02-01)')).toBeLessThan(changelog.indexOf('## 1.0.0 (2026-01-15)'));
      expect(changelog).toContain(`Why: ${DECLARED.revision.reason}`);
      expect(changelog).toContain(
        '- **Breaking for implementations** (`request-property-enum-value-added`): `ImportContentRequest.source`: new value "git".\n' +
          '  What to do: Implementations must handle the new value (an exhaustive switch over the values fails to compile or falls through).\n' +
          '  Allowed by the new major version.',
      );
      // The three read the copy only: side by side.
      const [again, after, sinceFirst] = await Promise.all([notesOf('--to', '2.0.0'), check(), check('--base', '1.0.0')]);
      // npm run changelog -- --to 2.0.0 writes the same notes from the records.
      expect(again.status, again.output).toBe(0);
      const section = changelog.slice(changelog.indexOf('## 2.0.0'), changelog.indexOf('## 1.0.0'));
      expect(again.stdout.replace('## 2.0.0\n', '')).toBe(section.replace('## 2.0.0 (2026-02-01)\n', '').replace(/\n$/, ''));

      expect(after.status, after.output).toBe(0);
      expect(after.stdout).toContain('against release 2.0.0: 0 differences');
      // Against 1.0.0, with the declarations gone, the version in spec/main.tsp is what lets the breaks pass.
      expect(sinceFirst.status, sinceFirst.output).toBe(0);
      expect(lineWith(sinceFirst.stdout, 'BREAKING (client), major version request-property-max-length-decreased', 'createSpace')).toBeDefined();
    },
    COMPILE,
  );
}
