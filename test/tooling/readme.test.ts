// The README's path works as written: its fenced blocks marked `<!-- readme-test -->` are run against the server they
// start, so that they cannot drift from the project; a block marked `<!-- readme-test: a copy of the repository -->`
// (docs/changing-the-contract.md) runs in a copy, and the test does what the page says to do by hand.
// How each kind of block runs: test/README.md, "The README's path, run".
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { ADDED_OPERATION } from '../../bench/save.ts';
import { copyEnvironment, copyRepository } from '../../scripts/repo-copy.ts';
import { implementAddedOperation } from '../support/added-operation.ts';

const MARKER = '<!-- readme-test -->';
const COPY_MARKER = '<!-- readme-test: a copy of the repository -->';
const README_ADDRESS = 'http://127.0.0.1:3000';

export interface Block {
  lang: string;
  code: string;
  /** Line of the Markdown file where the block starts (1-based). */
  line: number;
}

/** The fenced blocks that follow a `<!-- readme-test -->` line (or another marker's). */
export function markedBlocks(markdown: string, marker = MARKER): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let index = 0; index < lines.length; index++) {
    if (lines[index]!.trim() !== marker) continue;
    const fence = lines[index + 1]?.match(/^```(\w+)\s*$/);
    if (!fence) throw new Error(`line ${index + 1}: ${marker} must be followed by a fenced block`);
    const end = lines.findIndex((text, at) => at > index + 1 && text.startsWith('```'));
    blocks.push({ lang: fence[1]!, code: lines.slice(index + 2, end).join('\n'), line: index + 2 });
    index = end;
  }
  return blocks;
}

/** `A=1 B="x" npm start  # comment` → the variables set before `npm start`, or undefined for another command. */
function startCommand(line: string): Record<string, string> | undefined {
  const command = line.replace(/\s+#.*$/, '').trim();
  if (!/(^|\s)npm start$/.test(command)) return undefined;
  const env: Record<string, string> = {};
  for (const [, name, value] of command.replace(/npm start$/, '').matchAll(/([A-Z_][A-Z0-9_]*)=("[^"]*"|'[^']*'|\S+)/g)) {
    env[name!] = value!;
  }
  return env;
}

const scratch = mkdtempSync(path.join(tmpdir(), 'readme-'));
const scriptDir = path.resolve('.tmp');
const servers: ChildProcess[] = [];
/** Stops a started line: npm and the server, which run in their own process group. */
const stop = (child: ChildProcess) => {
  try {
    if (child.pid && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
  } catch {
    // already gone
  }
};
afterAll(() => {
  servers.forEach(stop);
  rmSync(scratch, { recursive: true, force: true });
});

interface Started {
  url: string;
  env: Record<string, string>;
  child: ChildProcess;
  /** Everything it printed so far. */
  output(): string;
}

/**
 * Runs the start line through sh as written (npm included), with PORT=0 and a fresh DATA_DIR, until it listens (or,
 * `npm run dev`, serves); in `cwd` and its environment when given.
 */
function start(line: string, env: Record<string, string>, index: string, where: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Started> {
  const child = spawn('sh', ['-c', line], {
    cwd: where.cwd,
    env: { ...(where.env ?? process.env), PORT: '0', DATA_DIR: path.join(scratch, `data-${index}`) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group: npm and the server stop together
  });
  servers.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk;
      const match = output.match(/(?:listening on|\[dev\] serving) (http:\/\/127\.0\.0\.1:\d+)/);
      if (match) resolve({ url: match[1]!, env, child, output: () => output });
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) => reject(new Error(`\`${line}\` exited with ${code} before listening:\n${output}`)));
  });
}

/** Runs a command to its end: its exit code, its stdout, and stdout and stderr together (for messages). */
function run(
  command: string,
  args: string[],
  env: Record<string, string>,
  where: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ code: number | null; stdout: string; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: where.cwd, env: { ...(where.env ?? process.env), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk;
      output += chunk;
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    child.once('close', (code) => resolve({ code, stdout, output }));
  });
}

