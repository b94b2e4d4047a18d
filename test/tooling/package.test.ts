// The two packages (the client and the conformance runner) as consumers get them: packed from a copy of the
// repository's committed files, published to a real registry, installed by name in a new project by the README's
// lines, their examples compiled and run there; and before that, the repository's own install.
// Every step and what it checks: test/README.md, "The packages as consumers get them".
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { releasedNotes } from '../../release/notes.ts';
import { packedVersion, prereleaseLine } from '../../release/prerelease.ts';
import { contractIdentity } from '../../conformance/records/consumer.ts';
import { loadContract } from '../../conformance/contract/contract.ts';
import { SUPPORTED_NODE, supportedNodeText, supportsNode } from '../../server/start/runtime-check.ts';
import { ACME } from '../support/fixture.ts';
import { unsupportedNodeBin } from '../support/old-node.ts';
import { repoRoot } from '../support/repo.ts';
import { consumerBlocks, consumerProject, contractVersion, fencedBlocks, listing, readJson, RECORDING_CONSUMER, rootManifest, runnerManifest, runtimeOnly, shellLines, strictCompilerOptions, tsc } from '../support/packaging.ts';
import { PRIVATE_REGISTRY, type Registry } from '../support/registry.ts';
import { installEnvironment, packageEnvironment, type PublishedRelease, publishedRelease, startReleaseRegistry } from '../support/published-release.ts';
import { sizeTableProblem } from '../support/tarball-sizes.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const run = promisify(execFile);

test.skipIf(runtimeOnly)("the client's and the runner's package versions are the contract's info.version", () => {
  // npm run release sets all three; a version changed by hand in one place only fails here.
  expect({ client: rootManifest.version, runner: runnerManifest.version }).toEqual({ client: contractVersion, runner: contractVersion });
});

test.skipIf(runtimeOnly)("the commands' Node check is the packages' engines: Node 22 from 22.12, 24, 26 and later", () => {
  expect(SUPPORTED_NODE).toBe(rootManifest.engines.node);
  const versions = ['20.20.2', '22.11.0', '22.12.0', '22.23.3', '23.11.1', '24.0.0', '24.21.0', '25.2.1', '26.0.0', '26.10.0', '27.1.0'];
  expect(versions.filter((version) => supportsNode(version))).toEqual(['22.12.0', '22.23.3', '24.0.0', '24.21.0', '26.0.0', '26.10.0', '27.1.0']);
  expect(supportedNodeText()).toBe('Node 22 (22.12 or later), 24, or 26 or later');
});

