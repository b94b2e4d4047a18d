// The three packages as a consumer gets them: released and published to a real registry by the release command,
// installed by name in a new project by the README's lines, and used there as the README and server/docs/harness.md
// say, on both engines and on a Node too old; then the next minor release, published and taken by `npm update`.
// Every step, and why npm runs with an empty configuration: test/README.md, "The release as consumers get it".
import { execFile, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Root } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { releasedNotes } from '../../release/notes.ts';
import { loadContract } from '../../conformance/contract/contract.ts';
import { parseUsageRecord } from '../../conformance/records/usage-format.ts';
import { ADDED_OPERATION } from '../../bench/save.ts';
import { DEPENDENCIES, sameMajor, SERVER_PACKAGE_NAME } from '../../scripts/build-server-package.ts';
import { DEPENDENCY_BUDGET, installedPackages, PACKED_BUDGET_BYTES } from '../../scripts/server-package-size.ts';
import { supportedNodeText } from '../../server/start/runtime-check.ts';
import { implementAddedOperation } from '../support/added-operation.ts';
import { createTestDatabase } from '../support/databases.ts';
import { changes, consumerBlocks, contractVersion, eventually, listing, makeReadOnly, makeWritable, outcome, processesNaming, readJson, rootManifest, runnerManifest, runtimeOnly, shellLines, snapshot, tsc, tscWith, everyTypeScriptAccepts } from '../support/packaging.ts';
import { PRIVATE_REGISTRY, type Registry } from '../support/registry.ts';
import { installEnvironment, packageEnvironment, PUBLISHER, publishedRelease, startReleaseRegistry } from '../support/published-release.ts';
import { repoRoot } from '../support/repo.ts';
import { unsupportedNodeBin } from '../support/old-node.ts';
import { aloneScript, brokenProxy, callScript, harnessTsconfig, harnessTypes, isolationTest, killedScript, misspeltPatchTest, teamStatsTest, teamStatsTsconfig, unansweredAddress } from '../support/server-package-consumer.ts';
import { sizeTableProblem } from '../support/tarball-sizes.ts';

const run = promisify(execFile);
// The tests below share one setting-up: the three packages, published by the release command (the run's shared
// release, support/published-release.ts) and installed by name from a registry of this file's on its storage.
const scratch = mkdtempSync(path.join(os.tmpdir(), 'server-package-test-'));
const consumer = path.join(scratch, 'consumer');
const alone = path.join(scratch, 'server-alone');
const version = rootManifest.version;
const major = version.split('.')[0]!;
const names = [rootManifest.name, runnerManifest.name, SERVER_PACKAGE_NAME];
const installed = path.join(consumer, 'node_modules', SERVER_PACKAGE_NAME);
const readme = consumerBlocks('README.md');
const serverReadme = consumerBlocks('server/docs/harness.md');
/** The README's shell lines (`install.sh`), comments left out. */
const installLines = shellLines(readme.get('install.sh')!);
// npm's own variables and vitest's left out, and the user's npm configuration (~/.npmrc): support/published-release.ts.
const env = packageEnvironment(path.join(scratch, 'npmrc'));
const npm = (cwd: string, ...args: string[]) => run('npm', args, { cwd, env, timeout: 120_000 });
/** The copy of the repository the release was made in (the last test releases the next one there), and its tarballs. */
let clone = '';
let tarballs = '';
let serverTarball = '';
let registry: Registry;
/** npm's user configuration for publishing as the user who may publish the three packages. */
let publisher = '';
/** What `npm run publish-release` printed, and the registry it published to. */
let publishOutput = '';
let publishedTo = '';
/** Each install's command, what it printed and how long it took. */
const installs: { what: string; output: string }[] = [];

/** git in the copy of the repository: its output; throws when it fails. */
const git = (...args: string[]) => execFileSync('git', args, { cwd: clone, encoding: 'utf8' }).trim();
/** `npm run publish-release -- …` in the copy, as the user of `userConfig`: its exit code and output. */
const publishRelease = (userConfig: string, ...args: string[]) =>
  outcome(run('npm', ['run', 'publish-release', '--', ...args], { cwd: clone, env: { ...env, npm_config_userconfig: userConfig }, timeout: 300_000 }));

beforeAll(async () => {
  const release = await publishedRelease();
  ({ clone, tarballs, publishOutput, publishedTo } = release);
  serverTarball = path.join(tarballs, `${SERVER_PACKAGE_NAME}-${version}.tgz`);
  // The registry: the server package may be published by `publisher` only (the last test publishes as another user).
  registry = await startReleaseRegistry(release, { folder: path.join(scratch, 'registry'), env, publishers: { [SERVER_PACKAGE_NAME]: PUBLISHER } });
  publisher = await registry.login(PUBLISHER);

  // The consumer: an empty folder, where the README's lines (install.sh) run as they are, this registry's address
  // for the private one's, up to the server's start (the tests below run it and the lines after it); then `npm ci`
  // installs again from the lockfile, as the project's CI would.
  mkdirSync(consumer);
  const packageReadme = execFileSync('tar', ['-xzOf', serverTarball, 'package/README.md'], { encoding: 'utf8' });
  const allowScripts = packageReadme.split('\n').filter((line) => line.startsWith('npm pkg set allowScripts'));
  expect(allowScripts).toEqual(['npm pkg set allowScripts.better-sqlite3=false --json']);
  const setup = installLines.slice(0, installLines.findIndex((line) => line.includes('npx docs-platform-server'))).map((line) => line.replace(PRIVATE_REGISTRY, registry.url));
  expect(setup.filter((line) => allowScripts.includes(line))).toEqual(allowScripts);
  expect(setup).toContain(`npm config set registry ${registry.url} --location project`);
  // By name, of the major of this release: the client a dependency, as the README's client section has it.
  expect(setup.filter((line) => line.startsWith('npm install'))).toEqual([
    `npm install ${rootManifest.name}@^${major}`,
    `npm install --save-dev ${[SERVER_PACKAGE_NAME, runnerManifest.name].map((name) => `${name}@^${major}`).join(' ')} vitest`,
  ]);
  const installEnv = installEnvironment(env);
  const install = async (what: string, cwd: string, line: string) => {
    const result = await run('sh', ['-c', line], { cwd, timeout: 240_000, env: installEnv });
    installs.push({ what, output: result.stdout + result.stderr });
  };
  // Beside it, a project with the server package alone (its optional peer, the client, not installed).
  mkdirSync(alone);
  writeFileSync(path.join(alone, 'package.json'), JSON.stringify({ name: 'server-alone', private: true, type: 'module' }));
  await Promise.all([
    (async () => {
      for (const line of setup) await install(line.startsWith('npm install') ? "the README's npm install" : `the README's ${line}`, consumer, line);
      rmSync(path.join(consumer, 'node_modules'), { recursive: true });
      await install('npm ci', consumer, 'npm ci');
    })(),
    (async () => {
      for (const line of allowScripts) await npm(alone, ...line.split(' ').slice(1));
      await install('the server package alone', alone, `npm install --save-dev ${SERVER_PACKAGE_NAME}@^${major} --registry ${registry.url}`);
    })(),
  ]);
  for (const [name, code] of [...readme, ...serverReadme].filter(([name]) => !name.endsWith('.sh'))) {
    mkdirSync(path.dirname(path.join(consumer, name)), { recursive: true });
    writeFileSync(path.join(consumer, name), code);
  }
}, 900_000); // the shared release, when this file makes it or waits for it, then the installs