/** What the README's own sh assignments mean to the commands after them (`"${TMPDIR:-/tmp}"` and the like). */
const expand = (env: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(env).map(([name, value]) => [name, value.replace(/^["']|["']$/g, '').replace(/\$\{TMPDIR:-\/tmp\}/, process.env.TMPDIR ?? '/tmp')]),
  );

const blocks = markedBlocks(readFileSync('README.md', 'utf8'));

describe('the README as written', () => {
  test('marks its runnable blocks: the start and curl, the client example, the conformance command', () => {
    expect(blocks.map((block) => block.lang)).toEqual(['sh', 'ts', 'sh']);
    expect(markedBlocks('x\n<!-- readme-test -->\n```sh\necho a\n```\n```sh\necho b\n```\n')).toEqual([{ lang: 'sh', code: 'echo a', line: 3 }]);
  });

  test('every marked block runs and does what the README says', async () => {
    // A block that starts a server opens a group, with the blocks after it that start none; groups run side by side.
    const groups: Block[][] = [];
    for (const block of blocks) {
      const starts = block.lang === 'sh' && block.code.split('\n').some((line) => startCommand(line));
      if (starts || groups.length === 0) groups.push([]);
      groups.at(-1)!.push(block);
    }
    const outputs = (await Promise.all(groups.map((group, index) => runGroup(group, index)))).flat();
    const [curl, client, conformance] = outputs;
    expect(JSON.parse(curl!)).toMatchObject({ items: [{ id: 'demo' }] });
    expect(client).toContain('Demo Admin admin'); // the paginated members
    expect(client).toMatch(/http:\/\/127\.0\.0\.1:\d+\/v1\/spaces\/\S+/); // the created space's location
    expect(conformance).toMatch(/conformance: 152\/152 operations exercised, 0 violations/);
    // The property phase with the README's fixed seed: the same requests on every run (a random seed runs apart, in .ci/run).
    expect(conformance).toMatch(/^property phase: seed 1, \d+ checks, 0 failed$/m);
  }, 300_000); // a whole conformance run against a real server, most of this file's time: 86 s at load 10, 160 s at load 14 (2 cores)
});

/** Runs blocks in order, against the server the last start line of them started; the stdout of each command. */
async function runGroup(group: Block[], groupIndex: number): Promise<string[]> {
  let server: Started | undefined;
  const outputs: string[] = [];
  try {
    for (const [index, block] of group.entries()) {
      if (block.lang === 'ts') {
        expect(server, `README line ${block.line}: a TypeScript block needs a server started before it`).toBeDefined();
        mkdirSync(scriptDir, { recursive: true });
        const file = path.join(scriptDir, `readme-${process.pid}-${groupIndex}-${index}.ts`);
        writeFileSync(file, block.code.replaceAll(README_ADDRESS, server!.url));
        try {
          const result = await run(process.execPath, ['--import', 'tsx', file], expand(server!.env));
          expect(result.code, `README line ${block.line} (TypeScript):\n${result.output}`).toBe(0);
          outputs.push(result.stdout);
        } finally {
          rmSync(file, { force: true });
        }
        continue;
      }
      for (const line of block.code.split('\n').filter((text) => text.trim() && !text.trim().startsWith('#'))) {
        const env = startCommand(line);
        if (env) {
          if (server) stop(server.child);
          server = await start(line, expand(env), `${groupIndex}-${index}`);
          continue;
        }
        const command = server ? line.replaceAll(README_ADDRESS, server.url) : line;
        const result = await run('sh', ['-c', command], {});
        expect(result.code, `README line ${block.line}: \`${line}\`\n${result.output}`).toBe(0);
        outputs.push(result.stdout);
      }
    }
  } finally {
    if (server) stop(server.child);
  }
  return outputs;
}

/** A shell block as sh runs it: one command a line (comments and blank lines aside), a here-document with its lines. */
export function shellCommands(code: string): string[] {
  const lines = code.split('\n');
  const commands: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (!line.trim() || line.trim().startsWith('#')) continue;
    const document = /<<-?\s*'?(\w+)'?/.exec(line.replace(/\s+#.*$/, ''));
    const end = document ? lines.findIndex((text, at) => at > index && text === document[1]) : index;
    if (end < 0) throw new Error(`the here-document of \`${line}\` has no ${document![1]} line`);
    commands.push(lines.slice(index, end + 1).join('\n'));
    index = end;
  }
  return commands;
}

const CONTRACT_CHANGE = 'docs/changing-the-contract.md';

describe(`${CONTRACT_CHANGE}'s path of a contract change, in a copy of the repository`, () => {
  const copyBlocks = markedBlocks(readFileSync(CONTRACT_CHANGE, 'utf8'), COPY_MARKER);
  const copy = path.join(scratch, 'repository');
  // The page's vitest runs are of the sqlite project: no PostgreSQL server for them (test/support/postgres-setup.ts).
  const environment = { ...copyEnvironment(), TEST_POSTGRES: 'off' };
  const inCopy = { cwd: copy, env: environment };

  test('its block: the commands, the here-document whole, the server in the background', () => {
    expect(copyBlocks).toHaveLength(1);
    expect(shellCommands("a &   # x\ncat > f <<'EOF'\none\n# two\nEOF\n# c\n! b")).toEqual(['a &   # x', "cat > f <<'EOF'\none\n# two\nEOF", '! b']);
    // The page's operation is the one the save benchmark and `npm run dev`'s tests add (bench/save.ts).
    const added = shellCommands(copyBlocks[0]!.code).find((command) => command.startsWith('cat >> spec/teams.tsp'));
    expect(added?.split('\n').slice(1, -1).join('\n')).toBe(ADDED_OPERATION.tsp.replace(/\n$/, ''));
  });

  test('an operation added is answered on save, scaffolded, red and pending; written and its entry removed, it is green and nothing is pending', async () => {
    copyRepository(copy);
    const [block] = copyBlocks;
    let dev: Started | undefined;
    const outputs: string[] = [];
    try {
      for (const command of shellCommands(block!.code)) {
        const line = dev ? command.replaceAll(README_ADDRESS, dev.url) : command;
        const background = /^(.*?)\s&(\s+#.*)?$/.exec(line);
        if (background) {
          dev = await start(background[1]!, {}, 'copy', inCopy);
          continue;
        }
        const result = await run('sh', ['-c', line], { FORCE_COLOR: '0' }, inCopy);
        expect(result.code, `${CONTRACT_CHANGE} line ${block!.line}: \`${command.split('\n')[0]}\`\n${result.output}`).toBe(0);
        outputs.push(result.output);
      }
      const [, , curl, scaffolded, check, red, refused] = outputs;
      // Answered from its example, on save.
      expect(curl).toMatch(/^x-contract-answer: example\r?$/m);
      expect(curl!.trimEnd().split('\n').at(-1)).toBe(JSON.stringify(ADDED_OPERATION.answer));
      expect(scaffolded).toContain('test/api/get-team-stats.test.ts');
      expect(check).toMatch(/check: all \d+ passed/);
      expect(check).toContain('pending (answered from the contract, server/handlers/pending.ts): getTeamStats');
      expect(red).toContain('getTeamStats is answered from the contract: it is pending.');
      expect(red).toContain('pending, answered from the contract (server/handlers/pending.ts): getTeamStats');
      expect(refused).toContain('release: refused: the reference server does not implement 1 operation(s) of the contract yet (server/handlers/pending.ts):\n  - getTeamStats: scaffolded');

      // What the README says to do next: write the function, remove the entry.
      const implementedAt = dev!.output().length;
      implementAddedOperation(copy);

      const green = await run('npx', ['vitest', 'run', '--project', 'sqlite', 'test/api/get-team-stats.test.ts'], { FORCE_COLOR: '0' }, inCopy);
      expect(green.code, green.output).toBe(0);
      expect(green.output).toMatch(/operation coverage: 1\/\d+ operations answered with a success by the tests \(/);
      // `npm run dev` type-checks the change beside the server; the check's type-check, which shares its incremental
      // state, then has little left to do (it checks whatever the last of dev's checks did not see).
      await vi.waitFor(() => expect(dev!.output().slice(implementedAt)).toMatch(/\[dev\] types: /), { timeout: 120_000, interval: 200 });
      const handled = await run(process.execPath, ['--import', 'tsx', 'scripts/check.ts', '--only', 'operations', '--only', 'typecheck'], {}, inCopy);
      expect(handled.code, handled.output).toBe(0);
      expect(handled.output).toMatch(/check operations {2}ok {4}every one of the \d+ operations has a handler/);
      // npm run dev restarted on the change: the operation answers for real, on the team of dev's seed (the examples'
      // world), what the page shows.
      const real = /`npm run dev` answers the operation for real: `(\{.*?\})`/.exec(readFileSync(CONTRACT_CHANGE, 'utf8'))?.[1];
      expect(real, `${CONTRACT_CHANGE} shows the real answer`).toBeDefined();
      await vi.waitFor(
        async () => {
          const answer = await fetch(`${dev!.url}${ADDED_OPERATION.path}`, { headers: { authorization: 'Bearer dev-token' } });
          expect([answer.status, answer.headers.get('x-contract-answer'), await answer.text()]).toEqual([200, null, real]);
        },
        { timeout: 60_000, interval: 200 },
      );
    } finally {
      if (dev) stop(dev.child);
    }
  }, 900_000);
});