// What an unsupported Node does is the same whichever Node runs these tests: .ci/run's other runtimes
// (PACKAGE_TESTS=runtime, test/README.md) leave it to the first.
test.skipIf(runtimeOnly)("npm ci in the repository refuses a Node the packages do not support, at once (.npmrc's engine-strict), installing nothing", async () => {
  const bin = unsupportedNodeBin();
  const version = execFileSync(path.join(bin, 'node'), ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
  // The repository's install as a clone has it: its manifest, lockfile and .npmrc, with the old Node first on PATH.
  const clone = mkdtempSync(path.join(os.tmpdir(), 'package-test-old-node-'));
  try {
    for (const file of ['package.json', 'package-lock.json', '.npmrc']) cpSync(path.join(repoRoot, file), path.join(clone, file));
    const env = { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name))), PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` };
    const refused = await run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: clone, env, timeout: 60_000 }).then(
      () => ({ code: 0, stderr: '' }),
      (failure: { code: number; stderr: string }) => failure,
    );
    expect(refused.code, refused.stderr).not.toBe(0);
    expect(refused.stderr).toContain('EBADENGINE');
    expect(refused.stderr).toContain(`Not compatible with your version of node/npm: ${rootManifest.name}@${rootManifest.version}`);
    expect(refused.stderr).toContain(`Required: {"node":"${SUPPORTED_NODE}"}`);
    expect(refused.stderr).toContain(`"node":"v${version}"`);
    expect(existsSync(path.join(clone, 'node_modules'))).toBe(false);
  } finally {
    rmSync(clone, { recursive: true, force: true });
  }
}, 300_000);

test('npm ci runs no install script of a dependency and compiles nothing: each is denied or allowed in allowScripts, for a reason docs/packages.md gives', async () => {
  // The packages with an install script: those the lockfile flags (their own preinstall, install or postinstall), and
  // those with a binding.gyp, for which npm makes one up (`node-gyp rebuild`) on an install from the lockfile, whatever
  // their `"gypfile": false` says (npm/cli#3341).
  const lock = readJson(path.join(repoRoot, 'package-lock.json')) as { packages: Record<string, { name?: string; hasInstallScript?: boolean; link?: boolean }> };
  const nameOf = (folder: string) => lock.packages[folder]!.name ?? folder.slice(folder.lastIndexOf('node_modules/') + 'node_modules/'.length);
  const folders = Object.keys(lock.packages).filter((folder) => folder.startsWith('node_modules/') && !lock.packages[folder]!.link);
  const scripted = folders.filter((folder) => lock.packages[folder]!.hasInstallScript || existsSync(path.join(repoRoot, folder, 'binding.gyp')));
  const allowScripts = (readJson(path.join(repoRoot, 'package.json')).allowScripts ?? {}) as Record<string, boolean>;
  // Each is in allowScripts, and allowScripts names nothing else (its keys are bare names: every version).
  expect([...new Set(scripted.map(nameOf))].sort()).toEqual(Object.keys(allowScripts).sort());

  // docs/packages.md's table of install scripts: a row per entry, saying what the script does and why it is denied or
  // allowed.
  const docs = readFileSync(path.join(repoRoot, 'docs/packages.md'), 'utf8');
  const section = docs.slice(docs.indexOf('\n## Install scripts'));
  const rows = [...section.matchAll(/^\| `([^`]+)` \| (.+?) \| (denied|allowed) \| (.+?) \|$/gm)].map((match) => ({ name: match[1]!, verdict: match[3]!, why: match[4]!.trim() }));
  expect(Object.fromEntries(rows.map((row) => [row.name, row.verdict]))).toEqual(Object.fromEntries(Object.entries(allowScripts).map(([name, allowed]) => [name, allowed ? 'allowed' : 'denied'])));
  expect(rows.filter((row) => row.why.length < 20)).toEqual([]);

  // npm's own view of this node_modules: no install script it would run unreviewed.
  const userConfig = path.join(mkdtempSync(path.join(os.tmpdir(), 'package-test-npmrc-')), 'npmrc');
  writeFileSync(userConfig, '');
  const env = { ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name))), npm_config_userconfig: userConfig, npm_config_update_notifier: 'false' };
  const listed = await run('npm', ['install-scripts', 'ls'], { cwd: repoRoot, env, timeout: 120_000 });
  rmSync(path.dirname(userConfig), { recursive: true, force: true });
  expect(listed.stdout.trim()).toBe('No packages with unreviewed install scripts.');

  // Nothing was built: no package holds anything of node-gyp's (build/config.gypi, build/Makefile, build/Release/).
  expect(folders.filter((folder) => ['config.gypi', 'Makefile', 'Release'].some((file) => existsSync(path.join(repoRoot, folder, 'build', file))))).toEqual([]);
  // better-sqlite3 loads the Node-API binary its package holds for this platform (a binary node-gyp built, in
  // build/Release/, would come first).
  const loaded = await run(
    process.execPath,
    ['-e', "const Database = require('better-sqlite3'); new Database(':memory:').close(); console.log(JSON.stringify(Object.keys(require.cache).filter((file) => file.endsWith('.node'))))"],
    { cwd: repoRoot, timeout: 30_000 },
  );
  expect(JSON.parse(loaded.stdout)).toEqual([expect.stringMatching(new RegExp(`^${repoRoot}/node_modules/better-sqlite3/prebuilds/(${process.platform}|linuxmusl)-${process.arch}\\.node$`))]);
}, 120_000);

// The tests below share one setting-up: the run's shared release (support/published-release.ts), served by a
// registry of this file's, and installed by name.
const scratch = mkdtempSync(path.join(os.tmpdir(), 'package-test-'));
const consumer = path.join(scratch, 'consumer');
let release: PublishedRelease;
let clientTarball = '';
let runnerTarball = '';
// npm's own variables and vitest's left out, and the user's npm configuration (~/.npmrc): support/published-release.ts.
const env = packageEnvironment(path.join(scratch, 'npmrc'));
/** What npm printed to stderr, per command, to check for warnings. */
const npmErrors: string[] = [];
/** What the packing script printed. */
let packOutput = '';
let server: TestServer;
let registry: Registry;
const major = rootManifest.version.split('.')[0]!;
/** The README's lines for the consumer's project, as run: the registry's address for the private one's. */
let lines: string[] = [];