/** Process groups of npx lines started, stopped after the tests whatever happened to them. */
const started: number[] = [];
afterAll(async () => {
  await registry?.stop();
  for (const group of started) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // stopped already
    }
  }
  if (existsSync(installed)) makeWritable(installed);
  // Thousands of files (the copy of the repository, two projects' node_modules): seconds on a busy machine.
  rmSync(scratch, { recursive: true, force: true });
}, 60_000);

test.skipIf(runtimeOnly)('the tarball holds the compiled server, its command, the harness and the contract: no sources, no toolchain', () => {
  const files = listing(serverTarball);
  const allowed = [
    /^(package\.json|README\.md|LICENSE|CHANGELOG\.md|THIRD-PARTY-LICENSES\.md)$/,
    /^dist\/server\/(main\.js|server\.cjs|openapi\.json)$/,
    /^dist\/testing\/(index\.js|index\.d\.ts|seed-format\.d\.ts|coverage\.d\.ts|coverage-format\.d\.ts|usage\.d\.ts|usage-format\.d\.ts)$/,
    /^generated\/openapi\.yaml$/,
    /^server\/README\.md$/,
    /^server\/docs\/[\w-]+\.md$/,
    /^server\/domain\/openapi-validator\.worker\.js$/,
    /^server\/store\/(sqlite|postgres)\/migrations\/\d+_[\w-]+\.sql$/,
    /^vendor\/(postgres|isomorphic-git|turndown|turndown-plugin-gfm)\.cjs$/,
    /^vendor\/swagger-ui-dist\/[\w.-]+$/,
  ];
  expect(files.filter((file) => !allowed.some((pattern) => pattern.test(file)))).toEqual([]);
  expect(files).toContain('dist/server/server.cjs');
  expect(files).toContain('dist/testing/index.d.ts');
  expect(files.filter((file) => file.includes('/sqlite/migrations/')).length).toBe(readdirSync(path.join(repoRoot, 'server/store/sqlite/migrations')).length);
  expect(readFileSync(path.join(installed, 'generated/openapi.yaml'), 'utf8')).toBe(readFileSync(path.join(repoRoot, 'generated/openapi.yaml'), 'utf8'));
});

test.skipIf(runtimeOnly)("the server's reference is in it, index and pages, and every relative link of its Markdown files resolves inside it", () => {
  const pages = readdirSync(path.join(repoRoot, 'server/docs')).filter((file) => file.endsWith('.md'));
  const markdown = listing(serverTarball).filter((file) => file.endsWith('.md'));
  expect(markdown).toEqual(expect.arrayContaining(['README.md', 'server/README.md', ...pages.map((page) => `server/docs/${page}`)]));
  const broken: string[] = [];
  let relative = 0;
  for (const file of markdown) {
    const links: string[] = [];
    const visit = (node: Root | Root['children'][number]): void => {
      if (node.type === 'link') links.push(node.url);
      if ('children' in node) for (const child of node.children) visit(child as Root['children'][number]);
    };
    visit(fromMarkdown(readFileSync(path.join(installed, file), 'utf8'), { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }));
    for (const url of links.filter((link) => !/^[a-z][a-z0-9+.-]*:/i.test(link) && !link.startsWith('#'))) {
      relative++;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURI(url.split('#', 1)[0]!)));
      if (target.startsWith('..') || !existsSync(path.join(installed, target))) broken.push(`${file}: ${url}`);
    }
  }
  expect(relative).toBeGreaterThan(pages.length);
  expect(broken).toEqual([]);
});

test.skipIf(runtimeOnly)("its manifest: the contract's version, a command, the harness's entry, two dependencies, the client of its major as an optional peer", () => {
  const manifest = readJson(path.join(installed, 'package.json'));
  expect(manifest).toMatchObject({
    name: SERVER_PACKAGE_NAME,
    version: contractVersion,
    type: 'module',
    bin: { [SERVER_PACKAGE_NAME]: './dist/server/main.js' },
    exports: { './testing': { types: './dist/testing/index.d.ts', default: './dist/testing/index.js' } },
    peerDependencies: { [rootManifest.name]: `^${major}.0.0`, typescript: '>=5.4' },
    peerDependenciesMeta: { [rootManifest.name]: { optional: true }, typescript: { optional: true } },
  });
  expect(sameMajor(contractVersion)).toBe(`^${major}.0.0`);
  // Published, so not private (the repository's own package.json files are: npm publish in a clone refuses).
  expect(manifest.private).toBeUndefined();
  expect(readJson(path.join(repoRoot, 'package.json')).private).toBe(true);
  // Every package supports the Node versions the repository does (Node 22 from 22.12, 24, 26 and later).
  const engines = Object.fromEntries(
    [rootManifest.name, SERVER_PACKAGE_NAME, runnerManifest.name].map((name) => [name, readJson(path.join(consumer, 'node_modules', name, 'package.json')).engines]),
  );
  expect(engines).toEqual({ [rootManifest.name]: rootManifest.engines, [SERVER_PACKAGE_NAME]: rootManifest.engines, [runnerManifest.name]: rootManifest.engines });
  // Every package is under the repository's license (the field and the file), and carries the release notes.
  for (const name of [rootManifest.name, SERVER_PACKAGE_NAME, runnerManifest.name]) {
    expect(readJson(path.join(consumer, 'node_modules', name, 'package.json')).license, name).toBe('MIT');
    expect(readFileSync(path.join(consumer, 'node_modules', name, 'LICENSE'), 'utf8'), name).toBe(readFileSync(path.join(repoRoot, 'LICENSE'), 'utf8'));
    expect(readFileSync(path.join(consumer, 'node_modules', name, 'CHANGELOG.md'), 'utf8'), name).toBe(releasedNotes(readFileSync(path.join(repoRoot, 'CHANGELOG.md'), 'utf8')));
  }
  expect(manifest.dependencies).toEqual(Object.fromEntries(DEPENDENCIES.map((name) => [name, rootManifest.devDependencies[name]])));
  expect({ client: rootManifest.version, runner: runnerManifest.version, server: manifest.version }).toEqual({
    client: contractVersion,
    runner: contractVersion,
    server: contractVersion,
  });
});

