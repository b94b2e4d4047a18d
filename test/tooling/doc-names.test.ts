// The documentation names files and code that exist: in README.md, docs/*.md, server/README.md and server/docs/*.md,
// every inline-code span that reads as a path of the repository names what exists, and every "`name` in `file.ts`"
// a declaration of that file. So a renamed file, folder, function or constant fails here until the pages follow.
// What reads as a path, and what is not checked: test/README.md, "Names the documentation gives".
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Root } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import { describe, expect, test } from 'vitest';
import { repoRoot } from '../support/repo.ts';

/** Extensions of source files: a span ending in one is a path even when its first segment is no known folder. */
const SOURCE = /\.(ts|mts|cts|js|mjs|cjs|tsp|sql)$/;
/** What a repository path may be made of: names joined by `/`, perhaps ending with `/`. */
const PATH = /^[A-Za-z0-9_.@-]+(\/[A-Za-z0-9_.@-]+)*\/?$/;
/** Made by the build or installed by npm: not the repository's. */
const BUILT = /(^|\/)(dist|node_modules)\/|^(coverage|\.tmp|\.data)\//;
/** A placeholder in a path (`migrations/NNN_name.sql`): a form, not a file. */
const PLACEHOLDER = /NNN/;
/** Files whose declarations a citation may name. */
const CODE = /\.(ts|mts|cts|js|mjs|cjs)$/;
/** The name of code, plain or dotted, with an optional `()`. */
const NAME = /^([A-Za-z_$][\w$]*)((?:\.[A-Za-z_$][\w$]*)*)(\(\))?$/;

const parse = (text: string): Root => fromMarkdown(text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });

type Node = Root | Root['children'][number];

interface Span {
  value: string;
  line: number;
}

/** The inline-code spans of a Markdown text, and each "`name` in `file`" pair. */
export function readSpans(text: string): { spans: Span[]; cited: { name: string; file: string; line: number }[] } {
  const spans: Span[] = [];
  const cited: { name: string; file: string; line: number }[] = [];
  const visit = (node: Node): void => {
    if (node.type === 'inlineCode') spans.push({ value: node.value, line: node.position!.start.line });
    if (!('children' in node)) return;
    const children = node.children as Node[];
    children.forEach((child, index) => {
      const [between, after] = [children[index + 1], children[index + 2]];
      if (child.type === 'inlineCode' && between?.type === 'text' && between.value === ' in ' && after?.type === 'inlineCode') {
        cited.push({ name: child.value, file: after.value, line: child.position!.start.line });
      }
      visit(child);
    });
  };
  visit(parse(text));
  return { spans, cited };
}

/** The repository's files (tracked, and new ones git does not ignore), as paths from `root`. */
function repositoryFiles(root: string): string[] {
  return execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file && existsSync(path.join(root, file)));
}

/** What a page may name: the repository under `root`, its top-level entries and server/'s, its files' names. */
export function repository(root: string) {
  const files = repositoryFiles(root);
  const modules = path.join(root, 'node_modules');
  const packages = !existsSync(modules)
    ? []
    : readdirSync(modules).flatMap((name) => (name.startsWith('@') ? readdirSync(path.join(modules, name)).map((scoped) => `${name}/${scoped}`) : [name]));
  const top = new Set(files.map((file) => file.split('/')[0]!));
  const serverTop = new Set(files.filter((file) => file.startsWith('server/')).map((file) => file.split('/')[1]!));
  const names = (filter: (file: string) => boolean) => new Set(files.filter(filter).map((file) => path.posix.basename(file)));
  return {
    root,
    files,
    top,
    serverTop,
    everyName: names(() => true),
    serverNames: names((file) => file.startsWith('server/') || !file.includes('/')),
    /** Whether `file` is a file of an installed package (`lib/binding.js` of better-sqlite3). */
    inPackage: (file: string) => packages.some((name) => existsSync(path.join(modules, name, file))),
  };
}

/** Whether `file` (a page of the repository) is one of the server's, whose paths are from server/. */
const onServerPage = (file: string) => file.startsWith('server/');

/** The file `span` names, from the page `page`, when it reads as a path of the repository: its candidates in order. */
export function pathCandidates(repo: ReturnType<typeof repository>, page: string, span: string): string[] | 'bare' | undefined {
  if (!PATH.test(span) || BUILT.test(span) || PLACEHOLDER.test(span) || span === '.' || span === '..') return undefined;
  const server = onServerPage(page);
  const clean = span.replace(/\/$/, '');
  const first = clean.split('/')[0]!;
  if (!clean.includes('/')) {
    if (/^\.[a-z]+$/.test(clean) && !repo.top.has(clean)) return undefined; // an extension, `.tsp`
    if (SOURCE.test(clean)) return 'bare';
    if (repo.top.has(clean) && (span.endsWith('/') || /\.[a-z]+$/.test(clean))) return [clean];
    if (server && repo.serverTop.has(clean) && (span.endsWith('/') || /\.[a-z]+$/.test(clean))) return [`server/${clean}`, clean];
    return undefined;
  }
  const fromServer = server ? [`server/${clean}`] : [];
  // A path from server/ ends in a file's extension or a `/` (`content/pages` is an address of the API).
  const fromServerAlone = !repo.top.has(first) && server && repo.serverTop.has(first);
  if (fromServerAlone && !span.endsWith('/') && !/\.[a-z]+$/.test(clean)) return undefined;
  if (repo.top.has(first) || fromServerAlone || SOURCE.test(clean)) return [...fromServer, clean];
  return undefined;
}