beforeAll(async () => {
  const starting = startTestServer({ recordCoverage: false });
  release = await publishedRelease();
  clientTarball = path.join(release.tarballs, `${rootManifest.name}-${rootManifest.version}.tgz`);
  runnerTarball = path.join(release.tarballs, `${runnerManifest.name}-${runnerManifest.version}.tgz`);
  packOutput = release.packOutput;
  npmErrors.push(release.packErrors);
  registry = await startReleaseRegistry(release, { folder: path.join(scratch, 'registry'), env });
  // The consumer's project, made as the README says, in an empty folder: its lines as they are, this registry's
  // address for the private one's (the client from it; openapi-fetch, typescript and @types/node through it, from the
  // npm registry or npm's cache).
  mkdirSync(consumer);
  const installEnv = installEnvironment(env);
  lines = shellLines(consumerProject().sh).map((line) => line.replace(PRIVATE_REGISTRY, registry.url));
  for (const line of lines) {
    const result = await run('sh', ['-c', line], { cwd: consumer, env: installEnv, timeout: 180_000 });
    npmErrors.push(result.stderr);
  }
  // The runner beside it, for the tests of its package below.
  npmErrors.push((await run('npm', ['install', '--save-dev', `${runnerManifest.name}@^${major}`], { cwd: consumer, env: installEnv, timeout: 120_000 })).stderr);
  server = await starting;
}, 900_000); // the shared release, when this file makes it or waits for it, then the installs

afterAll(async () => {
  await Promise.all([server?.close(), registry?.stop()]);
  rmSync(scratch, { recursive: true, force: true });
});

test.skipIf(runtimeOnly)("the README's lines install the client by name, of this release's major, from the registry the project's npm names", () => {
  expect(lines).toContain(`npm config set registry ${registry.url} --location project`);
  expect(lines).toContain(`npm install ${rootManifest.name}@^${major}`);
  expect(readFileSync(path.join(consumer, '.npmrc'), 'utf8')).toBe(`registry=${registry.url}\n`);
  expect((readJson(path.join(consumer, 'package.json')) as { dependencies: Record<string, string> }).dependencies).toEqual({ [rootManifest.name]: `^${rootManifest.version}` });
  // The server's section, run after these lines in the same folder, installs the client by the same line, a
  // dependency too (server-package.test.ts runs it): npm would otherwise move it to devDependencies, with a warning.
  const serverLines = shellLines(consumerBlocks('README.md').get('install.sh')!);
  expect(serverLines.filter((line) => line.includes(rootManifest.name))).toEqual([`npm install ${rootManifest.name}@^${major}`]);
  // What the registry served is what was packed: the lockfile's address and integrity of each.
  const locked = (readJson(path.join(consumer, 'package-lock.json')) as { packages: Record<string, { resolved?: string; integrity?: string }> }).packages;
  for (const [name, tarball] of [[rootManifest.name, clientTarball], [runnerManifest.name, runnerTarball]] as const) {
    expect(locked[`node_modules/${name}`], name).toMatchObject({
      resolved: `${registry.url}${name}/-/${path.basename(tarball)}`,
      integrity: `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`,
    });
  }
});

test.skipIf(runtimeOnly)("npm run pack:client builds the client only: the package holds no server", () => {
  expect(release.afterPackClient).toEqual({ client: true, server: false });
});

test.skipIf(runtimeOnly)("the tarballs' package.json has no scripts (installing them prints no npm warning, nor does packing), is not private, and has the repository's engines", () => {
  for (const name of [rootManifest.name, runnerManifest.name]) {
    const manifest = readJson(path.join(consumer, 'node_modules', name, 'package.json'));
    expect(manifest.scripts, name).toBeUndefined();
    expect(manifest.devDependencies, name).toBeUndefined();
    expect(manifest.private, name).toBeUndefined();
    // The Node versions of the repository, whatever the package's own package.json says (release/pack.ts).
    expect(manifest.engines, name).toEqual(readJson(path.join(repoRoot, 'package.json')).engines);
    // The repository's license, field and file.
    expect(manifest.license, name).toBe('MIT');
    expect(readFileSync(path.join(consumer, 'node_modules', name, 'LICENSE'), 'utf8'), name).toBe(readFileSync(path.join(repoRoot, 'LICENSE'), 'utf8'));
    // The release notes.
    expect(readFileSync(path.join(consumer, 'node_modules', name, 'CHANGELOG.md'), 'utf8'), name).toBe(releasedNotes(readFileSync(path.join(repoRoot, 'CHANGELOG.md'), 'utf8')));
  }
  expect(npmErrors.join('\n').split('\n').filter((line) => /npm warn/i.test(line))).toEqual([]);
});