test.skipIf(runtimeOnly)('its size and what it installs stay within their budgets (npm run size:server)', () => {
  expect(readFileSync(serverTarball).length).toBeLessThanOrEqual(PACKED_BUDGET_BYTES);
  const needed = installedPackages();
  expect(needed.size).toBeLessThanOrEqual(DEPENDENCY_BUDGET);
  // Each is in the consumer's project; none of what the server bundles is.
  const present = (name: string) => existsSync(path.join(consumer, 'node_modules', name, 'package.json'));
  expect([...needed.keys()].filter((name) => !present(name))).toEqual([]);
  expect(['express', 'express-openapi-validator', 'kysely', 'pino', 'postgres', 'isomorphic-git', 'turndown', 'swagger-ui-dist', '@typespec/compiler', 'typescript', 'tsx'].filter(present)).toEqual([]);
});

test.skipIf(runtimeOnly)("npm run publish-release printed a line for each tarball, whose sizes are docs/packages.md's size table's, and published each to the registry as latest", async () => {
  const lines = publishOutput.split('\n').filter((line) => line.startsWith('pack: '));
  const packed = path.join(clone, '.tmp/publish', version);
  expect(lines, publishOutput).toEqual(names.map((name) => expect.stringMatching(new RegExp(`^pack: ${path.join(packed, `${name}-${version}`).replaceAll('.', '\\.')}\\.tgz: \\S+ [kM]B \\(\\S+ [kM]B unpacked\\), \\d+ files$`))));
  expect(sizeTableProblem(SERVER_PACKAGE_NAME, publishOutput, 'pack:server')).toBeUndefined();
  // To the registry the shared release was made with (this file's serves a copy of its storage).
  expect(publishOutput).toContain(`publish-release: published ${names.map((name) => `${name}@${version}`).join(', ')} to ${publishedTo} with the dist-tag latest.`);
  // What the registry has: the version, as latest, and nothing of the packing left in the clone.
  for (const name of names) {
    const { stdout } = await run('npm', ['view', name, 'dist-tags', 'versions', '--json', '--registry', registry.url], { cwd: scratch, env, timeout: 60_000 });
    expect(JSON.parse(stdout), name).toEqual({ 'dist-tags': { latest: version }, versions: [version] });
  }
  expect(existsSync(packed)).toBe(false);
});

test('the installs compile nothing and run no install script, and print no warning', async () => {
  expect(installs.map((install) => install.what)).toEqual(expect.arrayContaining(["the README's npm install", 'npm ci', 'the server package alone']));
  // The README's lines made the project: an ES module one, whose `npm test` is vitest's, with the three packages and
  // vitest: the client its one dependency, the others development ones.
  const project = readJson(path.join(consumer, 'package.json'));
  expect(project).toMatchObject({ type: 'module', scripts: { test: 'vitest run' }, allowScripts: { 'better-sqlite3': false } });
  expect(project.dependencies).toEqual({ [rootManifest.name]: `^${version}` });
  expect(project.devDependencies).toEqual({ [SERVER_PACKAGE_NAME]: `^${version}`, [runnerManifest.name]: `^${version}`, vitest: expect.any(String) });
  // The project's npm names the registry (the README's line for a private one), and the lockfile the packages it served.
  expect(readFileSync(path.join(consumer, '.npmrc'), 'utf8')).toBe(`registry=${registry.url}\n`);
  const locked = (readJson(path.join(consumer, 'package-lock.json')) as { packages: Record<string, { resolved?: string; integrity?: string }> }).packages;
  for (const name of names) {
    expect(locked[`node_modules/${name}`]?.resolved, name).toBe(`${registry.url}${name}/-/${name}-${version}.tgz`);
    expect(locked[`node_modules/${name}`]?.integrity, name).toBe(`sha512-${createHash('sha512').update(readFileSync(path.join(tarballs, `${name}-${version}.tgz`))).digest('base64')}`);
  }
  expect(readJson(path.join(consumer, 'package.json')).allowScripts).toEqual({ 'better-sqlite3': false });
  for (const { what, output } of installs) {
    // npm runs an install script with `npm info run …` (or, in its warning, lists those it would run): none here,
    // nor node-gyp's output, nor any other warning.
    expect(output.split('\n').filter((line) => /npm warn|install-scripts|gyp/i.test(line)), `${what}:\n${output}`).toEqual([]);
  }
  // No package of either project was built: nothing of node-gyp's (build/config.gypi, build/Makefile, build/Release/).
  for (const project of [consumer, alone]) {
    const packages = Object.keys((readJson(path.join(project, 'package-lock.json')) as { packages: Record<string, unknown> }).packages).filter(Boolean);
    const built = packages.filter((folder) => ['config.gypi', 'Makefile', 'Release'].some((file) => existsSync(path.join(project, folder, 'build', file))));
    expect(built, project).toEqual([]);
  }
  // better-sqlite3 loads the binary its package holds for this platform.
  const loaded = await run(process.execPath, ['-e', "const Database = require('better-sqlite3'); new Database(':memory:').close(); console.log(JSON.stringify(Object.keys(require.cache).filter((file) => file.endsWith('.node'))))"], {
    cwd: consumer,
    env,
    timeout: 30_000,
  });
  expect(JSON.parse(loaded.stdout)).toEqual([expect.stringMatching(new RegExp(`/node_modules/better-sqlite3/prebuilds/(${process.platform}|linuxmusl)-${process.arch}\\.node$`))]);
});

