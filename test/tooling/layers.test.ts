// The layers (eslint.config.js): every module of server/ in one layer of LAYERS, importing only from layers below;
// the lint rule made from LAYERS; the repository's folders following REPOSITORY_LAYERS; server/docs/code.md's table;
// and no module above the store naming a column, none outside server/store/ casting to a row type.
// What each check reads, and why: test/README.md, "The layers".
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { LAYERS, REPOSITORY_LAYERS } from '../../eslint.config.js';
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

const SNAKE_CASE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/;
const ROW_TYPE = /^[A-Z][A-Za-z0-9]*Row$/;

/** Where `node` starts in `file`, as `file:line`. */
const where = (file: string, source: ts.SourceFile, node: ts.Node) =>
  `${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;

/** The name a node gives a property, when it is a property's: an access (`row.a`, `row['a']`), a key or a member. */
function propertyName(node: ts.Node): ts.Node | undefined {
  // An environment variable is the environment's name (`process.env.npm_command`), not a column.
  if (ts.isPropertyAccessExpression(node)) return node.expression.getText() === 'process.env' ? undefined : node.name;
  if (ts.isElementAccessExpression(node)) return node.argumentExpression;
  if (ts.isIndexedAccessTypeNode(node)) return ts.isLiteralTypeNode(node.indexType) ? node.indexType.literal : undefined;
  if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent)) return node.propertyName ?? node.name;
  if (
    ts.isPropertyAssignment(node) ||
    ts.isShorthandPropertyAssignment(node) ||
    ts.isPropertySignature(node) ||
    ts.isPropertyDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isMethodSignature(node)
  ) {
    return node.name;
  }
  return undefined;
}

/** Each property access or key of snake_case form (a column's name) in `text`, as `file:line: name`. */
function columnNames(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const name = propertyName(node);
    if (name && (ts.isIdentifier(name) || ts.isStringLiteralLike(name)) && SNAKE_CASE.test(name.text)) {
      found.push(`${where(file, source, name)}: ${name.text}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Each cast to a row type in `text` (`as XRow`, `as XRow[]`, `as XRow | undefined`, `<XRow>x`…), as `file:line: as …`. */
