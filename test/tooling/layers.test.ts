// The server's layers (eslint.config.js, LAYERS): every module of server/ is in one layer; the lint rule made from
// LAYERS refuses an import from each layer a layer may not import from and accepts the others, through ESLint's own
// API on the repository's configuration (what `npm run lint`, part of `npm run check`, runs); and the table of the
// layers in server/docs/code.md is LAYERS, row for row.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, test } from 'vitest';
import { LAYERS } from '../../eslint.config.js';
import { repoRoot } from '../support/repo.ts';

type Layer = (typeof LAYERS)[number];

const server = path.join(repoRoot, 'server');

/** Every TypeScript module under server/, relative to it. */
const modules = (readdirSync(server, { recursive: true, encoding: 'utf8' }) as string[])
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
  .map((file) => file.split(path.sep).join('/'));

const layerOf = (module: string): Layer[] =>
  LAYERS.filter((layer) => layer.modules.includes(module) || layer.folders.some((folder) => module.startsWith(`${folder}/`)));

/** A module of `layer` (a file in its first folder, else its first top-level module), as a path under server/. */
function moduleIn(layer: Layer, depth: 1 | 0): string | undefined {
  if (depth === 0) return layer.modules[0];
  return modules.find((module) => layer.folders.some((folder) => module.startsWith(`${folder}/`) && module.split('/').length === 2));
}

/** An import specifier, written from `from` (a module under server/), of a module of `target`. */
function specifierOf(from: string, target: Layer): string {
  const module = target.modules[0] ?? modules.find((candidate) => candidate.startsWith(`${target.folders[0]}/`))!;
  const relative = path.posix.relative(path.posix.dirname(from), module);
  return relative.startsWith('.') ? relative : `./${relative}`;
}

describe("the server's layers", () => {
  test('every module of server/ is in exactly one layer', () => {
    expect(modules.length).toBeGreaterThan(100);
    expect(modules.filter((module) => layerOf(module).length !== 1)).toEqual([]);
    // What LAYERS names exists.
    for (const layer of LAYERS) {
      for (const module of layer.modules) expect(modules, `${layer.name}: ${module}`).toContain(module);
      for (const folder of layer.folders) expect(modules.some((module) => module.startsWith(`${folder}/`)), `${layer.name}: ${folder}/`).toBe(true);
      for (const name of layer.imports) expect(LAYERS.map((other) => other.name)).toContain(name);
    }
  });

  test('the lint rule refuses an import from each layer a layer may not use, and accepts the others', async () => {
    const eslint = new ESLint({ cwd: repoRoot });
    const layerProblems = async (from: string, target: Layer) => {
      const code = `import * as target from '${specifierOf(from, target)}';\nexport const used = target;\n`;
      const [result] = await eslint.lintText(code, { filePath: path.join(server, from) });
      return result!.messages.filter((message) => message.ruleId === 'no-restricted-imports').map((message) => message.message);
    };
    const checked: string[] = [];
    for (const layer of LAYERS) {
      for (const depth of [1, 0] as const) {
        const from = moduleIn(layer, depth);
        if (!from) continue;
        for (const target of LAYERS) {
          if (target === layer) continue;
          const problems = await layerProblems(from, target);
          checked.push(`${from} -> ${target.name}`);
          if (layer.imports.includes(target.name)) expect(problems, `${from} may import from ${target.name}`).toEqual([]);
          else expect(problems, `${from} may not import from ${target.name}`).toEqual([expect.stringContaining(`the ${layer.name} layer does not import from`)]);
        }
      }
    }
    // A handler reaching the store, the case the layers exist for.
    expect(checked).toContain(`${moduleIn(LAYERS.find((layer) => layer.name === 'handlers')!, 1)} -> store`);
  }, 60_000);

  test("server/docs/code.md's table of the layers is LAYERS", () => {
    const text = readFileSync(path.join(server, 'docs/code.md'), 'utf8');
    const start = text.indexOf('\n## Layers\n');
    expect(start).toBeGreaterThanOrEqual(0);
    const end = text.indexOf('\n## ', start + 1);
    const rows = text
      .slice(start, end < 0 ? undefined : end)
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .map((line) => line.split('|').slice(1, -1).map((cell) => cell.trim()));
    const list = (items: string[], quote: boolean) => (items.length === 0 ? '—' : items.map((item) => (quote ? `\`${item}\`` : item)).join(', '));
    expect(rows).toEqual(
      LAYERS.map((layer) => [`\`${layer.name}\``, list(layer.folders.map((folder) => `${folder}/`), true), list(layer.modules, true), list(layer.imports, false)]),
    );
  });
});