test('the server installed read-only starts, serves and stops cleanly, and writes nothing into node_modules', async () => {
  // As root (as the tests run here) a read-only folder is written all the same: what matters is what changed, every
  // file of node_modules with its size and modification time, from before the start to after the stop.
  const modules = path.join(consumer, 'node_modules');
  const dataDir = mkdtempSync(path.join(scratch, 'read-only-data-'));
  makeReadOnly(installed);
  try {
    const before = snapshot(modules);
    const server = startNpx({ DATA_DIR: dataDir });
    let output = '';
    try {
      const url = await server.url;
      const answer = await fetch(`${url}/v1/orgs`, { headers: { authorization: 'Bearer secret' } });
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { items: { id: string }[] }).items.map((organization) => organization.id)).toEqual(['demo']);
    } finally {
      output = await server.stop();
    }
    expect(output).not.toMatch(/"level":(50|60)/);
    expect(changes(before, snapshot(modules)), 'files of node_modules written, removed or changed by the server').toEqual([]);
    // Nor before this test: the installed package holds the tarball's files and nothing else.
    const files = readdirSync(installed, { recursive: true, encoding: 'utf8' }).filter((file) => !lstatSync(path.join(installed, file)).isDirectory());
    expect(files.sort()).toEqual(listing(serverTarball));
    expect(readdirSync(dataDir)).toContain('data.sqlite');
  } finally {
    makeWritable(installed);
  }
}, 60_000);

test.skipIf(runtimeOnly)("strict tsc accepts the harness and faults test files of the README and server/docs/harness.md, typed from the installed packages, and the harness's types as documented", async () => {
  // The installed declarations of the harness: `Seed`, inferred from the seed format's schema, takes a null email
  // and refuses a field the format does not have; clientWith with throwOnError gives the throwing client.
  writeFileSync(path.join(consumer, 'harness-types.ts'), harnessTypes);
  writeFileSync(path.join(consumer, 'tsconfig.json'), harnessTsconfig);
  expect(await tsc(consumer, env, 120_000)).toEqual(everyTypeScriptAccepts());
}, 120_000);

/** Two test files that run at the same time (each waits for the other), each against a server of its own. */
function writeIsolationFiles(): void {
  mkdirSync(path.join(consumer, 'barrier'), { recursive: true });
  // harness.md's vitest settings (vitest.config.mjs, written with its blocks) run these files side by side.
  expect(serverReadme.has('vitest.config.mjs')).toBe(true);
  for (const [me, other] of [
    ['a', 'b'],
    ['b', 'a'],
  ] as const) {
    writeFileSync(
      path.join(consumer, `test/isolation-${me}.test.ts`),
      isolationTest(me, other),
    );
  }
}

test("npm test, as server/docs/harness.md runs it: the harness and faults examples and two files side by side, each with its own server; no server outlives the run", async () => {
  writeIsolationFiles();
  try {
    expect(shellLines(serverReadme.get('test.sh')!)).toEqual(['npm test']);
    const vitest = await outcome(run('sh', ['-c', 'npm test'], { cwd: consumer, env: { ...env, NO_COLOR: '1' }, timeout: 120_000 }));
    expect(vitest.code, vitest.output).toBe(0);
    // A line per file: those of the harness passed, harness.md's suite over the network skipped (no DOCS_API_URL).
    const files = vitest.output.split('\n').flatMap((line) => /^ ([✓↓×]) (test\/\S+) \((.*?)\)/.exec(line)?.slice(1).join(' ') ?? []).sort();
    expect(files, vitest.output).toEqual([
      '↓ test/api.test.ts 1 test | 1 skipped',
      '✓ test/faults.test.ts 1 test',
      '✓ test/isolation-a.test.ts 1 test',
      '✓ test/isolation-b.test.ts 1 test',
      '✓ test/readme.test.ts 2 tests',
    ]);
    expect(processesNaming(path.join(realpathSync(consumer), 'node_modules', SERVER_PACKAGE_NAME))).toEqual([]);
    // harness.md's globalSetup: one coverage line for the run, from the servers of every file, and its reports.
    const coverageLines = vitest.output.split('\n').filter((line) => line.startsWith('docs-platform-server coverage:'));
    expect(coverageLines, vitest.output).toEqual([
      expect.stringMatching(/^docs-platform-server coverage: 3\/\d+ operations seen, 5\/\d+ declared responses seen \(0\.\d %\): docs-platform-coverage\/coverage\.md$/),
    ]);
    const coverage = readJson(path.join(consumer, 'docs-platform-coverage/coverage.json')) as { operations: Record<string, { seen: string[] }> };
    expect(coverage.operations.getSpace!.seen).toEqual(['200', '429', '503']);
    expect(readFileSync(path.join(consumer, 'docs-platform-coverage/coverage.md'), 'utf8')).toMatch(/^\| `getSpace` \| ✓ \|/m);
    // harness.md's second globalSetup: one usage line, and the project's record of what every file's requests used,
    // the operations coverage saw answered (none was refused by the validator).
    const usageLines = vitest.output.split('\n').filter((line) => line.startsWith('docs-platform-server usage:'));
    expect(usageLines, vitest.output).toEqual([
      expect.stringMatching(/^docs-platform-server usage: consumer called 3 operations \(\d+ requests\) of contract \d+\.\d+\.\d+: docs-platform-usage\/usage\.json$/),
    ]);
    const usage = parseUsageRecord(readFileSync(path.join(consumer, 'docs-platform-usage/usage.json'), 'utf8'), 'usage.json');
    expect(usage).toMatchObject({ consumer: { name: 'consumer', version: '1.0.0' }, recordedBy: ['harness'] });
    const answered = Object.entries(coverage.operations).flatMap(([operationId, entry]) => (entry.seen.length > 0 ? [operationId] : []));
    expect(Object.keys(usage.operations).sort()).toEqual(answered.sort());
    expect(Object.keys(usage.operations.getSpace!.responses).sort()).toEqual(['200 application/json', '429 application/json', '503 application/json']);
  } finally {
    // The project is the README's again for the tests after this one.
    for (const file of ['test/isolation-a.test.ts', 'test/isolation-b.test.ts', 'barrier']) rmSync(path.join(consumer, file), { recursive: true, force: true });
  }
}, 120_000);

