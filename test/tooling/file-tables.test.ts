// Every file table of the documentation lists every file of its folder: a Markdown table directly under a line
// `<!-- files: FOLDER [FOLDER…] -->` names, in inline code, every code file and subfolder directly in each FOLDER
// (by name, or by a path from the root or from a FOLDER). The rule in full: test/README.md, "File tables".
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Root } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import { describe, expect, test } from 'vitest';
import { repoRoot } from '../support/repo.ts';

/** The marker line of a file table, and the folders it names. */
const MARKER = /^<!--\s*files:([^]*?)-->$/;
/** Code files a table must name; declaration files are emitted from or beside them. */
const CODE = /\.(?:ts|mts|js|mjs|cjs)$/;
const DECLARATION = /\.d\.[mc]?ts$/;
/** Copies, builds and installs: not pages of the repository. */
const SKIPPED = /(^|\/)(node_modules|dist|generated)\//;

type Node = Root | Root['children'][number];

/** The repository's files under `root` (tracked, and new ones git does not ignore), as paths from `root`. */
function repositoryFiles(root: string): string[] {
  return execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file && existsSync(path.join(root, file)));
}

/** The pages whose file tables are checked: README.md, docs/*.md, every README.md, server/docs/*.md. */
export function pages(files: string[]): string[] {
  return files.filter((file) => !SKIPPED.test(file) && (/(^|\/)README\.md$/.test(file) || /^(docs|server\/docs)\/[^/]+\.md$/.test(file))).sort();
}

/**
 * The file tables of a Markdown text: each marker's line and folders, and the inline code of the table under it. Only
 * a marker and the lines after it up to a blank one are parsed (a page's whole text would cost seconds); a marker in a
 * fenced code block is an example, not a marker.
 */
export function fileTables(text: string): { line: number; folders: string[]; names: string[] | undefined }[] {
  const tables: { line: number; folders: string[]; names: string[] | undefined }[] = [];
  const codeIn = (node: Node): string[] => (node.type === 'inlineCode' ? [node.value] : 'children' in node ? (node.children as Node[]).flatMap(codeIn) : []);
  const lines = text.split('\n');
  let fence: string | undefined;
  lines.forEach((line, index) => {
    const opening = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (opening && (fence === undefined || (opening[0] === fence[0] && opening.length >= fence.length))) fence = fence === undefined ? opening : undefined;
    const marker = fence === undefined ? MARKER.exec(line.trim()) : null;
    if (!marker) return;
    const end = lines.findIndex((after, at) => at > index && after.trim() === '');
    const [, next] = fromMarkdown(lines.slice(index, end === -1 ? undefined : end).join('\n'), { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }).children;
    const under = next?.type === 'table' && next.position!.start.line === 2 ? next : undefined;
    tables.push({ line: index + 1, folders: marker[1]!.trim().split(/\s+/).filter(Boolean), names: under && codeIn(under) });
  });
  return tables;
}

