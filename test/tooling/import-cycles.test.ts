// No import cycles among the TypeScript sources of server/, client/, conformance/, breaking/, scripts/ and test/,
// whatever an import brings (values, types only, a re-export, a module loaded later with a literal `import('…')`).
// Why, and how a cycle is broken: test/README.md, "No import cycles".
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, test } from 'vitest';
import { repoRoot } from '../support/repo.ts';

const CHECKED = ['server', 'client', 'conformance', 'compare', 'breaking', 'release', 'bench', 'scripts', 'test'];
const SOURCE = /\.[cm]?ts$/;
/** conformance/'s folders, each importing only from those before it; '' is the folder itself (cli.ts). */
const CONFORMANCE_LAYERS = ['contract', 'records', 'runner', 'judgement', 'proxy', ''];

/** The relative specifiers a source imports: static imports and re-exports (type-only ones too), and literal import(). */
function specifiersOf(file: string, text: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      found.push(node.moduleReference.expression.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) {
      found.push(node.arguments[0].text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false));
  return found.filter((specifier) => specifier.startsWith('.'));
}

/** The file a relative specifier names, among `files` (as written, or with .js for .ts, or without an extension). */
function resolve(from: string, specifier: string, files: Set<string>): string | undefined {
  const base = path.posix.join(path.posix.dirname(from), specifier);
  return [base, base.replace(/\.([cm]?)js$/, '.$1ts'), `${base}.ts`, `${base}/index.ts`].find((candidate) => files.has(candidate));
}

/** Each source file (relative to `root`) and the sources it imports. */
function importGraph(root: string, files: string[]): Map<string, string[]> {
  const known = new Set(files);
  return new Map(
    files.map((file) => {
      const targets = specifiersOf(file, readFileSync(path.join(root, file), 'utf8')).map((specifier) => resolve(file, specifier, known));
      return [file, [...new Set(targets.filter((target): target is string => target !== undefined))].sort()];
    }),
  );
}

/**
 * The cycles of a graph, one per knot of files that reach each other (a strongly connected component, Tarjan's
 * algorithm): the shortest way round from the knot's first file back to it, then the other files of the knot.
 */
function importCycles(graph: Map<string, string[]>): { cycle: string[]; knot: string[] }[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const knots: string[][] = [];
  const connect = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        connect(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, index.get(next)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const knot: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      knot.push(member);
    } while (member !== file);
    if (knot.length > 1 || graph.get(file)?.includes(file)) knots.push(knot.sort());
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) connect(file);
  return knots.map((knot) => {
    // Breadth first within the knot, from its first file, until an edge leads back to it.
    const start = knot[0]!;
    const inKnot = new Set(knot);
    const previous = new Map<string, string>();
    const queue = [start];
    let last: string | undefined;
    while (queue.length > 0 && last === undefined) {
      const file = queue.shift()!;
      for (const next of graph.get(file) ?? []) {
        if (next === start) {
          last = file;
          break;
        }
        if (inKnot.has(next) && !previous.has(next)) {
          previous.set(next, file);
          queue.push(next);
        }
      }
    }
    const cycle = [start];
    for (let file = last; file !== undefined && file !== start; file = previous.get(file)) cycle.splice(1, 0, file);
    return { cycle: [...cycle, start], knot };
  });
}

const describeCycle = ({ cycle, knot }: { cycle: string[]; knot: string[] }): string => {
  const others = knot.filter((file) => !cycle.includes(file));
  return `${cycle.join(' → ')}${others.length > 0 ? ` (in one knot with ${others.join(', ')})` : ''}`;
};

describe('import cycles', () => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'import-cycles-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  test('the finder sees a cycle through value imports, type-only imports, re-exports and import(), and names it', () => {
    const files: Record<string, string> = {
      'a/runner.ts': "import { phase } from './phase.ts';\nexport class Session {}\nexport const run = () => phase;\n",
      'a/phase.ts': "import type { Session } from './runner.ts';\nexport const phase = (session?: Session) => session;\n",
      'b/index.ts': "export * from './inner.ts';\n",
      'b/inner.ts': "export const load = () => import('./index.ts');\n",
      'c/self.ts': "export { x } from './self.ts';\nexport const x = 1;\n",
      'd/type-query.ts': "export type Other = typeof import('./uses.ts');\n",
      'd/uses.ts': "import './type-query.ts';\n",
      // No cycle: a chain, an import of a package, and a relative import outside the files given.
      'e/top.ts': "import { mid } from './mid.ts';\nimport path from 'node:path';\nexport const top = [mid, path];\n",
      'e/mid.ts': "import { bottom } from './bottom.js';\nimport data from '../outside.json';\nexport const mid = [bottom, data];\n",
      'e/bottom.ts': 'export const bottom = 1;\n',
    };
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.join(scratch, path.dirname(file)), { recursive: true });
      writeFileSync(path.join(scratch, file), text);
    }
    const graph = importGraph(scratch, Object.keys(files));
    expect(graph.get('e/mid.ts')).toEqual(['e/bottom.ts']);
    expect(importCycles(graph).map(describeCycle)).toEqual([
      'a/phase.ts → a/runner.ts → a/phase.ts',
      'b/index.ts → b/inner.ts → b/index.ts',
      'c/self.ts → c/self.ts',
      'd/type-query.ts → d/uses.ts → d/type-query.ts',
    ]);
  });

  test('names every file of a knot larger than its shortest cycle', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['a.ts', 'c.ts']],
      ['c.ts', ['b.ts']],
    ]);
    expect(importCycles(graph).map(describeCycle)).toEqual(['a.ts → b.ts → a.ts (in one knot with c.ts)']);
  });

  test(`none among the sources of ${CHECKED.join(', ')}`, () => {
    const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', ...CHECKED], { cwd: repoRoot, encoding: 'utf8' })
      .split('\0')
      .filter((file) => SOURCE.test(file) && !file.startsWith('test/fixtures/') && existsSync(path.join(repoRoot, file)));
    expect(files.length).toBeGreaterThan(200);
    const graph = importGraph(repoRoot, files);
    // The walk follows the imports that matter here: the runner's phases, the harness's locations.
    expect(graph.get('conformance/runner/property/phase.ts')).toContain('conformance/runner/session.ts');
    expect(graph.get('server/testing/index.ts')).toContain('server/testing/locations.ts');
    expect(importCycles(graph).map(describeCycle)).toEqual([]);
  });

  test("conformance/'s folders import only from the folders before them: the contract's reading, records, runner, judgement, proxy, the command", () => {
    const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', 'conformance'], { cwd: repoRoot, encoding: 'utf8' })
      .split('\0')
      .filter((file) => SOURCE.test(file) && existsSync(path.join(repoRoot, file)));
    const graph = importGraph(repoRoot, files);
    const rank = (file: string) => CONFORMANCE_LAYERS.indexOf(file.split('/').length > 2 ? file.split('/')[1]! : '');
    expect(files.filter((file) => rank(file) === -1), 'a file outside the layers').toEqual([]);
    const upward = [...graph].flatMap(([file, targets]) => targets.filter((target) => rank(target) > rank(file)).map((target) => `${file} → ${target}`));
    expect(upward).toEqual([]);
    // Within the runner, the session and ledger (which the phases import) import no phase.
    const intoPhases = [...graph]
      .filter(([file]) => /^conformance\/runner\/[^/]+$/.test(file) && !/(runner|scenario)\.ts$/.test(file))
      .flatMap(([file, targets]) => targets.filter((target) => /^conformance\/runner\/(property|scenario)\//.test(target)).map((target) => `${file} → ${target}`));
    expect(intoPhases).toEqual([]);
  });
});