test("node's test runner runs server/docs/harness.md's example, with contract coverage as the page says", async () => {
  // Coverage on by its variable (node's test processes inherit it), reported by a script after the run.
  const result = await outcome(run(process.execPath, ['--test', 'node-test/spaces.test.mjs'], { cwd: consumer, env: { ...env, DOCS_SERVER_COVERAGE: '1' }, timeout: 60_000 }));
  expect(result.code, result.output).toBe(0);
  // The summary of node's reporter: TAP's `# pass 2`, or spec's `ℹ pass 2` (Node 23 and later).
  expect(result.output).toMatch(/^(#|ℹ) pass 2$/m);
  const report = await run(process.execPath, ['--input-type=module', '-e', "import { reportCoverage } from 'docs-platform-server/testing'; reportCoverage();"], {
    cwd: consumer,
    env: { ...env, DOCS_SERVER_COVERAGE: '1' },
    timeout: 30_000,
  });
  expect(report.stdout).toMatch(/^docs-platform-server coverage: 2\/\d+ operations seen, 2\/\d+ declared responses seen \(0\.\d %\): docs-platform-coverage\/coverage\.md\n$/);
}, 60_000);

test('a killed test process takes its harness server with it', async () => {
  // The process starts a server through the harness, says where, and is killed by SIGKILL: no exit hook runs.
  writeFileSync(path.join(consumer, 'killed.mjs'), killedScript);
  const child = spawn(process.execPath, ['killed.mjs'], { cwd: consumer, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk));
  const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, how) => resolve(how)));
  expect(signal, output).toBe('SIGKILL');
  const url = output.trim().split('\n')[0]!;
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  const answers = () => fetch(`${url}/health`).then(() => true, () => false);
  await eventually(async () => !(await answers()), `${url} still answers after its test process was killed`);
  await eventually(() => processesNaming(path.join(realpathSync(consumer), 'node_modules', SERVER_PACKAGE_NAME)).length === 0, 'a server process is left');
}, 60_000);

test('without the client package, the server package installs and its harness runs; only `client` is missing, and says so', async () => {
  expect(readdirSync(path.join(alone, 'node_modules')).filter((name) => name.startsWith('docs-platform'))).toEqual([SERVER_PACKAGE_NAME]);
  writeFileSync(path.join(alone, 'alone.mjs'), aloneScript);
  const result = await run(process.execPath, ['alone.mjs'], { cwd: alone, env, timeout: 60_000 });
  const answer = JSON.parse(result.stdout) as { status: string; missing: string };
  expect(answer.status).toBe('ok');
  expect(answer.missing).toMatch(/^docs-platform-server\/testing: a client needs the client package, docs-platform-contract, installed beside the server package/);
}, 60_000);

