// @needs processes
// docs/consumers.md's and docs/consumers-ci.md's code as printed: each command they print is a command of a package
// (its bin) taking those flags, and their TypeScript examples type-check under the README's tsconfig against the
// packages as built. The README's own path, run: tooling/readme.test.ts; the packages installed: tooling/server-package.test.ts.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { load } from 'js-yaml';
import { parseCommandLine } from '../../server/start/command-line.ts';
import { serverManifest } from '../../scripts/build-server-package.ts';
import { consumerProject, fencedBlocks, readJson, shellLines, tscWith } from '../support/packaging.ts';
import { repoRoot } from '../support/repo.ts';

const PAGES = ['docs/consumers.md', 'docs/consumers-ci.md'];
const scratch = mkdtempSync(path.join(os.tmpdir(), 'consumer-pages-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The commands a page prints: its sh blocks' lines and its YAML steps' `run` lines, each `&`, `&&` or `;` part alone. */
function printedCommands(page: string): string[] {
  const markdown = readFileSync(path.join(repoRoot, page), 'utf8');
  const yamlRuns = fencedBlocks(markdown, 'yaml').flatMap((code) => (load(code) as { run?: string }[]).flatMap((step) => (step.run ? [step.run] : [])));
  return [...fencedBlocks(markdown, 'sh'), ...yamlRuns]
    .flatMap((code) => shellLines(code))
    .flatMap((line) => line.split(/\s*(?:&&|;|&$)\s*/))
    .map((command) => command.trim())
    .filter((command) => command && !/^(until|do|done)\b/.test(command));
}

const tokens = (command: string) => [...command.matchAll(/"[^"]*"|'[^']*'|\S+/g)].map((match) => match[0]);
const conformance = (...args: string[]) => execFileSync(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'conformance/cli.ts'), ...args], { cwd: repoRoot, encoding: 'utf8' });

test('every command the pages print is a bin of a package, or npm, with the flags that command takes', () => {
  const commands = PAGES.flatMap((page) => printedCommands(page).map((command) => ({ page, command })));
  const bins = { ...(readJson(path.join(repoRoot, 'conformance/package.json')) as { bin: Record<string, string> }).bin, ...(serverManifest().bin as Record<string, string>) };
  expect(commands.filter(({ command }) => command.startsWith('npx docs-conformance')).length).toBeGreaterThan(3);
  const helps = new Map<string, string>();
  for (const { page, command } of commands) {
    const [tool, ...rest] = tokens(command);
    if (tool === 'npm') continue;
    expect(tool, `${page}: ${command}`).toBe('npx');
    const [bin, ...args] = rest;
    expect(Object.keys(bins), `${page}: ${command}`).toContain(bin);
    const own = args.includes('--') ? args.slice(0, args.indexOf('--')) : args;
    if (bin === serverManifest().name) {
      expect(() => parseCommandLine(own), `${page}: ${command}`).not.toThrow();
      continue;
    }
    // docs-conformance <subcommand…> --flags: each flag is one its --help names.
    const words = own.findIndex((arg) => !/^[a-z][a-z-]*$/.test(arg));
    const subcommand = words < 0 ? own : own.slice(0, words);
    const help = helps.get(subcommand.join(' ')) ?? conformance(...subcommand, '--help');
    helps.set(subcommand.join(' '), help);
    for (const flag of own.filter((arg) => arg.startsWith('--'))) expect(help, `${page}: ${command}: ${flag}`).toContain(flag.replace(/=.*$/, ''));
  }
  expect([...helps.keys()]).toEqual(expect.arrayContaining(['proxy', 'can-i-deploy', 'usage merge']));
}, 120_000);

test("the TypeScript examples type-check under the README's tsconfig, against the packages as built", async () => {
  // The packages as their builds leave them in the repository (built here where they are not).
  const built = {
    'docs-platform-contract': [repoRoot, 'dist/client/index.d.ts', 'scripts/build-client.ts'],
    'docs-platform-conformance': [path.join(repoRoot, 'conformance'), 'dist/recording.d.ts', 'scripts/build-conformance.ts'],
    'docs-platform-server': [path.join(repoRoot, 'dist/server-package'), 'dist/testing/index.d.ts', 'scripts/build-server-package.ts'],
  } as const;
  const project = path.join(scratch, 'project');
  mkdirSync(path.join(project, 'node_modules/@types'), { recursive: true });
  for (const [name, [folder, declarations, build]] of Object.entries(built)) {
    if (!existsSync(path.join(folder, declarations))) execFileSync(path.join(repoRoot, 'node_modules/.bin/tsx'), [build], { cwd: repoRoot, stdio: 'ignore' });
    // The server package's declarations import the client's by name: copied into the project, they find it there.
    if (name !== 'docs-platform-server') symlinkSync(folder, path.join(project, 'node_modules', name));
    else cpSync(folder, path.join(project, 'node_modules', name), { recursive: true, filter: (file) => statSync(file).isDirectory() || /(\.d\.ts|package\.json)$/.test(file) });
  }
  for (const name of ['vitest', '@types/node']) symlinkSync(path.join(repoRoot, 'node_modules', name), path.join(project, 'node_modules', name));
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'search-service', private: true, type: 'module' }));
  writeFileSync(path.join(project, 'tsconfig.json'), consumerProject().json);
  // Each example where its first line names its file (`// src/titles.ts`), else a file of its own.
  const examples = PAGES.flatMap((page) => fencedBlocks(readFileSync(path.join(repoRoot, page), 'utf8'), 'ts'));
  expect(examples.length).toBeGreaterThan(4);
  examples.forEach((code, index) => {
    const file = /^\/\/ (\S+\.ts)\n/.exec(code)?.[1] ?? `example-${index}.ts`;
    mkdirSync(path.dirname(path.join(project, file)), { recursive: true });
    writeFileSync(path.join(project, file), code);
  });
  const checked = await tscWith('typescript-native', project, process.env, 240_000);
  expect(checked, checked.stdout).toEqual({ code: 0, stdout: '' });
}, 900_000);