function rowCasts(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const namesRow = (type: ts.Node): boolean =>
    (ts.isTypeReferenceNode(type) && ROW_TYPE.test(type.typeName.getText(source).split('.').at(-1)!)) || (ts.forEachChild(type, namesRow) ?? false);
  const visit = (node: ts.Node): void => {
    if ((ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) && namesRow(node.type)) {
      found.push(`${where(file, source, node.type)}: as ${node.type.getText(source)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const textOf = (module: string) => readFileSync(path.join(server, module), 'utf8');

/** The relative imports of a source file (static, re-exports, type-only, literal import()), as paths from the repository's root. */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(repoRoot, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    let specifier: string | undefined;
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) specifier = node.moduleSpecifier.text;
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) specifier = node.arguments[0].text;
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) specifier = node.argument.literal.text;
    if (specifier?.startsWith('.')) found.push(path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const CODE_FILE = /\.(ts|mts|cts|js|mjs|cjs)$/;
/** The code files of a folder of the repository, from the root, without what is built or installed. */
const codeIn = (folder: string): string[] =>
  (readdirSync(path.join(repoRoot, folder), { recursive: true, encoding: 'utf8' }) as string[])
    .map((file) => `${folder}/${file.split(path.sep).join('/')}`)
    .filter((file) => CODE_FILE.test(file) && !/(^|\/)(node_modules|dist)\//.test(file));

describe("the server's layers", () => {
  test('each layer imports only from layers below it, and every import of server/ follows LAYERS', () => {
    LAYERS.forEach((layer, index) => {
      for (const name of layer.imports) expect(LAYERS.findIndex((other) => other.name === name), `${layer.name} imports ${name}`).toBeGreaterThan(index);
    });
    const wrong: string[] = [];
    for (const module of modules) {
      const [from] = layerOf(module);
      for (const target of importsOf(`server/${module}`)) {
        if (!target.startsWith('server/')) continue;
        const [to] = layerOf(target.slice('server/'.length));
        if (from && to && to !== from && !from.imports.includes(to.name)) wrong.push(`server/${module} (${from.name}) -> ${target} (${to.name})`);
      }
    }
    expect(wrong).toEqual([]);
  });

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
    // The repository's configuration, without type information (its typed rules off): the layer rule needs none, and
    // each snippet would otherwise be type-checked with the whole project.
    const typed = ['@typescript-eslint/no-floating-promises', '@typescript-eslint/no-misused-promises', '@typescript-eslint/await-thenable'];
    const eslint = new ESLint({
      cwd: repoRoot,
      overrideConfig: { languageOptions: { parserOptions: { projectService: false } }, rules: Object.fromEntries(typed.map((rule) => [rule, 'off'])) },
    });
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
  }, 180_000);

  test('the finders see column names and row casts in code, not in comments or strings, and name their lines', () => {
    const handler = [
      '// row.space_id in a comment, and `as SpaceRow` too',
      "const message = 'no row.space_id here, nor as SpaceRow';",
      'const a = access.space.revision_id;',
      "const b = row['section_id'];",
      'const c = { organization_id: id, title };',
      'const { user_id, role: d } = member;',
      'type E = { section_id: string | null; id: string };',
      "type F = SpaceRow['git_sync'];",
      'const g = { camelCase: row.id, CONSTANT_CASE: 1, _private: 2 };',
      'const h = process.env.npm_command;',
    ].join('\n');
    expect(columnNames('handlers/sample.ts', handler)).toEqual([
      'handlers/sample.ts:3: revision_id',
      'handlers/sample.ts:4: section_id',
      'handlers/sample.ts:5: organization_id',
      'handlers/sample.ts:6: user_id',
      'handlers/sample.ts:7: section_id',
      'handlers/sample.ts:8: git_sync',
    ]);
    const domain = [
      '/* (await spaces.get(db, id)) as SpaceRow | undefined */',
      "const text = 'as SpaceRow[]';",
      'const a = (await spaces.get(db, id)) as SpaceRow | undefined;',
      'const b = rows as SpaceRow[];',
      'const c = [] as readonly CollectionRow[];',
      'const d = row as unknown as stored.MemberRow;',
      'const e = <TeamRow>row;',
      'const f = value as Role;',
      'const g = rows.map(parseSpaceRow) satisfies SpaceRow[];',
    ].join('\n');
    expect(rowCasts('domain/sample.ts', domain)).toEqual([
      'domain/sample.ts:3: as SpaceRow | undefined',
      'domain/sample.ts:4: as SpaceRow[]',
      'domain/sample.ts:5: as readonly CollectionRow[]',
      'domain/sample.ts:6: as stored.MemberRow',
      'domain/sample.ts:7: as TeamRow',
    ]);
  });

  test('no module above the store names a column: rows come up camelCase, and a snake_case name is the contract\'s own', () => {
    const contract = readFileSync(path.join(repoRoot, 'generated/openapi.yaml'), 'utf8');
    const contractNames = new Set(contract.match(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g));
    const above = modules.filter((module) => !module.startsWith('store/'));
    expect(above.filter((module) => module.startsWith('handlers/')).length).toBeGreaterThan(10);
    const found = above
      .flatMap((module) => columnNames(`server/${module}`, textOf(module)))
      .filter((finding) => !contractNames.has(finding.slice(finding.lastIndexOf(' ') + 1)));
    expect(found, 'snake_case properties or keys above server/store/ (name the field as the row comes up: organizationId)').toEqual([]);
  });

  test('no module outside server/store/ casts to a row type: rows read from the store are parsed', () => {
    const found = modules.filter((module) => !module.startsWith('store/')).flatMap((module) => rowCasts(`server/${module}`, textOf(module)));
    expect(found, 'casts to row types outside server/store/ (check the row with its parser, rowParser in server/store/enums.ts)').toEqual([]);
  });

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
      LAYERS.map((layer) => [`\`${layer.name}\``, list(layer.folders.map((folder) => `${folder}/`), true), list(layer.modules, true), list(layer.imports, false), layer.role]),
    );
  });
});

describe("the repository's folders", () => {
  test('every folder with code is a layer of REPOSITORY_LAYERS, each importing only from folders below it', () => {
    const names = REPOSITORY_LAYERS.map((layer) => layer.folder);
    REPOSITORY_LAYERS.forEach((layer, index) => {
      for (const name of layer.imports) expect(names.indexOf(name), `${layer.folder} imports ${name}`).toBeGreaterThan(index);
    });
    const ignored = new Set(['node_modules', 'coverage', 'data', 'spec', 'docs', '.ci', '.git', '.tmp', '.data']);
    const withCode = readdirSync(repoRoot, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !ignored.has(entry.name) && codeIn(entry.name).length > 0)
      .map((entry) => entry.name);
    expect(withCode.filter((folder) => !names.includes(folder))).toEqual([]);
  });

  test('every import of every code file follows REPOSITORY_LAYERS', () => {
    const layerOfFolder = new Map(REPOSITORY_LAYERS.map((layer) => [layer.folder, layer]));
    const wrong: string[] = [];
    let checked = 0;
    for (const layer of REPOSITORY_LAYERS) {
      for (const file of codeIn(layer.folder)) {
        for (const target of importsOf(file)) {
          checked++;
          // A file at the top (eslint.config.js, the vitest configurations) is configuration, which any folder may read.
          if (!target.includes('/')) continue;
          const folder = target.split('/')[0]!;
          // The one import against the layers: the generated types' deprecated calls take the client's call types, a
          // cycle of types only, erased at run time (spec/README.md, "Deprecations", says why and how to break it).
          if (file === 'generated/schema.d.ts' && target === 'client/index.js') continue;
          if (folder !== layer.folder && !(layerOfFolder.has(folder) && layer.imports.includes(folder))) wrong.push(`${file} -> ${target}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(1000);
    expect(wrong).toEqual([]);
  });
});
