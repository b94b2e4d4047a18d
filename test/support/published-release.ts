// The release the package tests share, made once per run: a copy of the repository committed and tagged as its
// version, the client and the runner packed by their `npm run pack:` lines, the three packages published by
// `npm run publish-release` to a registry whose storage each test file then starts a registry of its own on.
// Why once, and what each file still does alone: test/README.md, "The release the package tests share".
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { SERVER_PACKAGE_NAME } from '../../scripts/build-server-package.ts';
import { copyRepository } from '../../scripts/repo-copy.ts';
import { outcome, rootManifest, runnerManifest } from './packaging.ts';
import { type Registry, startRegistry } from './registry.ts';

const run = promisify(execFile);

/** The user who publishes the release (and, in a file's registry, may publish the server package). */
export const PUBLISHER = 'publisher';

export interface PublishedRelease {
  /** Its version: the repository's. */
  version: string;
  /** The copy of the repository, a git repository whose one commit is tagged `v<version>`, as the release left it. */
  clone: string;
  /** The three tarballs as the registry serves them, `<name>-<version>.tgz`. */
  tarballs: string;
  /** What `npm run publish-release -- <version>` printed (it exited 0), and the address of the registry it published to then. */
  publishOutput: string;
  publishedTo: string;
  /** What `npm run pack:client` and `npm run pack:conformance` printed on stdout, and on stderr, before it. */
  packOutput: string;
  packErrors: string;
  /** What `npm run pack:client` left in the copy: the client built, the server not. */
  afterPackClient: { client: boolean; server: boolean };
  /** The registry's storage, with the three packages published as `latest`: a file's registry starts on a copy of it. */
  storage: string;
}

/**
 * npm's environment for the package tests: this process's without npm's own variables (set under `npm test`, they
 * point a nested npm at this repository) and vitest's (a consumer's vitest would believe it runs inside this one),
 * with an empty user configuration (`userConfig`, written here), so that what npm does and prints comes from the
 * projects and their packages; npm's notice of a newer npm, which speaks of the machine, off.
 */
export function packageEnvironment(userConfig: string): NodeJS.ProcessEnv {
  writeFileSync(userConfig, '');
  return {
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(npm_|VITEST|TINYPOOL)/i.test(name))),
    npm_config_userconfig: userConfig,
    npm_config_update_notifier: 'false',
  };
}

/**
 * npm's environment for an install by the package tests: `env` (packageEnvironment's) without npm's audit and funding
 * requests, and without `--prefer-offline`, whose cached metadata can be another registry's that used the same port
 * (why: test/README.md, "The registry the package tests publish to"; tooling/registry-cache.test.ts).
 */
export function installEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...env, npm_config_audit: 'false', npm_config_fund: 'false' };
}

/** Where the release is made: this run's folder (support/package-run.ts), or, outside a vitest run that provides one, this process's. */
function runFolder(): string {
  let provided = '';
  try {
    provided = inject('packageRunDir');
  } catch {
    // not inside a test file of a run
  }
  return provided || (ownFolder ??= mkdtempSync(path.join(os.tmpdir(), 'package-run-')));
}
let ownFolder: string | undefined;
let made: Promise<PublishedRelease> | undefined;

/**
 * The shared release: made by the first caller of the run (a lock folder decides which), waited for by the others;
 * a failure to make it fails every caller with its cause.
 */
