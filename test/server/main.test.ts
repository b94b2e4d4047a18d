// `npm start` as a process (dist/server/main.js, built at the start of the run): it serves, closes cleanly on
// SIGTERM and SIGINT, keeps every write it answered when killed; `--help`, `--version`, the one-line errors of a
// start that cannot happen, the configuration variables against the docs' table, and the compile cache.
// The cases: test/README.md, "The server as a process".
// @needs processes
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { checkOneByteSource, SERVER_BUNDLE, startCommandWords } from '../../scripts/build-server.ts';
import { SERVER_PACKAGE_NAME as PACKAGE_NAME_BUILT } from '../../scripts/build-server-package.ts';
import { FLAGS, parseCommandLine, SWITCHES } from '../../server/start/command-line.ts';
import { readConfig, VARIABLES } from '../../server/common/config.ts';
import { HOLDER_FILE, LOCK_FILE } from '../../server/start/data-dir.ts';
import { startServer } from '../../server/start/server.ts';
import { engineNote, helpText } from '../../server/main.ts';
import { contractVersion, installation, packageVersion, SERVER_PACKAGE_NAME } from '../../server/http/version.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'docs-main-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/**
 * The environment of every server started here: the compile cache in a folder of the test's (not the user's
 * ~/.cache), and none of Node's compile-cache variables the test runner may have been given.
 */
const cacheHome = path.join(dataDir, 'cache-home');
const { NODE_COMPILE_CACHE: _cache, NODE_DISABLE_COMPILE_CACHE: _disable, ...inherited } = process.env;
const baseEnv = { ...inherited, XDG_CACHE_HOME: cacheHome };

/** The command of `npm start` (after its `exec`), run without npm in between (test/server/signals.test.ts runs it through npm). */
const startCommand = startCommandWords();

