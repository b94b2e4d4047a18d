// `npm run check`: the fast checks of the contract and the code, the first thing `npm test` runs: spec/ formatted,
// generated/ what spec/ compiles to, the type-check, the lint, Redocly's lint of the contract, every operation handled
// or pending. They run side by side, each one's output under its name, one summary line last. Each check and what
// fixes it: docs/development.md ("The checks").
//   tsx scripts/check.ts [--only format|generated|typecheck|lint|openapi|operations ...]   (`npm run lint:spec` is `--only format`)
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { checkFormatTypeSpec } from '@typespec/compiler';
import { compareGenerated } from './generated-drift.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name: string) => path.join(root, 'node_modules/.bin', name);

export interface CheckResult {
  ok: boolean;
  /** One line: what was checked, or what is wrong and the command that fixes it. */
  summary: string;
  /** The details (the offending files, the compiler's errors), printed under the summary. */
  details?: string;
}

/** Runs a command in the repository; resolves with its exit code and its output (stdout and stderr together). */
export function runCommand(command: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    child.once('error', (error) => resolve({ code: 1, output: `${output}${error.message}\n` }));
    child.once('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

/** The TypeSpec files of spec/, relative to the repository. */
function specFiles(repo: string): string[] {
  return readdirSync(path.join(repo, 'spec'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.tsp'))
    .map((file) => path.join('spec', file))
    .sort();
}

/** spec/ is formatted as `tsp format` would leave it; names every file that is not. */
export async function checkSpecFormat(repo = root): Promise<CheckResult> {
  const files = specFiles(repo);
  const unformatted: string[] = [];
  const broken: string[] = [];
  for (const file of files) {
    try {
      if (!(await checkFormatTypeSpec(readFileSync(path.join(repo, file), 'utf8')))) unformatted.push(file);
    } catch (error) {
      broken.push(`${file}: ${(error as Error).message.split('\n')[0]}`);
    }
  }
  if (broken.length > 0) {
    return { ok: false, summary: `${broken.length} spec file(s) cannot be parsed, so not formatted`, details: broken.join('\n') };
  }
  if (unformatted.length > 0) {
    return {
      ok: false,
      summary: `${unformatted.length} of ${files.length} spec files need formatting: run \`npm run format:spec\``,
      details: unformatted.join('\n'),
    };
  }
  return { ok: true, summary: `${files.length} spec files formatted` };
}

/** generated/ is what `npm run generate` would write now. */
export async function checkGenerated(): Promise<CheckResult> {
  const fresh = mkdtempSync(path.join(tmpdir(), 'check-generated-'));
  try {
    const generation = await runCommand(bin('tsx'), ['scripts/generate.ts', '--out', fresh]);
    if (generation.code !== 0) {
      return { ok: false, summary: '`npm run generate` fails: fix spec/', details: generation.output.trim() };
    }
    const problems = compareGenerated(fresh, path.join(root, 'generated'));
    if (problems.length > 0) {
      return { ok: false, summary: 'generated/ is out of date with spec/: run `npm run generate` and commit generated/', details: problems.join('\n') };
    }
    return { ok: true, summary: 'generated/ is what spec/ compiles to' };
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
}

/**
 * `tsc --noEmit` on the whole project, incremental (its state in .tmp/, which git ignores), with TypeScript 7's native
 * compiler (the `typescript-native` alias of `typescript@7`): the same verdicts as TypeScript 5 on this project, in far
 * less CPU (docs/development.md, "Toolchain pins", gives the figures); `npm run dev` runs the same on each saved file.
 * TypeScript 5 stays for what needs its compiler API (openapi-typescript) and for the client's declarations. To undo:
 * run `node_modules/typescript/bin/tsc` here instead.
 */
export async function typecheck(project = root): Promise<CheckResult> {
  const tsc = path.join(root, 'node_modules/typescript-native/bin/tsc');
  const state = path.join(project, '.tmp/check-native.tsbuildinfo');
  const run = await runCommand(process.execPath, [tsc, '--noEmit', '-p', project, '--incremental', '--tsBuildInfoFile', state, '--pretty', 'false']);
  if (run.code !== 0) {
    const errors = run.output.split('\n').filter((line) => /error TS\d+/.test(line)).length;
    return { ok: false, summary: `${errors} type error(s)`, details: run.output.trim() };
  }
  return { ok: true, summary: 'the project type-checks' };
}

/**
 * eslint on every folder (eslint.config.js): no promise dropped, none where a plain value is expected; the sizes.
 * Cached in .tmp/, a file's entry kept while its content is the same (not its modification time, which a copy of the
 * repository or a checkout changes): a copy starts from this cache (scripts/repo-copy.ts).
 */
export async function lint(): Promise<CheckResult> {
  const run = await runCommand(bin('eslint'), ['--cache', '--cache-strategy', 'content', '--cache-location', '.tmp/eslintcache', '.']);
  if (run.code !== 0) {
    const problems = run.output.match(/✖ (\d+) problems?/)?.[1] ?? 'some';
    return { ok: false, summary: `${problems} lint problem(s): every promise awaited or handled, functions and modules within their sizes (npm run lint)`, details: run.output.trim() };
  }
  return { ok: true, summary: "the repository's promises are all awaited or handled; its functions and modules within their sizes" };
}

/**
 * generated/openapi.yaml under an independent OpenAPI linter, Redocly's recommended ruleset: no problem, warnings
 * included, but those .redocly.lint-ignore.yaml ignores with their reasons, and no entry there that matches none.
 */
export async function checkOpenApiLint(repo = root): Promise<CheckResult> {
  // Loaded here: Redocly takes a while to load, which the other checks do not need.
  const { lintOpenApi } = await import('./lint-contract.ts');
  const { problems, stale, ignored } = await lintOpenApi(repo);
  if (problems.length > 0) {
    return {
      ok: false,
      summary: `Redocly reports ${problems.length} problem(s) in generated/openapi.yaml: fix them in spec/, or ignore one with its reason in .redocly.lint-ignore.yaml`,
      details: problems.join('\n'),
    };
  }
  if (stale.length > 0) {
    return { ok: false, summary: `${stale.length} entry(ies) of .redocly.lint-ignore.yaml match no problem: remove them`, details: stale.join('\n') };
  }
  return { ok: true, summary: `generated/openapi.yaml passes Redocly's recommended rules (${ignored} problem(s) ignored with their reasons)` };
}

/** What `checkOperations` reads: the contract's operations, the handlers of each handler module, the pending entries. */
export interface OperationsInventory {
  operations: { operationId: string; method: string; path: string }[];
  /** The operation ids of each handler module's groups (`teamHandlers`…), by the module's path in the repository. */
  handlers: Map<string, string[]>;
  /** server/handlers/pending.ts: operation id → reason. */
  pending: Readonly<Record<string, string>>;
}

/** The problems of an inventory, one line each with what fixes it, and the pending operations. */
export function operationsProblems({ operations, handlers, pending }: OperationsInventory): { problems: string[]; pending: string[] } {
  const ids = new Set(operations.map((operation) => operation.operationId));
  const handled = new Set([...handlers.values()].flat());
  const problems = [
    ...operations
      .filter((operation) => !handled.has(operation.operationId) && !Object.hasOwn(pending, operation.operationId))
      .map(
        ({ operationId, method, path: template }) =>
          `${operationId} (${method.toUpperCase()} ${template}) has no handler: implement it (\`npm run scaffold -- ${operationId}\` writes a start), or list it in server/handlers/pending.ts with a reason`,
      ),
    ...Object.keys(pending)
      .filter((id) => !ids.has(id))
      .map((id) => `server/handlers/pending.ts lists ${id}, which is no operation of the contract: remove its entry`),
    ...[...handlers].flatMap(([file, names]) =>
      names.filter((id) => !ids.has(id)).map((id) => `${file} has a handler for ${id}, which is no operation of the contract: remove it (and its domain function, if nothing else uses it)`),
    ),
  ];
  return { problems, pending: operations.map((operation) => operation.operationId).filter((id) => Object.hasOwn(pending, id)) };
}

/** The repository's inventory: generated/openapi.yaml, the exported `…Handlers` groups of server/handlers/, pending.ts. */
export async function operationsInventory(repo = root): Promise<OperationsInventory> {
  const { contractOperations, parseContractYaml } = await import('../server/http/contract.ts');
  const operations = contractOperations(parseContractYaml(readFileSync(path.join(repo, 'generated/openapi.yaml'), 'utf8')));
  const handlers = new Map<string, string[]>();
  for (const file of readdirSync(path.join(repo, 'server/handlers')).filter((name) => name.endsWith('.ts')).sort()) {
    const module = (await import(pathToFileURL(path.join(repo, 'server/handlers', file)).href)) as Record<string, unknown>;
    const names = Object.entries(module)
      .filter(([name, value]) => name.endsWith('Handlers') && typeof value === 'object' && value !== null)
      .flatMap(([, value]) => Object.keys(value as object));
    if (names.length > 0) handlers.set(`server/handlers/${file}`, names);
  }
  const { pendingOperations } = (await import(pathToFileURL(path.join(repo, 'server/handlers/pending.ts')).href)) as { pendingOperations: Record<string, string> };
  return { operations, handlers, pending: pendingOperations };
}

/** Every operation of the contract is implemented or pending; nothing implemented or pending is outside the contract. */
export async function checkOperations(): Promise<CheckResult> {
  const inventory = await operationsInventory();
  const { problems, pending } = operationsProblems(inventory);
  const count = inventory.operations.length;
  if (problems.length > 0) return { ok: false, summary: `${problems.length} operation(s) of the contract and handlers disagree`, details: problems.join('\n') };
  if (pending.length > 0) {
    return { ok: true, summary: `${count - pending.length} of ${count} operations have a handler; pending (answered from the contract, server/handlers/pending.ts): ${pending.join(', ')}` };
  }
  return { ok: true, summary: `every one of the ${count} operations has a handler` };
}

export const CHECKS = { format: () => checkSpecFormat(), generated: checkGenerated, typecheck, lint, openapi: () => checkOpenApiLint(), operations: checkOperations } as const;
export type CheckName = keyof typeof CHECKS;

/** Runs the checks side by side and prints each one's result in a block, then one summary line; true when all pass. */
export async function runChecks(names: CheckName[] = Object.keys(CHECKS) as CheckName[], write: (text: string) => unknown = (text) => process.stdout.write(text)): Promise<boolean> {
  const started = Date.now();
  const results = await Promise.all(
    names.map((name) => CHECKS[name]().catch((error: unknown): CheckResult => ({ ok: false, summary: 'crashed', details: String((error as Error)?.stack ?? error) }))),
  );
  const width = Math.max(...names.map((name) => name.length));
  names.forEach((name, index) => {
    const result = results[index]!;
    write(`check ${name.padEnd(width)}  ${result.ok ? 'ok  ' : 'FAIL'}  ${result.summary}\n`);
    if (!result.ok && result.details) write(`${result.details.replace(/^/gm, '    ')}\n`);
  });
  const failed = names.filter((_, index) => !results[index]!.ok);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  write(failed.length === 0 ? `check: all ${names.length} passed (${seconds} s)\n` : `check: ${failed.join(', ')} failed (${seconds} s)\n`);
  return failed.length === 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { only: { type: 'string', multiple: true } } });
  const names = (values.only ?? Object.keys(CHECKS)) as CheckName[];
  const unknown = names.filter((name) => !(name in CHECKS));
  if (unknown.length > 0) {
    console.error(`check: unknown check ${unknown.join(', ')} (checks: ${Object.keys(CHECKS).join(', ')})`);
    process.exit(2);
  }
  process.exitCode = (await runChecks(names)) ? 0 : 1;
}