export function publishedRelease(): Promise<PublishedRelease> {
  return (made ??= (async () => {
    const folder = runFolder();
    const done = path.join(folder, 'release.json');
    const failed = path.join(folder, 'release-failed.txt');
    let mine = false;
    try {
      mkdirSync(path.join(folder, 'release.lock'));
      mine = true;
    } catch {
      // another file makes it
    }
    if (mine) {
      try {
        const release = await makeRelease(path.join(folder, 'release'));
        writeFileSync(done, JSON.stringify(release));
      } catch (error) {
        writeFileSync(failed, error instanceof Error ? (error.stack ?? error.message) : String(error));
        throw error;
      }
    }
    // Bounded: the making's own steps are (their timeouts), and so is this wait.
    for (let waited = 0; !existsSync(done); waited += 500) {
      if (existsSync(failed)) throw new Error(`the shared release could not be made (by another test file):\n${readFileSync(failed, 'utf8')}`);
      if (waited > 900_000) throw new Error(`the shared release was not made within 900 s (${folder})`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    return JSON.parse(readFileSync(done, 'utf8')) as PublishedRelease;
  })());
}

async function makeRelease(folder: string): Promise<PublishedRelease> {
  const version = rootManifest.version;
  const clone = path.join(folder, 'repository');
  const tarballs = path.join(folder, 'tarballs');
  const packed = path.join(folder, 'packed');
  mkdirSync(folder, { recursive: true });
  const env = packageEnvironment(path.join(folder, 'npmrc'));
  // The release as its tag names it: the repository's files, committed in a git repository of their own and tagged.
  copyRepository(clone);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: clone, encoding: 'utf8' });
  git('init', '--quiet');
  git('config', 'user.name', 'Release Test');
  git('config', 'user.email', 'release-test@example.invalid');
  git('add', '--all');
  git('commit', '--quiet', '-m', `Release ${version}`);
  git('tag', '--annotate', `v${version}`, '-m', `Release ${version}`);
  const registering = startRegistry({ folder: path.join(folder, 'registry'), env, publishers: { [SERVER_PACKAGE_NAME]: PUBLISHER } });
  let registry: Registry | undefined;
  try {
    // The client's and the runner's `npm run pack:` lines, as a clone runs them (the release below packs all three again).
    const npm = (...args: string[]) => run('npm', args, { cwd: clone, env, timeout: 300_000 });
    const pack = await npm('run', 'pack:client', '--', '--pack-destination', packed);
    const afterPackClient = { client: existsSync(path.join(clone, 'dist/client/index.js')), server: existsSync(path.join(clone, 'dist/server')) };
    const packRunner = await npm('run', 'pack:conformance', '--', '--pack-destination', packed);
    registry = await registering;
    const publisher = await registry.login(PUBLISHER);
    const published = await outcome(run('npm', ['run', 'publish-release', '--', version], { cwd: clone, env: { ...env, npm_config_userconfig: publisher }, timeout: 600_000 }));
    if (published.code !== 0) throw new Error(`npm run publish-release -- ${version} failed:\n${published.output}`);
    mkdirSync(tarballs);
    const names = [rootManifest.name, runnerManifest.name, SERVER_PACKAGE_NAME];
    await run('npm', ['pack', ...names.map((name) => `${name}@${version}`), '--pack-destination', tarballs, '--registry', registry.url], { cwd: tarballs, env, timeout: 120_000 });
    return {
      version,
      clone,
      tarballs,
      publishOutput: published.output,
      publishedTo: registry.url,
      packOutput: pack.stdout + packRunner.stdout,
      packErrors: pack.stderr + packRunner.stderr,
      afterPackClient,
      storage: path.join(folder, 'registry/storage'),
    };
  } finally {
    await (registry ?? (await registering.catch(() => undefined)))?.stop();
  }
}

/**
 * A registry of the test's own (support/registry.ts) in `folder`, serving the shared release: its storage a copy of the
 * release's, its users none yet (`login` adds them), who may publish as `publishers` says.
 */
export async function startReleaseRegistry(release: PublishedRelease, options: { folder: string; env: NodeJS.ProcessEnv; publishers?: Partial<Record<string, string>> }): Promise<Registry> {
  rmSync(path.join(options.folder, 'storage'), { recursive: true, force: true });
  cpSync(release.storage, path.join(options.folder, 'storage'), { recursive: true });
  return startRegistry(options);
}