test.skipIf(runtimeOnly)("docs/packages.md's tarball sizes are what packing makes, to two significant digits (as npm run pack:… -- --update-sizes writes them); unreleased changes packed as a pre-release, saying so", async () => {
  // The server's: test/tooling/server-package.test.ts, which packs it.
  expect(sizeTableProblem(rootManifest.name, packOutput, 'pack:client')).toBeUndefined();
  expect(sizeTableProblem(runnerManifest.name, packOutput, 'pack:conformance')).toBeUndefined();
  // One line per tarball (npm's notices, a line per file, are not printed), named with the version packed: a
  // pre-release, said in one line before it, while the contract has changes its last release does not.
  const packed = await packedVersion(repoRoot, rootManifest.version);
  const lines = packOutput.split('\n').filter((line) => line.startsWith('pack: '));
  const tarballs = [rootManifest.name, runnerManifest.name].map((name) => expect.stringContaining(`${path.sep}${name}-${packed.version}.tgz: `) as unknown);
  expect(lines).toEqual(packed.unreleased ? [prereleaseLine(packed), tarballs[0], prereleaseLine(packed), tarballs[1]] : tarballs);
  expect(packOutput + npmErrors.join('')).not.toMatch(/npm notice/);
}, 120_000);

test.skipIf(runtimeOnly)("the README's client examples compile under its settings (strict, exactOptionalPropertyTypes) in the project it makes, with its TypeScript", async () => {
  // The examples of its section "Use the client" (the test files of the server's sections are server-package.test.ts's).
  const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Use the client'), readme.indexOf('\n## ', readme.indexOf('\n## Use the client') + 1));
  const examples = fencedBlocks(section, 'ts').filter((code) => code.includes("from 'docs-platform-contract'"));
  expect(examples.length).toBeGreaterThanOrEqual(1);
  // The schemas' types are exported and used as the README shows them.
  expect(examples.some((code) => /Readable<components\['schemas'\]/.test(code))).toBe(true);
  const folder = path.join(consumer, 'readme');
  mkdirSync(folder);
  writeFileSync(path.join(folder, 'tsconfig.json'), consumerProject().json);
  examples.forEach((code, index) => writeFileSync(path.join(folder, `example-${index + 1}.ts`), code));
  // The check the README names, with the TypeScript its lines installed.
  expect(readFileSync(path.join(repoRoot, 'README.md'), 'utf8')).toMatch(/fails\s+`npx tsc --noEmit`/);
  expect(readJson(path.join(consumer, 'package.json')).devDependencies).toMatchObject({ typescript: expect.any(String), '@types/node': expect.any(String) });
  const tsc = await run('sh', ['-c', 'npx tsc --noEmit --pretty false'], {
    cwd: folder,
    env,
    timeout: 60_000,
  }).then(
    (success) => ({ code: 0, stdout: success.stdout }),
    (failure: { code: number; stdout: string }) => ({ code: failure.code, stdout: failure.stdout }),
  );
  expect(tsc.stdout).toBe('');
  expect(tsc.code).toBe(0);
}, 60_000);

test.skipIf(runtimeOnly)('the client package holds the built client, its declarations and the generated types, and depends on openapi-fetch only', () => {
  expect(listing(clientTarball)).toEqual([
    'CHANGELOG.md',
    'LICENSE',
    'README.md',
    'dist/client/index.d.ts',
    'dist/client/index.js',
    'dist/generated/schema.d.ts',
    'package.json',
  ]);
  const installed = readJson(path.join(consumer, 'node_modules', rootManifest.name, 'package.json'));
  expect(installed.dependencies).toEqual({
    'openapi-fetch': expect.any(String),
    'openapi-typescript-helpers': expect.any(String),
  });
  expect(installed.bin).toBeUndefined();
  // Nothing of the server came with it: the consumer has the two packages, openapi-fetch and its helpers (and its
  // own TypeScript and @types/node, with undici-types, as the README's project installs them).
  const own = ['@types', 'undici-types', 'typescript', '@typescript'];
  expect(readdirSync(path.join(consumer, 'node_modules')).filter((name) => !name.startsWith('.') && !own.includes(name)).sort()).toEqual(
    [rootManifest.name, runnerManifest.name, 'openapi-fetch', 'openapi-typescript-helpers'].sort(),
  );
});