/** Starts the server as `npm start` does and resolves with its address once it listens. */
function start(env: Record<string, string> = {}, args: string[] = []) {
  expect(startCommand[0]).toBe('node');
  const child = spawn(process.execPath, [...startCommand.slice(1), ...args], {
    env: { ...baseEnv, PORT: '0', DATA_DIR: dataDir, DOCS_API_TOKEN: 'main-token', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk;
      const match = output.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      if (match) resolve(match[1]!);
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    child.once('exit', (code) => reject(new Error(`exited with ${code} before listening:\n${output}`)));
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, url, exit, output: () => output };
}

describe('npm start', () => {
  test('runs the compiled server, with a small young generation, a slowly growing heap and one V8 helper thread (docs/performance.md, Node flags)', () => {
    expect(startCommand).toEqual(['node', '--max-semi-space-size=2', '--heap-growing-percent=30', '--v8-pool-size=1', 'dist/server/main.js']);
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    test(`serves the API and exits cleanly on ${signal}, keeping the data`, async () => {
      const server = start();
      const base = await server.url;
      const headers = { authorization: 'Bearer main-token', 'content-type': 'application/json' };
      const created = await fetch(`${base}/v1/orgs/demo/spaces`, { method: 'POST', headers, body: JSON.stringify({ title: signal }) });
      expect(created.status).toBe(201);
      server.child.kill(signal);
      expect(await server.exit).toBe(0);
      expect(server.output()).toContain('shutting down');

      const again = start();
      const spaces = (await (await fetch(`${await again.url}/v1/orgs/demo/spaces`, { headers })).json()) as { items: { title: string }[] };
      expect(spaces.items.map((space) => space.title)).toContain(signal);
      again.child.kill('SIGTERM');
      expect(await again.exit).toBe(0);
    }, 60_000); // two starts of a process
  }
});

describe('the address, told to the process that started the server', () => {
  test('ADDRESS_FILE: the address is written once the server listens (nothing in the log), and removed when it stops', async () => {
    const file = path.join(dataDir, 'address.txt');
    const server = start({ LOG_LEVEL: 'silent', ADDRESS_FILE: file, DATA_DIR: path.join(dataDir, 'address-file') });
    server.url.catch(() => {}); // the log says nothing: the address comes from the file
    let address: string | undefined;
    for (let attempt = 0; attempt < 300 && address === undefined; attempt++) {
      if (existsSync(file)) address = readFileSync(file, 'utf8');
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(address).toMatch(/^http:\/\/127\.0\.0\.1:\d+\n$/);
    expect(server.output()).not.toContain('listening on');
    const health = await fetch(`${address!.trim()}/health`);
    expect(health.status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await server.exit).toBe(0);
    expect(existsSync(file)).toBe(false);
  }, 60_000);

  test('IPC: a server started with an IPC channel sends { type: "listening", url } once it listens', async () => {
    const child = spawn(process.execPath, startCommand.slice(1), {
      env: { ...baseEnv, PORT: '0', DATA_DIR: path.join(dataDir, 'address-ipc'), DOCS_API_TOKEN: 'main-token', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const message = await new Promise<{ type: string; url: string }>((resolve, reject) => {
      child.once('message', (received) => resolve(received as { type: string; url: string }));
      child.once('exit', (code) => reject(new Error(`exited with ${code} before its message`)));
    });
    expect(message).toEqual({ type: 'listening', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
    const organizations = await fetch(`${message.url}/v1/orgs`, { headers: { authorization: 'Bearer main-token' } });
    expect(organizations.status).toBe(200);
    const exit = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  }, 60_000);
});

describe('a server killed while it writes', () => {
  test('keeps every write it answered: writes commit together, and before their answers leave', async () => {
    const server = start();
    const base = await server.url;
    const headers = { authorization: 'Bearer main-token', 'content-type': 'application/json' };
    const answered: string[] = [];
    let killed = false;
    const create = async (title: string) => {
      try {
        const response = await fetch(`${base}/v1/orgs/demo/spaces`, { method: 'POST', headers, body: JSON.stringify({ title }) });
        if (response.status === 201 && !killed) answered.push(title);
      } catch {
        // Cut off by the kill: unanswered, so it may or may not have been kept.
      }
      if (answered.length >= 30 && !killed) {
        killed = true;
        server.child.kill('SIGKILL');
      }
    };
    await Promise.all(Array.from({ length: 80 }, (_, index) => create(`killed-${index}`)));
    await server.exit;
    expect(killed).toBe(true);
    expect(answered.length).toBeGreaterThanOrEqual(30);

    const again = start();
    const listed = (await (await fetch(`${await again.url}/v1/orgs/demo/spaces?limit=100`, { headers })).json()) as { items: { title: string }[] };
    const kept = new Set(listed.items.map((space) => space.title));
    expect(answered.filter((title) => !kept.has(title))).toEqual([]);
    again.child.kill('SIGTERM');
    expect(await again.exit).toBe(0);
  }, 60_000);
});

describe('the bundle of the compiled server', () => {
  test('holds no character above U+00FF, so V8 keeps its source at one byte a character; the build refuses one', () => {
    const bundle = readFileSync(SERVER_BUNDLE, 'utf8');
    expect(bundle).not.toMatch(/[^\u0000-\u00ff]/u);
    // Comments are left out: their typographic quotes were what made it two bytes a character.
    expect(bundle).not.toMatch(/^\s*\/\/ /m);
    expect(() => checkOneByteSource(bundle, 'the bundle')).not.toThrow();
    const withQuote = `${bundle.slice(0, 1000)}\nconst quote = /[\u2019]/;\n`;
    expect(() => checkOneByteSource(withQuote, 'server.cjs')).toThrow(/server\.cjs holds characters above U\+00FF[^]*line \d+: ".*const quote = \/\[\u2019/);
    // Latin-1 (é, µ) keeps one byte a character.
    expect(() => checkOneByteSource('const unit = "µs é";', 'latin1')).not.toThrow();
  });

  test('packages loaded on first use load from the bundle: a change request printed to PDF (pdfkit)', async () => {
    const server = start({ DATA_DIR: path.join(dataDir, 'pdf') });
    const base = await server.url;
    try {
      const headers = { authorization: 'Bearer main-token', 'content-type': 'application/json' };
      const call = async (method: string, url: string, body?: unknown) => {
        const response = await fetch(`${base}${url}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
        expect(response.ok, `${method} ${url}: ${response.status}`).toBe(true);
        return (await response.json()) as Record<string, string>;
      };
      const space = await call('POST', '/v1/orgs/demo/spaces', { title: 'Printed' });
      const changeRequest = await call('POST', `/v1/spaces/${space.id}/change-requests`, { subject: 'Print' });
      const { url } = await call('GET', `/v1/spaces/${space.id}/change-requests/${changeRequest.id}/pdf`);
      const pdf = await fetch(url!);
      expect(pdf.headers.get('content-type')).toBe('application/pdf');
      expect(Buffer.from(await pdf.arrayBuffer()).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    } finally {
      server.child.kill('SIGTERM');
      await server.exit;
    }
  }, 60_000);
});

/** Every file under `folder` (relative path: size and modification time), or {} when there is no such folder. */
function snapshot(folder: string): Record<string, string> {
  if (!existsSync(folder)) return {};
  const files: Record<string, string> = {};
  for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const stat = statSync(file);
    files[path.relative(folder, file)] = `${stat.size} ${stat.mtimeMs}`;
  }
  return files;
}

/** Starts the built server, has it answer GET /v1/orgs, stops it with SIGTERM and returns its output. */
async function startAndStop(env: Record<string, string>): Promise<string> {
  const server = start({ DATA_DIR: path.join(dataDir, 'started-and-stopped'), ...env });
  try {
    const orgs = await fetch(`${await server.url}/v1/orgs`, { headers: { authorization: 'Bearer main-token' } });
    expect(orgs.status).toBe(200);
  } finally {
    server.child.kill('SIGTERM');
  }
  expect(await server.exit).toBe(0);
  return server.output();
}

describe("the compile cache of the compiled server (Node's, in the user's cache folder)", () => {
  const dist = path.resolve('dist');
  /** A Node debug line saying that V8 took the bundle's cache (NODE_DEBUG_NATIVE=COMPILE_CACHE, Node 22 to 26). */
  const accepted = () => new RegExp(`^\\[compile cache\\].* ${escape(SERVER_BUNDLE)} was accepted`, 'm');

  test('a start writes nothing under dist/; its exit writes the cache in $XDG_CACHE_HOME/docs-platform-server, which the next start uses', async () => {
    const home = mkdtempSync(path.join(dataDir, 'xdg-'));
    const folder = path.join(home, 'docs-platform-server');
    const before = snapshot(dist);
    expect(Object.keys(before)).toContain(path.relative(dist, SERVER_BUNDLE));

    const first = await startAndStop({ XDG_CACHE_HOME: home, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
    expect(first).not.toMatch(accepted());
    expect(snapshot(dist)).toEqual(before);
    // Node's layout: a folder for this Node version and these V8 options, a file for each module; the bundle's is
    // the only large one (V8's code for a 3 MB file; the packages left in node_modules are a few KB each).
    const written = snapshot(folder);
    const sizes = Object.values(written).map((entry) => Number(entry.split(' ')[0]));
    expect(sizes.filter((size) => size > 100_000), JSON.stringify(written)).toHaveLength(1);
    expect(new Set(Object.keys(written).map((file) => path.dirname(file))).size).toBe(1);

    // The next start takes the cache, and leaves it as it is (Node writes an entry again only when V8 refused it).
    const second = await startAndStop({ XDG_CACHE_HOME: home, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
    expect(second).toMatch(accepted());
    expect(snapshot(folder)).toEqual(written);
    expect(snapshot(dist)).toEqual(before);
  }, 60_000);

  test("NODE_COMPILE_CACHE (Node's own) names the folder instead; NODE_DISABLE_COMPILE_CACHE=1 turns the cache off", async () => {
    const home = mkdtempSync(path.join(dataDir, 'xdg-'));
    const chosen = path.join(dataDir, 'node-compile-cache');
    await startAndStop({ XDG_CACHE_HOME: home, NODE_COMPILE_CACHE: chosen });
    expect(Object.keys(snapshot(chosen)).length).toBeGreaterThan(0);
    expect(existsSync(path.join(home, 'docs-platform-server'))).toBe(false);

    await startAndStop({ XDG_CACHE_HOME: home, NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(existsSync(path.join(home, 'docs-platform-server'))).toBe(false);
  }, 60_000);

  test('a cache folder that cannot be created still starts and serves, saying nothing about it', async () => {
    const file = path.join(dataDir, 'not-a-folder');
    writeFileSync(file, '');
    const before = snapshot(dist);
    const output = await startAndStop({ XDG_CACHE_HOME: file });
    expect(output).not.toMatch(/cache/i);
    expect(snapshot(dist)).toEqual(before);
  }, 60_000);
});

/** Runs the compiled server (or the tsx entry) to its end and returns its exit code and output. */
function run(args: string[], env: Record<string, string> = {}, entry: 'compiled' | 'tsx' = 'compiled', cwd?: string) {
  const command = entry === 'compiled' ? [process.execPath, ...startCommand.slice(1).map((word) => (word.endsWith('.js') ? path.resolve(word) : word))] : [path.resolve('node_modules/.bin/tsx'), path.resolve('server/main.ts')];
  const result = spawnSync(command[0]!, [...command.slice(1), ...args], {
    ...(cwd ? { cwd } : {}),
    env: { ...baseEnv, PORT: '0', DATA_DIR: ':memory:', LOG_LEVEL: 'warn', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, signal: result.signal };
}

/** A start that fails: exit code 1, and exactly one line on stderr (no stack trace), which is returned. */
function failure(env: Record<string, string>, args: string[] = [], cwd?: string): string {
  const result = run(args, env, 'compiled', cwd);
  expect(result.signal).toBeNull(); // it ended by itself, it did not hang until the timeout
  expect(result.status).toBe(1);
  const lines = result.stderr.trim().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^docs-platform server failed to start: /);
  expect(lines[0]).not.toMatch(/\n\s+at /);
  return lines[0]!;
}

describe('--help and --version', () => {
  for (const entry of ['compiled', 'tsx'] as const) {
    test(`${entry}: --help prints the usage, every configuration variable with its default, and where the docs are; it does not start`, () => {
      const result = run(['--help'], {}, entry);
      expect(result.status).toBe(0);
      expect(result.stdout).toMatch(/^Usage:/m);
      // A clone's usage: its scripts, not the command of the package it can make.
      expect(result.stdout).toMatch(/^  npm start \[-- options\] +the compiled server/m);
      expect(result.stdout).toMatch(/^  npm run dev +development mode/m);
      expect(result.stdout).not.toContain('npx docs-platform-server');
      for (const variable of VARIABLES) {
        expect(result.stdout).toMatch(new RegExp(`^  ${variable.name} +${escape(variable.description)}`, 'm'));
        expect(result.stdout).toContain(`(${engineNote(variable)}default: ${variable.default})`);
      }
      expect(result.stdout).toContain(path.resolve('server/README.md'));
      expect(result.stdout).not.toMatch(/listening on http/);
    }, 30_000);

    test(`${entry}: --version prints the package and contract versions`, () => {
      const result = run(['--version'], {}, entry);
      expect(result.status).toBe(0);
      expect(result.stdout).toBe(`docs-platform server ${packageVersion()}\ncontract ${contractVersion()}\n`);
      expect(packageVersion()).toBe((JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version);
      expect(contractVersion()).toMatch(/^\d+\.\d+\.\d+$/);
    }, 30_000);
  }

  test("run from the installed package, --help gives the package's command: no script of a clone", () => {
    expect(installation()).toBe('clone');
    expect(SERVER_PACKAGE_NAME).toBe(PACKAGE_NAME_BUILT);
    const help = helpText('package');
    expect(help.split('\n').filter((line) => /^  (npx|npm) /.test(line))).toEqual([expect.stringMatching(/^  npx docs-platform-server \[options\] +in a project that installed the server package/)]);
    expect(help).not.toMatch(/npm start|npm run|tsx/);
    expect(help).toContain('DOCS_API_TOKEN=secret npx docs-platform-server\n');
    // Everything else is the clone's text.
    const others = (text: string) => text.split('\n').filter((line) => !/^  (npx|npm) |^Configured by|README\.md \(/.test(line));
    expect(others(help)).toEqual(others(helpText('clone')));
  });

  test('an unknown argument is refused in one line', () => {
    const result = run(['--colour=80']);
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe(
      'docs-platform server failed to start: unknown argument --colour=80: the flags are --port, --data-dir, --seed, --token, --answer-from-contract, --help and --version; everything else is an environment variable (see --help)',
    );
  });

  test('a flag without its value is refused in one line, naming the variable it sets', () => {
    const result = run(['--port']);
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe('docs-platform server failed to start: --port needs a value: --port N (or PORT=N in the environment)');
  });
});

describe('flags', () => {
  test('--answer-from-contract sets ANSWER_FROM_CONTRACT to true, taking no value; --help lists it', () => {
    expect(SWITCHES.map((entry) => entry.flag)).toEqual(['--answer-from-contract']);
    expect(parseCommandLine(['--answer-from-contract', '--port', '0'])).toEqual({ action: 'serve', variables: { ANSWER_FROM_CONTRACT: 'true', PORT: '0' } });
    const command = parseCommandLine(['--answer-from-contract']);
    expect(command.action === 'serve' && readConfig(command.variables).answerFromContract).toBe(true);
    expect(readConfig({}).answerFromContract).toBe(false);
    expect(helpText('clone')).toMatch(/^  --answer-from-contract +sets ANSWER_FROM_CONTRACT=true$/m);
  });

  test('--port, --data-dir, --seed and --token set their variables, winning over the environment; --help lists them', async () => {
    const help = run(['--help']);
    for (const { flag, variable } of FLAGS) expect(help.stdout).toMatch(new RegExp(`^  ${flag} [A-Z]+ +sets ${variable}$`, 'm'));

    const folder = mkdtempSync(path.join(tmpdir(), 'docs-flags-'));
    try {
      const seed = path.join(folder, 'seed.yaml');
      writeFileSync(seed, 'users:\n  - { id: flo, displayName: Flo }\norganizations:\n  - { id: flagged, title: Flagged, members: [{ user: flo, role: admin }] }\n');
      const server = start({ PORT: '1', DATA_DIR: ':memory:', DOCS_API_TOKEN: 'env-token' }, ['--port', '0', `--data-dir=${path.join(folder, 'data')}`, '--seed', seed, '--token', 'flag-token']);
      try {
        const base = await server.url;
        const orgs = await fetch(`${base}/v1/orgs`, { headers: { authorization: 'Bearer flag-token' } });
        expect(orgs.status).toBe(200);
        expect(((await orgs.json()) as { items: { id: string }[] }).items.map((organization) => organization.id)).toEqual(['flagged']);
        expect((await fetch(`${base}/v1/orgs`, { headers: { authorization: 'Bearer env-token' } })).status).toBe(401);
        expect(existsSync(path.join(folder, 'data', 'data.sqlite'))).toBe(true);
      } finally {
        server.child.kill('SIGTERM');
        expect(await server.exit).toBe(0);
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 60_000);
});

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('the configuration table', () => {
  test('server/docs/running-and-configuration.md lists exactly the variables of server/common/config.ts, with the same defaults and engines', () => {
    const readme = readFileSync('server/docs/running-and-configuration.md', 'utf8');
    const section = readme.slice(readme.indexOf('## Configuration'));
    const rows = section
      .slice(0, section.indexOf('\n\n', section.indexOf('| Variable')))
      .split('\n')
      .filter((line) => /^\| `[A-Z_]+` \|/.test(line))
      .map((line) => line.split('|').map((cell) => cell.trim().replaceAll('`', '')))
      .map(([, name, fallback, engine]) => ({ name, default: fallback, engine }));
    expect(section).toMatch(/^\| Variable \| Default \| Engine \| Meaning \|$/m);
    expect(rows).toEqual(VARIABLES.map((variable) => ({ name: variable.name, default: variable.default, engine: variable.engine })));
  });

  test('every field of the configuration comes from a variable of the table', () => {
    const config = readConfig({ ALLOW_LOCAL_GIT: 'true', LOCAL_GIT_ROOT: tmpdir(), PUBLIC_URL: 'http://x.test', APP_URL: 'http://x.test/app', DOCS_API_TOKEN: 't', SEED_FILE: 'f', ADDRESS_FILE: 'a', DATABASE_URL: 'postgres://docs@localhost/docs' });
    expect(Object.keys(config).sort()).toEqual(VARIABLES.map((variable) => variable.key).sort());
  });
});

describe('start-up errors are one line naming what to change', () => {
  test('a seed file that cannot be read is named as given, --seed or SEED_FILE, with the path it resolves to, before the database is opened', () => {
    const folder = mkdtempSync(path.join(dataDir, 'seed-'));
    const data = path.join(folder, 'data');
    expect(failure({ DATA_DIR: data }, ['--seed', 'nope.yaml'], folder)).toBe(`docs-platform server failed to start: --seed nope.yaml (${path.join(folder, 'nope.yaml')}): no such file`);
    expect(failure({ DATA_DIR: data, SEED_FILE: 'nope.yaml' }, [], folder)).toBe(`docs-platform server failed to start: SEED_FILE nope.yaml (${path.join(folder, 'nope.yaml')}): no such file`);
    mkdirSync(path.join(folder, 'seeds'));
    expect(failure({ DATA_DIR: data }, [`--seed=${path.join(folder, 'seeds')}`], folder)).toBe(`docs-platform server failed to start: --seed ${path.join(folder, 'seeds')}: a folder, not a file`);
    writeFileSync(path.join(folder, 'seed.yaml'), 'organizations:\n  - id: acme\n    title: A\n');
    expect(failure({ DATA_DIR: data }, ['--seed', 'seed.yaml'], folder)).toBe(
      `docs-platform server failed to start: --seed seed.yaml (${path.join(folder, 'seed.yaml')}): organizations[0] (acme): title must NOT have fewer than 2 characters, got "A"`,
    );
    // Nothing else was done: no DATA_DIR, no database, no migration.
    expect(existsSync(data)).toBe(false);
  });

  test('an error about what a flag set names the flag, and suggests values as flags', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    try {
      expect(failure({ DATA_DIR: path.join(dataDir, 'flag-port') }, ['--port', String(port)])).toBe(
        `docs-platform server failed to start: --port ${port} is already in use on 127.0.0.1: stop the other server, or choose another port (--port ${port + 1}, or --port 0 for any free port).`,
      );
    } finally {
      blocker.close();
    }
    expect(failure({}, ['--port', 'eighty'])).toBe('docs-platform server failed to start: --port must be an integer from 0 to 65535, got "eighty"');
  });

  test('a taken port names PORT and suggests another one', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    try {
      const line = failure({ PORT: String(port), DATA_DIR: path.join(dataDir, 'port') });
      expect(line).toContain(`PORT ${port} is already in use on 127.0.0.1`);
      expect(line).toContain(`PORT=${port + 1}, or PORT=0`);
    } finally {
      blocker.close();
    }
  });

  test('a DATA_DIR that cannot be created fails at once, naming the path and the reason', () => {
    // On Node 20, mkdirSync(recursive) loops forever here; start-up used to hang.
    expect(failure({ DATA_DIR: '/proc/nope' })).toBe(
      'docs-platform server failed to start: DATA_DIR /proc/nope cannot be created: /proc does not accept new folders. Choose another DATA_DIR.',
    );
    const file = path.join(dataDir, 'a-file');
    writeFileSync(file, '');
    expect(failure({ DATA_DIR: file })).toContain(`DATA_DIR ${file} is not a directory`);
    expect(failure({ DATA_DIR: path.join(file, 'below') })).toContain(`DATA_DIR ${path.join(file, 'below')} cannot be created: ${file} is not a directory`);
  });

  test.runIf(process.platform === 'linux')('a DATA_DIR that is not writable names the path and the reason', () => {
    // /sys refuses new files even to root, which a chmod would not.
    expect(failure({ DATA_DIR: '/sys' })).toContain('DATA_DIR /sys is not writable: permission denied');
  });

  test('a bad variable is named with its value', () => {
    expect(failure({ PORT: 'eighty' })).toBe('docs-platform server failed to start: PORT must be an integer from 0 to 65535, got "eighty"');
    expect(failure({ ALLOW_LOCAL_GIT: 'true' })).toMatch(/ALLOW_LOCAL_GIT=true needs LOCAL_GIT_ROOT/);
  });

  test('a DATA_DIR held by a running server is refused, naming that process; killed with SIGKILL, it can be restarted at once', async () => {
    const shared = path.join(dataDir, 'shared');
    const first = start({ DATA_DIR: shared });
    await first.url;
    let holder: { pid: number; host: string; startedAt: string };
    try {
      holder = JSON.parse(readFileSync(path.join(shared, HOLDER_FILE), 'utf8')) as typeof holder;
      expect(holder).toMatchObject({ pid: first.child.pid, host: hostname() });
      expect(failure({ DATA_DIR: shared })).toBe(
        `docs-platform server failed to start: DATA_DIR ${shared} is in use by another server (process ${holder.pid} on ${holder.host}, started ${holder.startedAt}): stop it, or choose another DATA_DIR.`,
      );
    } finally {
      // No clean shutdown, and the next start does not wait for the process to be reaped: the kernel released its
      // lock when it died.
      first.child.kill('SIGKILL');
    }
    const again = start({ DATA_DIR: shared });
    await again.url;
    await first.exit;
    expect(again.output()).toContain(`the previous server on DATA_DIR (process ${holder.pid} on ${holder.host}, started ${holder.startedAt}) did not stop cleanly`);
    again.child.kill('SIGTERM');
    expect(await again.exit).toBe(0);
    expect(existsSync(path.join(shared, HOLDER_FILE))).toBe(false); // a clean stop removes its record
    expect(existsSync(path.join(shared, LOCK_FILE))).toBe(true); // the lock file itself stays: it is never the lock
  }, 60_000);

  test('a stale lock naming a live process that is not a server (pid 1, this test) refuses nothing', async () => {
    const stale = path.join(dataDir, 'stale');
    mkdirSync(stale, { recursive: true });
    // The lock file of an earlier version, and a record of a holder, both naming processes that run on this host.
    writeFileSync(path.join(stale, LOCK_FILE), `${JSON.stringify({ pid: 1, host: hostname(), startedAt: '2026-01-01T00:00:00.000Z' })}\n`);
    const server = start({ DATA_DIR: stale });
    await server.url;
    server.child.kill('SIGTERM');
    expect(await server.exit).toBe(0);
    writeFileSync(path.join(stale, HOLDER_FILE), `${JSON.stringify({ pid: process.pid, host: hostname(), startedAt: '2026-01-01T00:00:00.000Z' })}\n`);
    const again = start({ DATA_DIR: stale });
    await again.url;
    again.child.kill('SIGTERM');
    expect(await again.exit).toBe(0);
  }, 60_000);

  test('two servers started together on one DATA_DIR: exactly one serves, the other fails in one line', async () => {
    const together = path.join(dataDir, 'together');
    const servers = [start({ DATA_DIR: together }), start({ DATA_DIR: together })];
    const settled = await Promise.allSettled(servers.map((server) => server.url));
    expect(settled.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    const failed = servers[settled.findIndex((outcome) => outcome.status === 'rejected')]!;
    const serving = servers[settled.findIndex((outcome) => outcome.status === 'fulfilled')]!;
    expect(await failed.exit).toBe(1);
    const lines = failed.output().trim().split('\n').filter((line) => line.startsWith('docs-platform server failed to start'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(`docs-platform server failed to start: DATA_DIR ${together} is in use by another server (process ${serving.child.pid} on `);
    serving.child.kill('SIGTERM');
    expect(await serving.exit).toBe(0);
  }, 60_000);
});

describe('the log', () => {
  test("Node's process warnings are lines of the log (JSON), not Node's own lines among them; a user's OpenAPI source in YAML makes none", async () => {
    // A YAML directive the reader does not know: a process warning of the YAML reader, in the operator's seed file.
    const seedFile = path.join(dataDir, 'directive.yaml');
    writeFileSync(seedFile, '%FUTURE directive\n---\nusers:\n  - { id: ann, displayName: Ann }\n');
    const server = start({ DATA_DIR: path.join(dataDir, 'warnings'), SEED_FILE: seedFile, LOG_FORMAT: 'json' });
    try {
      const base = await server.url;
      const headers = { authorization: 'Bearer main-token', 'content-type': 'application/json' };
      // The same directive in a user's OpenAPI source: processed, and no warning of the server's.
      const text = '%FUTURE directive\n---\nopenapi: 3.1.0\ninfo: { title: Pets, version: "1" }\npaths: {}\n';
      const created = await fetch(`${base}/v1/orgs/demo/openapi`, { method: 'POST', headers, body: JSON.stringify({ slug: 'pets', source: { text } }) });
      expect(created.status).toBe(201);
      for (let attempt = 0; attempt < 100; attempt++) {
        const spec = (await (await fetch(`${base}/v1/orgs/demo/openapi/pets`, { headers })).json()) as { processingState: string };
        if (spec.processingState !== 'pending' && spec.processingState !== 'processing') break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exit).toBe(0);
    const lines = server.output().trim().split('\n');
    expect(lines.filter((line) => !line.startsWith('{')), server.output()).toEqual([]);
    // The seed file's warning, once (the OpenAPI source's made none); a dependency's deprecation may be beside it.
    const warnings = lines.map((line) => JSON.parse(line) as { level: number; msg: string; warning?: { name: string } }).filter((line) => line.warning?.name === 'YAMLWarning');
    expect(warnings).toEqual([expect.objectContaining({ level: 40, warning: { name: 'YAMLWarning', code: 'BAD_DIRECTIVE' }, msg: expect.stringMatching(/^YAMLWarning: .*FUTURE/) })]);
  }, 60_000);
});

describe('SEED_FILE with DOCS_API_TOKEN', () => {
  const seed = (name: string, yaml: string[]) => {
    const file = path.join(dataDir, name);
    writeFileSync(file, yaml.join('\n'));
    return file;
  };

  test('the token is registered for the first admin of the first organization of the seed file', async () => {
    const seedFile = seed('seed.yaml', [
      'users:',
      '  - { id: bob, displayName: Bob }',
      '  - { id: alice, displayName: Alice }',
      'organizations:',
      '  - { id: acme, title: Acme, members: [{ user: bob, role: edit }, { user: alice, role: admin }] }',
      '  - { id: other, title: Other, members: [{ user: bob, role: admin }] }',
    ]);
    const folder = path.join(dataDir, 'seeded');
    mkdirSync(folder);
    const running = await startServer(readConfig({ PORT: '0', DATA_DIR: folder, LOG_LEVEL: 'silent', SEED_FILE: seedFile, DOCS_API_TOKEN: 'seeded-token' }));
    try {
      expect(running.tokenFor).toEqual({ user: 'alice', organization: 'acme' });
      const orgs = (await (await fetch(`${running.url}/v1/orgs`, { headers: { authorization: 'Bearer seeded-token' } })).json()) as {
        items: { id: string; permissions: { admin: boolean } }[];
      };
      expect(orgs.items.map((org) => [org.id, org.permissions.admin])).toEqual([['acme', true]]); // no demo organization
    } finally {
      await running.close();
    }
  });

  test('a first organization without an admin stops the start, in one line saying why', () => {
    const seedFile = seed('no-admin.yaml', [
      'users: [{ id: carol, displayName: Carol }]',
      'organizations: [{ id: initech, title: Initech, members: [{ user: carol, role: read }] }]',
    ]);
    expect(failure({ SEED_FILE: seedFile, DOCS_API_TOKEN: 'seeded-token' })).toBe(
      'docs-platform server failed to start: DOCS_API_TOKEN cannot be registered: the first organization of SEED_FILE (initech) has no member with role admin. ' +
        'Add one (members: [{ user: <id>, role: admin }]), or unset DOCS_API_TOKEN and use the tokens of the seed file.',
    );
  });
});