/** Whether the source text `source` declares `name` (and, for `A.b.c`, writes members `b` and `c`). */
export function declares(source: string, cited: string): boolean {
  const match = NAME.exec(cited);
  if (!match) return true; // not a name of code: not checked
  const [, head, members] = match as unknown as [string, string, string];
  const escaped = (name: string) => name.replace(/\$/g, '\\$');
  const declaration = new RegExp(
    `\\b(?:function\\*?|class|interface|type|enum|const|let|var|namespace)\\s+${escaped(head)}\\b|\\bexport\\s*(?:type\\s*)?\\{[^}]*\\b${escaped(head)}\\b[^}]*\\}`,
  );
  if (!declaration.test(source)) return false;
  return members
    .split('.')
    .filter(Boolean)
    .every((member) => new RegExp(`(?:^|[\\s.,{])(?:async\\s+|get\\s+|set\\s+|static\\s+|readonly\\s+|private\\s+|public\\s+|protected\\s+)*${escaped(member)}\\s*[?!]?\\s*[(:=<]`, 'm').test(source));
}

/** What is untrue in the page `page` (from `repo.root`): a line for each path or name that does not exist. */
export function untrueNames(repo: ReturnType<typeof repository>, page: string): string[] {
  const problems: string[] = [];
  const { spans, cited } = readSpans(readFileSync(path.join(repo.root, page), 'utf8'));
  const resolve = (span: string): string | undefined => {
    const candidates = pathCandidates(repo, page, span);
    if (candidates === undefined || candidates === 'bare') return undefined;
    // A version in a path is an example of one (`generated/releases/1.1.0/`, made by `npm run release -- 1.1.0`): its
    // folder must exist.
    const existing = (candidate: string) => candidate.replace(/\/\d+\.\d+\.\d+(\/.*)?$/, '');
    return candidates.find((candidate) => existsSync(path.join(repo.root, existing(candidate))));
  };
  /** Whether a path starts with a folder or file this repository has (then it is none of a package's). */
  const known = (span: string) => repo.top.has(span.split('/')[0]!) || (onServerPage(page) && repo.serverTop.has(span.split('/')[0]!));
  for (const { value, line } of spans) {
    const candidates = pathCandidates(repo, page, value);
    if (candidates === undefined) continue;
    if (candidates === 'bare') {
      // A declaration file is named by the source it is emitted from (`seed-format.d.ts`, from seed-format.ts).
      const names = onServerPage(page) ? repo.serverNames : repo.everyName;
      if (!names.has(value) && !names.has(value.replace(/\.d\.ts$/, '.ts'))) problems.push(`${page}:${line}: \`${value}\`: no file of that name`);
    } else if (!resolve(value) && !(SOURCE.test(value) && !known(value) && repo.inPackage(value))) {
      problems.push(`${page}:${line}: \`${value}\`: no such file or folder (looked for ${candidates.join(', ')})`);
    }
  }
  for (const { name, file, line } of cited) {
    if (!CODE.test(file)) continue;
    let found = resolve(file);
    if (!found && !file.includes('/')) {
      // A bare file name: the one file of that name (on the server's pages, under server/ first).
      const files = repo.files.filter((candidate) => path.posix.basename(candidate) === file);
      found = files.find((candidate) => onServerPage(page) && candidate === `server/${file}`) ?? (files.length === 1 ? files[0] : undefined);
    }
    if (!found) {
      if (!problems.some((problem) => problem.startsWith(`${page}:${line}: \`${file}\``))) problems.push(`${page}:${line}: \`${name}\` in \`${file}\`: no such file`);
      continue;
    }
    if (!declares(readFileSync(path.join(repo.root, found), 'utf8'), name)) problems.push(`${page}:${line}: \`${name}\` in \`${file}\`: ${found} declares no ${name}`);
  }
  return problems;
}

/** The pages checked: README.md, docs/*.md, server/README.md and server/docs/*.md. */
function pages(root: string): string[] {
  const inFolder = (folder: string) =>
    existsSync(path.join(root, folder))
      ? readdirSync(path.join(root, folder))
          .filter((file) => file.endsWith('.md'))
          .sort()
          .map((file) => `${folder}/${file}`)
      : [];
  return ['README.md', ...inFolder('docs'), 'server/README.md', ...inFolder('server/docs')].filter((file) => existsSync(path.join(root, file)));
}