test('a consumer type-checks typed calls with strict tsc, which refuses wrong ones, and runs them against the reference server', async () => {
  writeFileSync(
    path.join(consumer, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { ...strictCompilerOptions, outDir: 'out', rootDir: '.' },
      files: ['consumer.ts', 'wrong.ts', 'recording.ts'],
    }),
  );
  writeFileSync(
    path.join(consumer, 'consumer.ts'),
    `import { ApiError, createDocsClient, paginate, type components, type Readable } from 'docs-platform-contract';

export async function run(baseUrl: string) {
  const docs = createDocsClient({ baseUrl, token: 'reader' });
  const { data, error } = await docs.GET('/v1/orgs/{organizationId}', { params: { path: { organizationId: '${ACME}' } } });
  if (error) throw new Error(\`\${error.error.code}: \${error.error.message}\`);
  const organization: Readable<components['schemas']['Organization']> = data;
  const roles: Array<components['schemas']['Role'] | null> = [];
  for await (const member of paginate(docs, '/v1/orgs/{organizationId}/members', {
    params: { path: { organizationId: '${ACME}' }, query: { limit: 2 } },
  })) {
    roles.push(member.role);
  }
  const space = await docs.GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: 'no-such-space' } } });
  const notFound: 404 | undefined = space.status === 404 ? space.error.error.code : undefined;
  const strict = createDocsClient({ baseUrl, token: 'reader', throwOnError: true });
  let missing = 0;
  try {
    await strict.GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: 'no-such-space' } } });
  } catch (failure) {
    if (failure instanceof ApiError && failure.status === 404) missing = failure.body.error.code;
  }
  return { title: organization.title, members: roles.length, notFound, missing };
}
`,
  );
  // Each line marked "wrong" must fail tsc, and no other line.
  const wrong = `import { createDocsClient } from 'docs-platform-contract';

const docs = createDocsClient({ baseUrl: 'http://127.0.0.1:1' });
const organization = { params: { path: { organizationId: '${ACME}' } } };
export const calls = [
  docs.POST('/v1/orgs/{organizationId}/spaces', { ...organization, body: { titel: 'Handbook' } }), // wrong: no such field
  docs.POST('/v1/orgs/{organizationId}/spaces', { ...organization, body: { title: 42 } }), // wrong: a number for a string
  docs.GET('/v1/orgs/{organizationId}', { params: { path: { organisationId: '${ACME}' } } }), // wrong: misspelt parameter
  docs.GET('/v1/organizations'), // wrong: no such path
];
export async function title(): Promise<string> {
  const { data } = await docs.GET('/v1/orgs/{organizationId}', organization);
  return data.title; // wrong: data before checking error
}
export async function missingTitle(): Promise<string | undefined> {
  const result = await docs.GET('/v1/orgs/{organizationId}', organization);
  if (result.status === 404) return result.data.title; // wrong: the data of an error status
  return undefined;
}
`;
  writeFileSync(path.join(consumer, 'wrong.ts'), wrong);
  writeFileSync(path.join(consumer, 'recording.ts'), RECORDING_CONSUMER);
  const markedLines = wrong
    .split('\n')
    .flatMap((line, index) => (line.includes('// wrong') ? [index + 1] : []));

  // Bounds on how long a failure takes to show: tsc with every package's declarations checked, on a loaded machine.
  for (const [release, checked] of Object.entries(await tsc(consumer, env, 180_000))) {
    // Each error with its indented lines: a method with deprecated operations has their signatures as overloads
    // (generated/schema.d.ts, deprecatedCalls), so its error says "No overload matches this call" and the reason below.
    const errors = checked.stdout.split(/\n(?! )/).filter((line) => /: error TS\d+/.test(line));
    expect(checked.code, `${release}: ${checked.stdout}`).not.toBe(0);
    // consumer.ts, recording.ts, the packages' declarations and openapi-fetch's: no error at all.
    expect(errors.filter((line) => !line.startsWith('wrong.ts(')), `${release}: ${checked.stdout}`).toEqual([]);
    const linesWithErrors = [...new Set(errors.map((line) => Number(/^wrong\.ts\((\d+),/.exec(line)![1])))].sort((a, b) => a - b);
    expect(linesWithErrors, `${release}: ${checked.stdout}`).toEqual(markedLines);
    // The unknown field is refused where it is written, in a message that names it and the body's fields (the
    // client's page, docs/client.md, quotes TypeScript 7's, which orders the fields by name; TypeScript 5 as declared).
    // (TypeScript 5.4 places the overloads' error at the call, 7 at the field.)
    const [unknownField, ...others] = errors.filter((line) => line.startsWith(`wrong.ts(${markedLines[0]},`));
    expect(others, release).toEqual([]);
    const declared = /Type 'string' is not assignable to type 'string & UnknownBodyField<"titel", (.*)>'\./.exec(unknownField ?? '');
    expect(declared?.[1]?.split(' | ').sort(), `${release}: ${checked.stdout}`).toEqual(['"editMode"', '"emoji"', '"language"', '"parent"', '"title"']);
    if (release.startsWith('7.')) expect(readFileSync(path.join(repoRoot, 'docs/client.md'), 'utf8').replace(/\s+/g, ' ')).toContain(`UnknownBodyField<"titel", ${declared![1]}>`);
    // A misspelt parameter gets TypeScript's own suggestion.
    expect(errors.some((line) => line.startsWith(`wrong.ts(${markedLines[2]},`) && line.includes("Did you mean to write 'organizationId'?")), `${release}: ${checked.stdout}`).toBe(true);
    // The status narrows the result: a 404 has no data.
    expect(errors.filter((line) => line.startsWith(`wrong.ts(${markedLines[5]},`)), `${release}: ${checked.stdout}`).toEqual([expect.stringContaining("error TS18048: 'result.data' is possibly 'undefined'.")]);
  }

  // tsc emits consumer.js despite wrong.ts: run it against the reference server.
  const answer = await run(
    process.execPath,
    ['--input-type=module', '-e', `const { run } = await import('./out/consumer.js'); console.log(JSON.stringify(await run(process.argv[1])));`, server.url],
    { cwd: consumer, env, timeout: 30_000 },
  );
  expect(answer.stderr).toBe('');
  expect(JSON.parse(answer.stdout)).toEqual({ title: 'Acme', members: 7, notFound: 404, missing: 404 });
}, 300_000);

