// What the tests of the published packages (test/tooling/package.test.ts and server-package.test.ts) share: the
// repository's manifests, the files of a tarball, the Markdown blocks and shell lines a consumer project is made from,
// the consumer TypeScripts' tsc runs in that project, a consumer module of the client's recording mode, a command's
// exit code and output, and what they read of the machine: its processes, a folder's files and how they changed.
import { execFile, execFileSync } from 'node:child_process';
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadContract } from '../../conformance/contract/contract.ts';
import { repoRoot } from './repo.ts';

const run = promisify(execFile);

export const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
/** The contract's info.version, which every package's version is. */
export const contractVersion = (loadContract().document as unknown as { info: { version: string } }).info.version;
/** The repository's package.json: the client package's manifest. */
export const rootManifest = readJson(path.join(repoRoot, 'package.json')) as { name: string; version: string; engines: Record<string, string>; devDependencies: Record<string, string> };
/** The conformance runner package's manifest. */
export const runnerManifest = readJson(path.join(repoRoot, 'conformance/package.json')) as { name: string; version: string };

/** The files of a packed tarball, as paths inside the package (without tar's `package/`), sorted. */
export const listing = (tarball: string) =>
  execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((file) => file.replace(/^package\//, ''))
    .sort();

/** The blocks of a Markdown file marked `<!-- consumer-test: FILE -->`: what the consumer project gets as FILE. */
export function consumerBlocks(file: string): Map<string, string> {
  const blocks = new Map<string, string>();
  for (const [, name, code] of readFileSync(path.join(repoRoot, file), 'utf8').matchAll(/^<!-- consumer-test: (\S+) -->\n```\w+\n([\s\S]*?)\n```$/gm)) {
    blocks.set(name!, `${code}\n`);
  }
  return blocks;
}

/** The fenced blocks of `lang` in `markdown`. */
export function fencedBlocks(markdown: string, lang: string): string[] {
  return [...markdown.matchAll(/^```(\w+)\n([^]*?)^```$/gm)].filter((match) => match[1] === lang).map((match) => match[2]!);
}

/** The README's consumer project: its shell lines and its tsconfig.json (the blocks marked `<!-- consumer-project -->`). */
export function consumerProject(): { sh: string; json: string } {
  const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/^<!-- consumer-project -->\n```(\w+)\n([^]*?)^```$/gm)].map((match) => ({ lang: match[1], code: match[2]! }));
  const sh = blocks.find((block) => block.lang === 'sh')?.code;
  const json = blocks.find((block) => block.lang === 'json')?.code;
  if (!sh || !json) throw new Error('README.md: the consumer project needs a sh block and a json block, each after <!-- consumer-project -->');
  return { sh, json };
}

/** The commands of a shell block: its lines but blank ones and comments, each without its trailing comment. */
export const shellLines = (block: string): string[] =>
  block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line && !line.startsWith('#'));

/**
 * The strict settings the consumer projects' tsconfig.json files start from. Every package's declarations are checked
 * too (the client's, the harness's, openapi-fetch's, vitest's); TypeScript's own (lib.dom.d.ts and the others) are
 * not: checking them was a third of such a tsc run.
 */
export const strictCompilerOptions = {
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  module: 'nodenext',
  moduleResolution: 'nodenext',
  target: 'es2022',
  lib: ['es2022', 'dom'],
  types: [],
  skipLibCheck: false,
  skipDefaultLibCheck: true,
};

/**
 * The TypeScript releases a consumer project is type-checked with, by their package in the repository's node_modules:
 * TypeScript 7, which `npm install typescript` installs today, and the oldest the packages support
 * (docs/packages.md, "TypeScript"). Both are pinned in package.json.
 */
export const CONSUMER_TYPESCRIPTS = ['typescript-native', 'typescript-oldest'] as const;
export type ConsumerTypeScript = (typeof CONSUMER_TYPESCRIPTS)[number];

/**
 * PACKAGE_TESTS=runtime (`.ci/run` on its second and third runtimes): the package tests run what the Node running them
 * can change (installs, the commands, the harness, the servers, the runner) and leave out what is the same on every
 * Node, which the first runtime's whole run checked: the tarballs' contents, the release commands, a Node too old,
 * and what TypeScript accepts (the tsc runs that make a consumer's JavaScript use the first TypeScript alone).
 */
export const runtimeOnly = process.env.PACKAGE_TESTS === 'runtime';
/** The consumer TypeScripts a tsc run uses: every one, or the first alone under PACKAGE_TESTS=runtime. */
const checkedTypeScripts = (): readonly ConsumerTypeScript[] => (runtimeOnly ? CONSUMER_TYPESCRIPTS.slice(0, 1) : CONSUMER_TYPESCRIPTS);
/** The release of a consumer TypeScript, as its package.json gives it: `7.0.2`. */
export const typescriptRelease = (typescript: ConsumerTypeScript): string =>
  (readJson(path.join(repoRoot, 'node_modules', typescript, 'package.json')) as { version: string }).version;

