// A real npm registry for the package tests: Verdaccio, on 127.0.0.1 and a free port, its configuration and storage
// in a folder the test gives, a child process that ends with the test; the three packages served from its storage
// only, every other name proxied from npm's configured registry, no newer than the repository's lockfile has it.
// Why it serves what it serves: test/README.md, "The registry the package tests publish to".
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { repoRoot } from './repo.ts';

/** The address the README's line for a private registry names (`npm config set registry …`): the tests put this one's. */
export const PRIVATE_REGISTRY = 'https://npm.example.com/';

/** The names only the registry's storage serves: the packages this repository publishes. */
export const OWN_PACKAGES = ['docs-platform-contract', 'docs-platform-conformance', 'docs-platform-server'];

/**
 * The versions of other packages the registry hides: for each package the repository's package-lock.json holds (by
 * its name, an alias's too), those above every version the lockfile has of it, as Verdaccio's package filter takes
 * them (`>a >b`: above both). Another package's versions are all served.
 */
export function versionsAboveLockfile(lockfile = path.join(repoRoot, 'package-lock.json')): { package: string; versions: string }[] {
  const { packages } = JSON.parse(readFileSync(lockfile, 'utf8')) as { packages: Record<string, { name?: string; version?: string; link?: boolean }> };
  const locked = new Map<string, Set<string>>();
  for (const [folder, entry] of Object.entries(packages)) {
    const at = folder.lastIndexOf('node_modules/');
    if (at < 0 || entry.link || entry.version === undefined) continue;
    const name = entry.name ?? folder.slice(at + 'node_modules/'.length);
    if (OWN_PACKAGES.includes(name)) continue;
    locked.set(name, (locked.get(name) ?? new Set()).add(entry.version));
  }
  return [...locked].map(([name, versions]) => ({ package: name, versions: [...versions].map((version) => `>${version}`).join(' ') }));
}

export interface Registry {
  /** Its address, `http://127.0.0.1:PORT/`. */
  url: string;
  /**
   * Adds a user, as `npm adduser` does, and writes an npm user configuration (an `.npmrc`) in the registry's folder
   * that names the registry and the user's token: npm publishes as that user with `npm_config_userconfig` set to it.
   */
  login(user: string): Promise<string>;
  /** What it printed (its log, warnings and errors). */
  output(): string;
  /** Stops it. */
  stop(): Promise<void>;
}

export interface RegistryOptions {
  /** Its configuration, storage and users' files go here. */
  folder: string;
  /** The environment `npm config get registry` reads the upstream registry in (the tests' own npm settings). */
  env: NodeJS.ProcessEnv;
  /** Who may publish each own package (a user, or `$authenticated`, the default). */
  publishers?: Partial<Record<string, string>>;
  /** The port to listen on; a free one by default. */
  port?: number;
}

export async function startRegistry({ folder, env, publishers = {}, port = 0 }: RegistryOptions): Promise<Registry> {
  mkdirSync(folder, { recursive: true });
  const upstream = execFileSync('npm', ['config', 'get', 'registry'], { cwd: folder, env, encoding: 'utf8' }).trim();
  const config = path.join(folder, 'config.yaml');
  writeFileSync(
    config,
    stringify({
      storage: path.join(folder, 'storage'),
      auth: { htpasswd: { file: path.join(folder, 'htpasswd'), max_users: 100 } },
      uplinks: { upstream: { url: upstream, cache: false } },
      filters: { '@verdaccio/package-filter': { block: versionsAboveLockfile() } },
      packages: {
        ...Object.fromEntries(OWN_PACKAGES.map((name) => [name, { access: '$all', publish: publishers[name] ?? '$authenticated', unpublish: 'nobody' }])),
        '**': { access: '$all', publish: 'nobody', proxy: 'upstream' },
      },
      web: { enable: false },
      log: { type: 'stdout', format: 'json', level: 'warn' },
    }),
  );
  // Started through its programmatic API (runServer), which listens where it is told: port 0 is a free one.
  const script = `import { runServer } from 'verdaccio';
const server = await runServer(process.argv[1]);
server.listen(Number(process.argv[2]), '127.0.0.1', () => console.log(\`registry listening on http://127.0.0.1:\${server.address().port}/\`));
process.stdin.on('close', () => process.exit(0));
process.stdin.resume();`;
  const child: ChildProcess = spawn(process.execPath, ['--input-type=module', '-e', script, config, String(port)], { cwd: repoRoot, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let printed = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the registry did not listen within 60 s:\n${printed}`)), 60_000);
    const read = (chunk: Buffer) => {
      printed += chunk;
      const match = /registry listening on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(printed);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the registry exited before listening:\n${printed}`));
    });
  });

  return {
    url,
    output: () => printed,
    async login(user) {
      const answer = await fetch(`${url}-/user/org.couchdb.user:${encodeURIComponent(user)}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: user, password: `${user}-password`, type: 'user', roles: [], date: new Date().toISOString() }),
      });
      const { token } = (await answer.json()) as { token?: string };
      if (!answer.ok || !token) throw new Error(`the registry refused the user ${user}: ${answer.status}`);
      const userConfig = path.join(folder, `${user}.npmrc`);
      writeFileSync(userConfig, `registry=${url}\n${url.replace(/^http:/, '')}:_authToken=${token}\n`);
      return userConfig;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