test.skipIf(runtimeOnly)("the runner package is its bundled command and the client's recording module with its types, with its contract, without dependencies and nothing of the server or the client", () => {
  // Beside these, only the runner's data files (conformance/*.json), copied as they are.
  const files = listing(runnerTarball);
  expect(files.filter((file) => !/^dist\/conformance\/[^/]+\.json$/.test(file))).toEqual([
    'CHANGELOG.md',
    'LICENSE',
    'README.md',
    'dist/THIRD-PARTY-LICENSES.md',
    'dist/docs-conformance.mjs',
    'dist/generated/openapi.yaml',
    ...readdirSync(path.join(repoRoot, 'generated/releases')).map((version) => `dist/generated/releases/${version}/openapi.yaml`),
    'dist/recording.d.ts',
    'dist/recording.mjs',
    'dist/usage-format.d.ts',
    'package.json',
  ]);
  const installed = path.join(consumer, 'node_modules', runnerManifest.name);
  const manifest = readJson(path.join(installed, 'package.json'));
  expect(manifest.dependencies).toBeUndefined();
  expect(manifest.exports).toEqual({ './recording': { types: './dist/recording.d.ts', default: './dist/recording.mjs' }, './package.json': './package.json' });
  expect(readFileSync(path.join(installed, 'dist/generated/openapi.yaml'), 'utf8')).toBe(readFileSync(path.join(repoRoot, 'generated/openapi.yaml'), 'utf8'));
  // esbuild heads each bundled module with its path: the runner's and npm packages', no server or client module.
  for (const [bundle, entry] of [['docs-conformance.mjs', 'runner/runner.ts'], ['recording.mjs', 'records/recording.ts']]) {
    const modules = readFileSync(path.join(installed, 'dist', bundle!), 'utf8').match(/^\/\/ [^\s]+\.(?:ts|js|cjs|mjs)$/gm) ?? [];
    expect(modules, bundle).toContain(`// conformance/${entry}`);
    expect(modules.filter((line) => /^\/\/ (server|client)\/|node_modules\/(express|better-sqlite3|openapi-fetch)\//.test(line)), bundle).toEqual([]);
  }
});

test("the client's recording mode, `docs-platform-conformance/recording`, compiled with the client's types above, records from the install against the reference server", async () => {
  // recording.ts was compiled with consumer.ts by both TypeScripts, without an error (the test above).
  const folder = path.join(consumer, 'usage');
  const recorded = await run(
    process.execPath,
    ['--input-type=module', '-e', `const { record } = await import('./out/recording.js'); console.log(JSON.stringify(await record(process.argv[1], process.argv[2])));`, server.url, folder],
    { cwd: consumer, env, timeout: 30_000 },
  );
  expect(recorded.stderr).toBe('');
  const record = JSON.parse(recorded.stdout) as { consumer: { name: string }; contract: { version: string }; recordedBy: string[]; operations: Record<string, { calls: number; responses: Record<string, { read?: string[] }> }> };
  expect(record).toMatchObject({ consumer: { name: 'package-consumer' }, contract: { version: contractVersion }, recordedBy: ['client'] });
  expect(record.operations.getOrganization!.responses['200 application/json']!.read).toEqual(['/title']);
  expect(record.operations.listMembers!.calls).toBe(3);
  expect(record.operations.listMembers!.responses['200 application/json']!.read).toEqual(['/items', '/items/*', '/items/*/user', '/items/*/user/displayName', '/next', '/next/page']);
  expect(record.operations.getSpace!.responses['404 application/json']!.read).toEqual(['/error', '/error/code']);
  expect(readJson(path.join(folder, 'usage.json'))).toEqual(record);
});

test('docs-conformance runs from the install, with nothing of the repository: --help, and a run against the reference server', async () => {
  const bin = path.join(consumer, 'node_modules/.bin/docs-conformance');
  const help = await run(bin, ['--help'], { cwd: consumer, env, timeout: 30_000 });
  expect(help.stdout).toContain('Usage: docs-conformance --base-url URL --token TOKEN');
  // can-i-deploy finds a release by its version among those the package carries.
  const [release] = readdirSync(path.join(repoRoot, 'generated/releases'));
  const usage = path.join(consumer, 'empty-usage.json');
  const made = contractIdentity(loadContract(path.join(repoRoot, 'generated/releases', release!, 'openapi.yaml')));
  writeFileSync(usage, JSON.stringify({ format: 'docs-platform-usage', version: 2, consumer: { name: 'empty' }, contract: made, recordedBy: ['client'], operations: {} }));
  const deploy = await run(bin, ['can-i-deploy', '--usage', usage, '--contract', release!], { cwd: consumer, env, timeout: 30_000 });
  expect(deploy.stdout).toBe(`can-i-deploy: empty can deploy against ${release}: ✓ (the change from release ${release}, which its record was made against)\n`);

  // A short run (a few operations, the runner's website and Git repository included) proves the bundle works.
  const kept = ['listOrganizations', 'getOrganization', 'createSpace', 'deleteSpace', 'importSpaceContent'];
  const excluded = [...loadContract().operations.keys()].filter((id) => !kept.includes(id));
  const report = path.join(consumer, 'report.json');
  const conformance = await run(bin, ['--base-url', server.url, '--token', 'admin', '--exclude', excluded.join(','), '--report', report, '--junit', path.join(consumer, 'report.xml')], {
    cwd: consumer,
    env,
    timeout: 60_000,
  }).catch((failure: { code: number; stdout: string; stderr: string }) => failure);
  const written = readJson(report) as { contract: string; summary: Record<string, number> };
  expect(written.summary, conformance.stdout + conformance.stderr).toEqual({
    operations: excluded.length + kept.length,
    exercised: kept.length,
    violations: 0,
    excluded: excluded.length,
  });
  expect(written.contract).toBe(path.join(consumer, 'node_modules', runnerManifest.name, 'dist/generated/openapi.yaml'));
  expect(conformance.stdout.trim().split('\n').at(-1)).toBe(`conformance: ${kept.length}/${kept.length} operations exercised, 0 violations`);
}, 90_000);

test("the provider's can-i-deploy --verification and usage merge run from the install; a report of another contract, two consumers, a corrupt record or a newer format is exit 2 naming the file, and nothing is written", async () => {
  // The run above wrote report.json and report.xml (operations excluded: not every operation checked); the recording
  // test wrote usage/usage.json (package-consumer).
  const bin = path.join(consumer, 'node_modules/.bin/docs-conformance');
  const cli = (...args: string[]) =>
    run(bin, args, { cwd: consumer, env, timeout: 30_000 }).then(
      (done) => ({ code: 0, stdout: done.stdout, stderr: done.stderr }),
      (failed: { code: number; stdout: string; stderr: string }) => ({ code: failed.code, stdout: failed.stdout, stderr: failed.stderr }),
    );
  const contract = path.join(consumer, 'node_modules', runnerManifest.name, 'dist/generated/openapi.yaml');
  const recorded = path.join(consumer, 'usage/usage.json');
  mkdirSync(path.join(consumer, 'consumers'));
  cpSync(recorded, path.join(consumer, 'consumers/package-consumer.json'));
  const excluded = Object.values((readJson(path.join(consumer, 'report.json')) as { operations: Record<string, { excluded?: boolean }> }).operations).filter((operation) => operation.excluded).length;
  for (const report of ['report.json', 'report.xml']) {
    // Judged as the change from the contract the record was made against, the installed one (not a release of it).
    const deploy = await cli('can-i-deploy', '--consumers', 'consumers', '--contract', contract, '--base', contract, '--verification', report, '--json', 'deploy.json');
    expect(deploy.code, deploy.stderr).toBe(1);
    expect(deploy.stdout.split('\n').slice(2), report).toEqual([expect.stringMatching(/^\| package-consumer( \S+)? \| ✓ \|$/), `| (implementation) | ✗ ${excluded} not checked |`, '']);
    expect((readJson(path.join(consumer, 'deploy.json')) as Record<string, Record<string, string[]>>)['(implementation)']![contract]).toHaveLength(excluded);
  }
  const other = path.join(consumer, 'other-report.json');
  writeFileSync(other, JSON.stringify({ ...readJson(path.join(consumer, 'report.json')), contractVersion: '0.0.1' }));
  const refused = await cli('can-i-deploy', '--consumers', 'consumers', '--contract', contract, '--verification', other, '--json', 'refused.json');
  expect(refused).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(new RegExp(`^can-i-deploy: ${other}: a report of contract 0\\.0\\.1 \\(SHA-256 [0-9a-f]{12}…\\), not of a contract asked about: `)) });
  expect(existsSync(path.join(consumer, 'refused.json'))).toBe(false);

  // A sharded CI's two records of one consumer into one.
  const merged = await cli('usage', 'merge', recorded, 'consumers/package-consumer.json', '--out', 'merged.json');
  expect(merged.stderr).toMatch(/^usage merge: package-consumer: \d+ operations \(\d+ calls\) of contract [^,]+, from 2 records: merged\.json\n$/);
  const record = readJson(path.join(consumer, 'merged.json')) as { operations: Record<string, { calls: number }> };
  expect(record.operations.listMembers!.calls).toBe(2 * (readJson(recorded) as typeof record).operations.listMembers!.calls);
  const corrupt = path.join(consumer, 'corrupt.json');
  writeFileSync(corrupt, readFileSync(recorded, 'utf8').slice(0, 80));
  const newer = path.join(consumer, 'newer.json');
  writeFileSync(newer, JSON.stringify({ ...readJson(recorded), version: 3 }));
  for (const [file, problem] of [
    [path.join(consumer, 'empty-usage.json'), 'records of two consumers, package-consumer and empty'],
    [corrupt, 'not JSON'],
    [newer, 'written in version 3 of the format; this reads version 2'],
  ] as const) {
    const bad = await cli('usage', 'merge', recorded, file, '--out', 'never.json');
    expect(bad, file).toMatchObject({ code: 2, stdout: '', stderr: expect.stringContaining(`usage merge: ${file}: ${problem}`) });
    expect(bad.stderr.trimEnd().split('\n')).toHaveLength(1);
  }
  expect(existsSync(path.join(consumer, 'never.json'))).toBe(false);
}, 90_000);