describe('files and code the documentation names', () => {
  test('a renamed file, folder, function or member is named with its line; addresses, packages, variables and commands pass', () => {
    const files: Record<string, string> = {
      'package.json': '{}',
      'bench/bench.ts': 'export async function bench() {}\n',
      'server/common/config.ts': 'export const VARIABLES = [];\nexport class Store {\n  async write(work) {}\n}\n',
      'server/http/validator.ts': 'function openApiValidator() {}\nexport { openApiValidator };\n',
      'server/store/db.ts': 'export interface Db {}\n',
      'server/content/model.ts': 'export type Page = object;\n',
      'generated/releases/1.0.0/openapi.yaml': 'openapi: 3.1.0\n',
      'README.md': [
        '# Top',
        'Run `bench/bench.ts`, read `server/http/validator.ts`, `server/http/` and `package.json`; `scripts/gone.ts` and `generated/versions/1.1.0/` are not there.',
        'Not paths: `/v1/orgs`, `https://example.com/a.ts`, `express-openapi-validator`, `docs-platform-server/testing`, `DATA_DIR`, `npm run bench`, `dist/server/main.js`, `seed.yaml`, `migrations/NNN_name.sql`, `.tsp`, `generated/releases/1.1.0/`.',
        '`bench` in `bench/bench.ts` and `benchmark` in `bench/bench.ts`; `field` (`bench/bench.ts`) is not a citation.',
      ].join('\n\n'),
      'server/README.md': [
        '# Server',
        '`http/validator.ts`, `store/`, `config.ts`, `db.ts`, `content/pages` (an address of the API); gone: `http/validators.ts`, `store/sqlite/store.ts`, `store.ts`, `server/store/dbs.ts`.',
        '`VARIABLES` in `config.ts`, `Store.write` in `config.ts`, `Store.read` in `config.ts`, `openApiValidator` in `http/validator.ts`, `Db` in `store/db.ts`, `validator` in `http/validator.ts`.',
      ].join('\n\n'),
    };
    const root = mkdtempSync(path.join(tmpdir(), 'doc-names-'));
    try {
      for (const [file, text] of Object.entries(files)) {
        mkdirSync(path.join(root, path.dirname(file)), { recursive: true });
        writeFileSync(path.join(root, file), text);
      }
      execFileSync('git', ['init', '-q'], { cwd: root });
      const repo = repository(root);
      expect(untrueNames(repo, 'README.md')).toEqual([
        'README.md:3: `scripts/gone.ts`: no such file or folder (looked for scripts/gone.ts)',
        'README.md:3: `generated/versions/1.1.0/`: no such file or folder (looked for generated/versions/1.1.0)',
        'README.md:7: `benchmark` in `bench/bench.ts`: bench/bench.ts declares no benchmark',
      ]);
      expect(untrueNames(repo, 'server/README.md')).toEqual([
        'server/README.md:3: `http/validators.ts`: no such file or folder (looked for server/http/validators.ts, http/validators.ts)',
        'server/README.md:3: `store/sqlite/store.ts`: no such file or folder (looked for server/store/sqlite/store.ts, store/sqlite/store.ts)',
        'server/README.md:3: `store.ts`: no file of that name',
        'server/README.md:3: `server/store/dbs.ts`: no such file or folder (looked for server/server/store/dbs.ts, server/store/dbs.ts)',
        'server/README.md:5: `Store.read` in `config.ts`: server/common/config.ts declares no Store.read',
        'server/README.md:5: `validator` in `http/validator.ts`: server/http/validator.ts declares no validator',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  // Every page's every name looked up: longer than a test's default on a machine running other test files beside it.
  test('every one of README.md, docs/*.md, server/README.md and server/docs/*.md names what exists', { timeout: 120_000 }, () => {
    const checked = pages(repoRoot);
    expect(checked).toEqual(expect.arrayContaining(['README.md', 'docs/performance.md', 'server/README.md', 'server/docs/code.md']));
    const repo = repository(repoRoot);
    // The check has something to check: paths and cited names on the server's pages.
    const spans = checked.flatMap((page) => readSpans(readFileSync(path.join(repoRoot, page), 'utf8')).spans.map((span) => ({ page, span: span.value })));
    expect(spans.filter(({ page, span }) => Array.isArray(pathCandidates(repo, page, span))).length).toBeGreaterThan(100);
    expect(checked.flatMap((page) => readSpans(readFileSync(path.join(repoRoot, page), 'utf8')).cited).length).toBeGreaterThan(5);
    expect(checked.flatMap((page) => untrueNames(repo, page))).toEqual([]);
  });
});