/** Starts the README's npx line (port 0 for 3000) and resolves with its address once it listens. */
function startNpx(variables: Record<string, string>) {
  const line = installLines.find((text) => text.includes('npx docs-platform-server'))!;
  expect(line).toBe('ALLOW_PRIVATE_ADDRESSES=127.0.0.1 npx docs-platform-server --port 3000 --token secret');
  const child = spawn('sh', ['-c', line.replace('--port 3000', '--port 0')], { cwd: consumer, env: { ...env, ...variables }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  started.push(child.pid!);
  let output = '';
  const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const url = new Promise<string>((resolve, reject) => {
    setTimeout(() => reject(new Error(`npx docs-platform-server did not listen within 30 s:\n${output}`)), 30_000).unref();
    const read = (chunk: Buffer) => {
      output += chunk;
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    void exit.then((code) => reject(new Error(`npx docs-platform-server exited with ${code} before listening:\n${output}`)));
  });
  // npx and the server are a process group of their own: SIGTERM reaches the server as from a terminal, and the
  // server says it shuts down (npm itself ends by the signal).
  const stop = async () => {
    process.kill(-child.pid!, 'SIGTERM');
    await exit;
    await eventually(() => /"msg":"shutting down"/.test(output), 'the server did not say it shuts down');
    return output;
  };
  return { url, stop };
}

test("npx docs-platform-server --help gives the package's usage, not a clone's scripts, and docs that are in the package", async () => {
  const { stdout } = await run('npx', ['docs-platform-server', '--help'], { cwd: consumer, env, timeout: 30_000 });
  const usage = stdout.slice(stdout.indexOf('Usage:\n'), stdout.indexOf('\n\n', stdout.indexOf('Usage:\n'))).split('\n').slice(1);
  expect(usage).toEqual([expect.stringMatching(/^  npx docs-platform-server \[options\] /)]);
  expect(stdout).not.toMatch(/npm start|npm run|tsx|dist\/server\/main\.js/);
  expect(stdout).toContain('DOCS_API_TOKEN=secret npx docs-platform-server\n');
  const docs = [...stdout.matchAll(/^(?:Docs:| ) +(\/\S+\.md) \(/gm)].map((match) => match[1]!);
  expect(docs).toEqual([path.join(realpathSync(installed), 'server/README.md'), path.join(realpathSync(installed), 'README.md')]);
  for (const file of docs) expect(existsSync(file), file).toBe(true);
}, 60_000);

test("npx docs-platform-server starts as the README says; the installed client calls it, and the README's npx docs-conformance passes", async () => {
  const server = startNpx({});
  try {
    const url = await server.url;
    // The installed client: the demo organization, a space written and read back, a change request's PDF (pdfkit), an
    // OpenAPI specification processed (the validator's worker).
    writeFileSync(path.join(consumer, 'call.mjs'), callScript);
    const called = await run(process.execPath, ['call.mjs', url], { cwd: consumer, env, timeout: 60_000 });
    expect(JSON.parse(called.stdout)).toEqual({
      organizations: ['demo'],
      title: 'From npx',
      pdf: ['application/pdf', '%PDF-'],
      openapi: ['complete', null],
    });

    // The installed runner, as the README's line runs it against that server (its address for 127.0.0.1:3000): the
    // whole contract, the Git export and import over HTTP and the website import included (the server reaches the
    // runner's address, 127.0.0.1, as ALLOW_PRIVATE_ADDRESSES in the README's line lets it), exit 0, a JUnit file
    // with no failure and nothing skipped.
    const runnerLine = installLines.find((text) => text.startsWith('npx docs-conformance'))!;
    expect(runnerLine).toBe('npx docs-conformance --base-url http://127.0.0.1:3000 --token secret --junit conformance.xml');
    // The property phase with one generated request per operation (PACKAGE_TEST_EXAMPLES, 1 by default): the bundled
    // runner's phase runs against the packaged server, whose answers to it test/conformance/'s runs (three requests
    // per operation, on both engines) and the README's own line (test/tooling/readme.test.ts) check in full.
    // PACKAGE_TEST_EXAMPLES=0 (.ci/run on its other runtimes) turns it off: every operation is still exercised by the
    // scenarios.
    const examples = ` --examples ${Number(process.env.PACKAGE_TEST_EXAMPLES ?? 1)}`;
    const conformance = await run('sh', ['-c', runnerLine.replace('http://127.0.0.1:3000', url) + examples], { cwd: consumer, env, timeout: 150_000 }).then(
      (result) => ({ ...result, code: 0 }),
      (failure: { stdout: string; stderr: string; code: number }) => failure,
    );
    const operations = loadContract().operations.size;
    expect(conformance.stdout.trim().split('\n').at(-1), conformance.stdout + conformance.stderr).toBe(`conformance: ${operations}/${operations} operations exercised, 0 violations`);
    expect(conformance.code, conformance.stdout).toBe(0);
    expect(conformance.stdout).not.toMatch(/^(warning|hint): /m);
    expect(readFileSync(path.join(consumer, 'conformance.xml'), 'utf8')).toMatch(/<testsuites [^>]*failures="0" errors="0" skipped="0"/);
  } finally {
    expect(await server.stop()).not.toMatch(/"level":(50|60)/);
  }
  expect(existsSync(path.join(consumer, 'data/data.sqlite'))).toBe(true);
}, 300_000); // a whole conformance run, as the README's line makes it: about a minute of it on a busy 2-core machine

test("server/docs/harness.md's proxy line runs its npm test through the proxy against the npx server; a suite that sends nothing, a target where nothing answers and a seeded violation of either side fail it", async () => {
  const server = startNpx({});
  // An implementation that breaks the contract: the npx server, but for GET a space, answered without its title.
  const broken = await brokenProxy(server.url);
  const aside = path.join(scratch, 'aside');
  mkdirSync(aside, { recursive: true });
  try {
    const url = await server.url;
    const line = shellLines(serverReadme.get('proxy.sh')!)[0]!;
    expect(line).toBe('npx docs-conformance proxy --target http://127.0.0.1:3000 --report proxy.json --junit proxy.xml -- npm test');
    // The line as printed runs the whole suite; a seeded violation's run names the one file whose requests it judges
    // (`npm test -- <file>`), so that the harness's files, which send nothing through the proxy, do not start their
    // servers again.
    const proxied = (target: string, files: string[] = []) =>
      outcome(run('sh', ['-c', [line.replace('http://127.0.0.1:3000', target), ...(files.length > 0 ? ['--', ...files] : [])].join(' ')], { cwd: consumer, env: { ...env, NO_COLOR: '1' }, timeout: 120_000 }));
    const report = () => readJson(path.join(consumer, 'proxy.json')) as { summary: { requests: number }; violations: { side: string; operationId?: string; pointer?: string }[] };

    // As printed: the consumer's files, harness.md's suite over the network through the proxy (a create and a read), no violation.
    const good = await proxied(url);
    expect(good.code, good.output).toBe(0);
    expect(good.output).toMatch(/^ ✓ test\/api\.test\.ts \(1 test\)/m);
    expect(good.output).toMatch(/^docs-conformance proxy: 2 requests, 0 client violations, 0 implementation violations$/m);
    expect(report().violations).toEqual([]);
    expect(readFileSync(path.join(consumer, 'proxy.xml'), 'utf8')).toMatch(/<testsuites [^>]*failures="0"/);

    // Without the suite that uses DOCS_API_URL, the harness's files pass, but nothing went through the proxy: a failure naming it.
    renameSync(path.join(consumer, 'test/api.test.ts'), path.join(aside, 'api.test.ts'));
    try {
      const unchecked = await proxied(url);
      expect(unchecked.code, unchecked.output).toBe(1);
      expect(unchecked.output).toMatch(/^ ✓ test\/readme\.test\.ts \(2 tests\)/m);
      expect(unchecked.output).toMatch(/^docs-conformance proxy: no request went through the proxy, so nothing was checked: the command's client must send its requests to DOCS_API_URL \(http:\/\/127\.0\.0\.1:\d+, set in its environment\)/m);
      expect(report().summary.requests).toBe(0);
    } finally {
      renameSync(path.join(aside, 'api.test.ts'), path.join(consumer, 'test/api.test.ts'));
    }

    // A target where nothing answers: stopped at once, before npm test.
    const nowhere = await unansweredAddress();
    const unanswered = await proxied(nowhere);
    expect(unanswered.code, unanswered.output).toBe(3);
    expect(unanswered.output.trim().split('\n').at(-1)).toBe(`docs-conformance proxy: nothing answers at ${nowhere} (ECONNREFUSED): start the implementation there, or check --target; the command was not run`);
    expect(unanswered.output).not.toContain('vitest');

    // A client's mistake: a field the contract does not have, sent past the typed client by a file of the suite.
    writeFileSync(path.join(consumer, 'test/mistake.test.ts'), misspeltPatchTest);
    try {
      const client = await proxied(url, ['test/mistake.test.ts']);
      expect(client.code, client.output).toBe(1);
      expect(report().violations).toEqual([expect.objectContaining({ side: 'client', operationId: 'updateOrganization', pointer: '/body/titel' })]);
      expect(client.output).toMatch(/titel/);
    } finally {
      rmSync(path.join(consumer, 'test/mistake.test.ts'));
    }

    // The implementation's: the space answered without its title (the suite's own check fails too).
    const implementation = await proxied(broken.url, ['test/api.test.ts']);
    expect(implementation.code, implementation.output).toBe(1);
    expect(report().violations).toEqual([expect.objectContaining({ side: 'implementation', operationId: 'getSpace' })]);
    expect(implementation.output).toMatch(/title/);
  } finally {
    broken.close();
    expect(await server.stop()).not.toMatch(/"level":(50|60)/);
  }
}, 300_000);

test('npx docs-platform-server runs on PostgreSQL with DATABASE_URL, through the driver it bundles', async () => {
  const database = await createTestDatabase();
  try {
    const server = startNpx({ DATABASE_URL: database.url });
    try {
      const url = await server.url;
      const health = (await (await fetch(`${url}/health`)).json()) as { engine: string; database: string };
      expect(health).toMatchObject({ engine: 'postgres', database: 'reachable' });
      const created = await fetch(`${url}/v1/orgs/demo/spaces`, { method: 'POST', headers: { authorization: 'Bearer secret', 'content-type': 'application/json' }, body: '{"title":"On PostgreSQL"}' });
      expect(created.status).toBe(201);
    } finally {
      expect(await server.stop()).not.toMatch(/"level":(50|60)/);
    }
  } finally {
    await database.drop();
  }
}, 60_000);

// What an unsupported Node does is the same whichever Node runs these tests: .ci/run's other runtimes
// (PACKAGE_TESTS=runtime, test/README.md) leave it to the first.
test.skipIf(runtimeOnly)('on a Node the packages do not support, both commands (--help too) stop at once with one line naming the supported versions', async () => {
  const bin = unsupportedNodeBin();
  const version = execFileSync(path.join(bin, 'node'), ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
  // The installed commands as a shell finds them (`#!/usr/bin/env node`), with that Node first on PATH.
  const oldEnv = { ...env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` };
  const dataDir = path.join(scratch, 'old-node-data');
  const runs = [
    ['docs-platform-server', '--help'],
    ['docs-platform-server', '--version'],
    ['docs-platform-server', '--port', '0', '--data-dir', dataDir],
    ['docs-conformance', '--help'],
    ['docs-conformance', '--base-url', 'http://127.0.0.1:9', '--token', 'secret'],
  ];
  const results = await Promise.all(
    runs.map(([command, ...args]) =>
      run(path.join(consumer, 'node_modules/.bin', command!), args, { cwd: consumer, env: oldEnv, timeout: 20_000 }).then(
        (success) => ({ code: 0, stdout: success.stdout, stderr: success.stderr }),
        (failure: { code: number | null; stdout: string; stderr: string }) => ({ code: failure.code, stdout: failure.stdout, stderr: failure.stderr }),
      ),
    ),
  );
  const line = (command: string) => `${command}: Node ${version} is not supported; use ${supportedNodeText()}\n`;
  expect(results).toEqual(
    runs.map(([command]) => ({ code: command === 'docs-conformance' ? 3 : 1, stdout: '', stderr: line(command!) })),
  );
  expect(existsSync(dataDir)).toBe(false);
  // harness.md's npm test: the harness, loaded by the run's globalSetup, ends it with its line, before vitest fails
  // on that Node in its own way (Map.groupBy) and before any server starts.
  const tests = await outcome(run('sh', ['-c', 'npm test'], { cwd: consumer, env: { ...oldEnv, NO_COLOR: '1' }, timeout: 60_000 }));
  expect(tests.code, tests.output).toBe(1);
  expect(tests.output).toContain(line('docs-platform-server/testing'));
  expect(tests.output).not.toMatch(/Map\.groupBy|coverage:|TypeError/);
}, 300_000);

test.skipIf(runtimeOnly)('the next minor release, an operation added to the contract, published by the release commands under a dist-tag: npm outdated lists it once it is latest, npm update takes it, with the new types, and the tests still pass', async () => {
  const next = `${major}.${Number(version.split('.')[1]) + 1}.0`;
  // A consumer's test of the operation the release adds: typed from the client package, answered by the harness's server.
  writeFileSync(path.join(consumer, 'test/team-stats.test.ts'), teamStatsTest);
  writeFileSync(path.join(consumer, 'tsconfig.json'), teamStatsTsconfig);
  // Before the release, the path is not one the installed client knows (the types are the package's: one TypeScript
  // tells it; both check the types after the update).
  const unknown = await tscWith('typescript-native', consumer, env, 120_000);
  expect(unknown.stdout).toMatch(/^test\/team-stats\.test\.ts\(\d+,\d+\): error TS2345: Argument of type '"\/v1\/orgs\/\{organizationId\}\/teams\/\{teamId\}\/stats"'/m);

  // The release, in the copy of the repository, as docs/changing-the-contract.md takes an added operation: the
  // operation added to spec/, generated, scaffolded, written and committed; then `npm run release`, which commits and
  // tags it.
  appendFileSync(path.join(clone, 'spec/teams.tsp'), ADDED_OPERATION.tsp);
  for (const args of [['run', 'generate'], ['run', 'scaffold', '--', 'getTeamStats']]) {
    const failed = await npm(clone, ...args).then(
      () => '',
      (failure: { stdout: string; stderr: string }) => `npm ${args.join(' ')} failed:\n${failure.stdout}${failure.stderr}`,
    );
    expect(failed).toBe('');
  }
  implementAddedOperation(clone);
  git('add', '--all');
  git('commit', '--quiet', '-m', 'getTeamStats: the statistics of a team');
  // Not released yet: refused; so are the previous release from a later commit, and a dist-tag that is a version.
  const refusals = [
    [[next], 1, `publish-release: refused: there is no tag v${next}: a release is published after npm run release -- ${next} made it\n`],
    [[version], 1, `publish-release: refused: the work tree is not the commit tagged v${version}, which the packages are built from: check it out first (git checkout v${version})\n`],
    [[version, '--tag', next], 2, `publish-release: --tag ${next} is not a dist-tag (a name, not a version)\n`],
  ] as const;
  for (const [args, code, message] of refusals) {
    const refused = await publishRelease(publisher, ...args);
    expect({ code: refused.code, output: refused.output }).toEqual({ code, output: expect.stringContaining(message) });
    expect(refused.output).not.toMatch(/^pack: |npm notice/m);
  }
  const released = await run('npm', ['run', 'release', '--', next], { cwd: clone, env, timeout: 300_000 }).then(
    () => '',
    (failure: { stdout: string; stderr: string }) => `npm run release failed:\n${failure.stdout}${failure.stderr}`,
  );
  expect(released).toBe('');
  expect(git('describe', '--exact-match', 'HEAD')).toBe(`v${next}`);
  writeFileSync(path.join(clone, 'notes.txt'), 'not committed\n');
  const untracked = await publishRelease(publisher, next);
  expect(untracked.code, untracked.output).toBe(1);
  expect(untracked.output).toContain(`publish-release: refused: the work tree has changes to the commit tagged v${next} (git status), which the packages would be built with:\n  ?? notes.txt\n`);
  rmSync(path.join(clone, 'notes.txt'));

  // Published under the dist-tag `next` by a user the registry lets publish the client and the runner only: the two
  // are published, the server is not, and the command says so and how to finish.
  const newcomer = await registry.login('newcomer');
  const view = async (name: string) => JSON.parse((await run('npm', ['view', name, 'versions', 'time', '--json', '--registry', registry.url], { cwd: scratch, env, timeout: 60_000 })).stdout) as { versions: string[]; time: Record<string, string> };
  const stopped = await publishRelease(newcomer, next, '--tag', 'next');
  expect(stopped.code, stopped.output).toBe(1);
  const finish = path.join(clone, '.tmp/publish', next, `${SERVER_PACKAGE_NAME}-${next}.tgz`);
  expect(stopped.output).toContain(
    `publish-release: npm publish of ${SERVER_PACKAGE_NAME}@${next} to ${registry.url} failed (above). Published: ${rootManifest.name}@${next}, ${runnerManifest.name}@${next}; ` +
      `not published: ${SERVER_PACKAGE_NAME}@${next}.\nFinish the release with the tarballs built from v${next}, once the cause is fixed:\n  npm publish ${finish} --tag next\n`,
  );
  // Again: refused before anything is built or published, naming what the registry has.
  const before = await Promise.all(names.map(view));
  const again = await publishRelease(newcomer, next, '--tag', 'next');
  expect(again.code, again.output).toBe(1);
  expect(again.output).toContain(
    `publish-release: refused: ${registry.url} has ${rootManifest.name}@${next}, ${runnerManifest.name}@${next} already: a version is published once, so release a new version. Nothing was published.\n` +
      `${SERVER_PACKAGE_NAME}@${next} is not there: a publication that stopped midway printed the npm publish commands that finish it.`,
  );
  expect(again.output).not.toMatch(/^pack: |npm notice/m);
  expect(await Promise.all(names.map(view))).toEqual(before);
  // Finished as the command said, by the user who may publish the server.
  await run('sh', ['-c', `npm publish ${finish} --tag next`], { cwd: clone, env: { ...env, npm_config_userconfig: publisher }, timeout: 120_000 });
  // The whole release published: a second publication of it is refused, naming the three, and publishes nothing.
  const published = await Promise.all(names.map(view));
  expect(published.map((entry) => entry.versions)).toEqual(names.map(() => [version, next]));
  const twice = await publishRelease(publisher, next);
  expect(twice.code, twice.output).toBe(1);
  expect(twice.output).toContain(`publish-release: refused: ${registry.url} has ${names.map((name) => `${name}@${next}`).join(', ')} already: a version is published once, so release a new version. Nothing was published.\n`);
  expect(twice.output).not.toMatch(/^pack: |npm notice/m);
  expect(await Promise.all(names.map(view))).toEqual(published);

  // Under `next`, the release is not one the consumer's ranges take: `latest`, which satisfies them, still names the
  // previous one. Once `latest` names it (npm dist-tag add, as release/README.md says), npm outdated lists the
  // three (exit 1), and npm update takes them within the README's ranges.
  const outdated = () =>
    run('npm', ['outdated', '--json'], { cwd: consumer, env, timeout: 60_000 }).then(
      (result) => ({ code: 0, listed: JSON.parse(result.stdout) as unknown }),
      (failure: { code: number; stdout: string }) => ({ code: failure.code, listed: JSON.parse(failure.stdout) as unknown }),
    );
  for (const name of names) {
    const { stdout } = await run('npm', ['view', name, 'dist-tags', '--json', '--registry', registry.url], { cwd: scratch, env, timeout: 60_000 });
    expect(JSON.parse(stdout), name).toEqual({ latest: version, next });
  }
  expect(await outdated()).toEqual({ code: 0, listed: {} });
  for (const name of names) {
    await run('npm', ['dist-tag', 'add', `${name}@${next}`, 'latest'], { cwd: scratch, env: { ...env, npm_config_userconfig: publisher }, timeout: 60_000 });
  }
  const listed = await outdated();
  expect(listed.code).toBe(1);
  expect(listed.listed).toMatchObject(Object.fromEntries(names.map((name) => [name, { current: version, wanted: next, latest: next }])));
  const updated = await run('npm', ['update'], { cwd: consumer, env, timeout: 120_000 });
  expect(updated.stderr.split('\n').filter((line) => /npm warn/i.test(line))).toEqual([]);
  for (const name of names) {
    const manifest = readJson(path.join(consumer, 'node_modules', name, 'package.json'));
    expect(manifest.version, name).toBe(next);
    // Its release notes start with this release's, which name the operation added.
    const notes = readFileSync(path.join(consumer, 'node_modules', name, 'CHANGELOG.md'), 'utf8');
    const section = notes.slice(notes.indexOf(`\n## ${next} (`), notes.indexOf(`\n## ${version} (`));
    expect(section, name).toContain('getTeamStats');
  }
  // The new operation's types, and its answer from the server of the release; the README's tests pass beside it.
  expect(await tsc(consumer, env, 120_000)).toEqual(everyTypeScriptAccepts());
  const tests = await outcome(run('sh', ['-c', 'npm test'], { cwd: consumer, env: { ...env, NO_COLOR: '1' }, timeout: 120_000 }));
  expect(tests.code, tests.output).toBe(0);
  expect(tests.output).toMatch(/^ ✓ test\/team-stats\.test\.ts \(1 test\)/m);
  expect(tests.output).toMatch(/^ ✓ test\/readme\.test\.ts \(2 tests\)/m);
  expect(tests.output).toMatch(/^ ✓ test\/faults\.test\.ts \(1 test\)/m);
}, 600_000);