type Checked = { code: number; stdout: string };
/** One TypeScript's tsc on the project in `cwd` (its tsconfig.json): the exit code and what it printed (its diagnostics). */
export const tscWith = (typescript: ConsumerTypeScript, cwd: string, env: NodeJS.ProcessEnv, timeout: number): Promise<Checked> =>
  run(process.execPath, [path.join(repoRoot, 'node_modules', typescript, 'bin/tsc'), '-p', '.', '--pretty', 'false'], { cwd, env, timeout }).then(
    (success) => ({ code: 0, stdout: success.stdout }),
    (failure: { code: number; stdout: string }) => ({ code: failure.code, stdout: failure.stdout }),
  );

/** tsc of each consumer TypeScript (checkedTypeScripts) on the project in `cwd`, side by side: each one's outcome by its release. */
export async function tsc(cwd: string, env: NodeJS.ProcessEnv, timeout: number): Promise<Record<string, Checked>> {
  const typescripts = checkedTypeScripts();
  const outcomes = await Promise.all(typescripts.map((typescript) => tscWith(typescript, cwd, env, timeout)));
  return Object.fromEntries(typescripts.map((typescript, index) => [typescriptRelease(typescript), outcomes[index]!]));
}

/** What `tsc` gives when every consumer TypeScript accepts the project: exit code 0 and nothing printed, for each. */
export const everyTypeScriptAccepts = (): Record<string, Checked> =>
  Object.fromEntries(checkedTypeScripts().map((typescript) => [typescriptRelease(typescript), { code: 0, stdout: '' }]));

/** What a command run through `execFile` ended with: its exit code (0 when it succeeded) and its output, stdout then stderr. */
export const outcome = (command: Promise<{ stdout: string; stderr: string }>): Promise<{ code: number; output: string }> =>
  command.then(
    (success) => ({ code: 0, output: success.stdout + success.stderr }),
    (failure: { code: number; stdout: string; stderr: string }) => ({ code: failure.code, output: failure.stdout + failure.stderr }),
  );

/** Processes of this machine whose command line names `text`. */
export function processesNaming(text: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (command.includes(text)) found.push(`${pid}: ${command}`);
    } catch {
      // ended meanwhile
    }
  }
  return found;
}

/** Waits for `check` to hold, up to a bound (not a time measured: a bound on how long a failure takes to show). */
export async function eventually(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`still not so after 20 s: ${what}`);
}

/** Every file, folder and link under `folder`, each with its size and modification time. */
export function snapshot(folder: string): Map<string, string> {
  const entries = new Map<string, string>();
  for (const file of readdirSync(folder, { recursive: true, encoding: 'utf8' })) {
    const stat = lstatSync(path.join(folder, file));
    entries.set(file, `${stat.isDirectory() ? 'dir' : stat.size} ${stat.mtimeMs}`);
  }
  return entries;
}

/** What differs between two snapshots: `+ path` added, `- path` removed, `~ path` changed. */
export function changes(before: Map<string, string>, after: Map<string, string>): string[] {
  return [
    ...[...after.keys()].filter((file) => !before.has(file)).map((file) => `+ ${file}`),
    ...[...before.keys()].filter((file) => !after.has(file)).map((file) => `- ${file}`),
    ...[...after].filter(([file, state]) => before.has(file) && before.get(file) !== state).map(([file]) => `~ ${file}`),
  ].sort();
}

/** chmod -R a-w, and back (u+w). */
export const makeReadOnly = (folder: string) => execFileSync('chmod', ['-R', 'a-w', folder]);
export const makeWritable = (folder: string) => execFileSync('chmod', ['-R', 'u+w', folder]);

/**
 * A consumer's module that records with the client's recording mode (`docs-platform-conformance/recording`) by the
 * packages' names and types: package.test.ts compiles it with its consumer files, then runs `record(url, folder)`.
 */
export const RECORDING_CONSUMER = `import { createDocsClient, paginate, type DocsClient, type ThrowingDocsClient } from 'docs-platform-contract';
import { flushUsage, mergeUsageRecords, recordingClient, type UsageRecord } from 'docs-platform-conformance/recording';

export async function record(baseUrl: string, folder: string): Promise<UsageRecord | undefined> {
  const options = { folder, consumer: 'package-consumer' };
  // The same types as the clients it wraps.
  const docs: DocsClient = recordingClient(createDocsClient({ baseUrl, token: 'reader' }), options);
  const strict: ThrowingDocsClient = recordingClient(createDocsClient({ baseUrl, token: 'reader', throwOnError: true }), options);
  const { data } = await strict.GET('/v1/orgs/{organizationId}', { params: { path: { organizationId: 'acme' } } });
  const names = [data.title];
  for await (const member of paginate(docs, '/v1/orgs/{organizationId}/members', { params: { path: { organizationId: 'acme' }, query: { limit: 3 } } })) {
    names.push(member.user.displayName);
  }
  const missing = await docs.GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: 'no-such-space' } } });
  if (missing.status !== 404 || missing.error.error.code !== 404 || names.length !== 8) throw new Error('unexpected answers');
  flushUsage();
  return mergeUsageRecords({ folder, log: () => undefined });
}
`;