/** What the file tables of `page` (a path from `root`) leave out, and what is wrong with their markers: a line each. */
export function incompleteTables(root: string, files: string[], page: string): string[] {
  const problems: string[] = [];
  for (const { line, folders, names } of fileTables(readFileSync(path.join(root, page), 'utf8'))) {
    const at = `${page}:${line}`;
    if (names === undefined) {
      problems.push(`${at}: no table directly under the marker`);
      continue;
    }
    if (folders.length === 0) problems.push(`${at}: the marker names no folder`);
    const named = new Set(names.map((name) => name.trim().replace(/^\.\//, '').replace(/\/+$/, '')));
    const normalized = folders.map((written) => path.posix.normalize(written).replace(/\/+$/, ''));
    folders.forEach((written, index) => {
      const folder = normalized[index]!;
      const absolute = path.join(root, folder);
      if (folder.startsWith('..') || path.posix.isAbsolute(folder) || !existsSync(absolute) || !statSync(absolute).isDirectory()) {
        problems.push(`${at}: ${written}: no such folder`);
        return;
      }
      const inFolder = files.filter((file) => file.startsWith(`${folder}/`)).map((file) => file.slice(folder.length + 1));
      const codeFiles = inFolder.filter((rest) => !rest.includes('/') && CODE.test(rest) && !DECLARATION.test(rest));
      const subfolders = [...new Set(inFolder.filter((rest) => rest.includes('/')).map((rest) => rest.split('/')[0]!))];
      // The ways to write an entry of the folder: its name, its path from the root, from each folder of the marker above it.
      const ways = (name: string) => {
        const fromRoot = `${folder}/${name}`;
        return [name, fromRoot, ...normalized.filter((other) => fromRoot.startsWith(`${other}/`)).map((other) => fromRoot.slice(other.length + 1))];
      };
      const missing = [
        ...codeFiles.filter((name) => !ways(name).some((way) => named.has(way))),
        ...subfolders.filter((name) => ![...named].some((span) => ways(name).some((way) => span === way || span.startsWith(`${way}/`)))).map((name) => `${name}/`),
      ];
      if (missing.length > 0) problems.push(`${at}: ${folder}: leaves out ${missing.sort().map((name) => `${folder}/${name}`).join(', ')}`);
    });
  }
  return problems;
}

describe('file tables of the documentation', () => {
  test('a table that leaves out a file or subfolder, a marker of no folder and one with no table under it are named', () => {
    const files: Record<string, string> = {
      '.gitignore': 'dist/\n',
      'tool/index.ts': '',
      'tool/cli.mjs': '',
      'tool/types.d.ts': '',
      'tool/data.json': '{}',
      'tool/README.md': '# Tool\n',
      'tool/parts/a.ts': '',
      'tool/parts/b.ts': '',
      'tool/dist/built.mjs': '',
      'other/one.js': '',
      'other/two.cjs': '',
      'other/deep/three.ts': '',
      'README.md': [
        '# Top',
        '',
        '<!-- files: tool -->',
        '| File | What |',
        '|---|---|',
        '| `index.ts`, `tool/cli.mjs` | by its name, by its path from the root |',
        '| `./parts/a.ts` | a subfolder, by a path inside it; `main.ts`, named beyond, is allowed |',
        '',
        '<!-- files: other tool/parts/ tool -->',
        '| File | What |',
        '|---|---|',
        '| `one.js`, `parts/a.ts`, `cli.mjs`, `tool/index.ts` | `parts/a.ts` from the marker\'s folder `tool` |',
        '',
        '<!-- files: gone -->',
        '| File | What |',
        '|---|---|',
        '| `x.ts` | |',
        '',
        '<!-- files: tool -->',
        '',
        '| File | What |',
        '|---|---|',
        '| `index.ts` | a blank line away from its marker |',
        '',
        'A table without a marker is no file table:',
        '',
        '| File | What |',
        '|---|---|',
        '| `index.ts` | |',
        '',
        '```md',
        '<!-- files: nowhere -->',
        '```',
      ].join('\n'),
    };
    const root = mkdtempSync(path.join(tmpdir(), 'file-tables-'));
    try {
      for (const [file, text] of Object.entries(files)) {
        mkdirSync(path.join(root, path.dirname(file)), { recursive: true });
        writeFileSync(path.join(root, file), text);
      }
      execFileSync('git', ['init', '-q'], { cwd: root });
      const listed = repositoryFiles(root);
      expect(pages(listed)).toEqual(['README.md', 'tool/README.md']);
      expect(incompleteTables(root, listed, 'README.md')).toEqual([
        'README.md:9: other: leaves out other/deep/, other/two.cjs',
        'README.md:9: tool/parts: leaves out tool/parts/b.ts',
        'README.md:14: gone: no such folder',
        'README.md:19: no table directly under the marker',
      ]);
      expect(incompleteTables(root, listed, 'tool/README.md')).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test("every marked table of the repository's pages lists every file and subfolder of its folders", () => {
    const files = repositoryFiles(repoRoot);
    const checked = pages(files);
    expect(checked).toEqual(expect.arrayContaining(['README.md', 'docs/development.md', 'server/docs/code.md', 'conformance/README.md', 'test/README.md']));
    expect(checked.flatMap((page) => incompleteTables(repoRoot, files, page))).toEqual([]);
    const marked = checked.flatMap((page) => fileTables(readFileSync(path.join(repoRoot, page), 'utf8')).map(({ folders }) => `${page}: ${folders.join(' ')}`));
    expect(marked).toEqual(
      expect.arrayContaining([
        'breaking/README.md: breaking compare',
        'conformance/README.md: conformance',
        'conformance/runner/README.md: conformance/runner conformance/runner/scenario',
        'conformance/runner/property/README.md: conformance/runner/property',
        'conformance/proxy/README.md: conformance/proxy',
        'release/README.md: release',
        'bench/README.md: bench',
        'docs/development.md: scripts',
      ]),
    );
    expect(marked.some((table) => table.startsWith('server/docs/code.md: server/'))).toBe(true);
  });
});
