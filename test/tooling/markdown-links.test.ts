// Every relative link of the repository's Markdown files resolves: to a file or folder that exists and, with a
// `#fragment`, to a heading of the Markdown file it names (or an `id`/`name` its HTML sets), by GitHub's rules for a
// heading's anchor. The files are those git tracks (and new ones it does not ignore), outside node_modules, dist,
// generated, releases and test/fixtures (copies of other trees, checked where they come from). Links that leave the
// repository by a scheme (https:, mailto:, …) are not followed; nor are links in code, which are not links.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Root } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { toString } from 'mdast-util-to-string';
import { gfm } from 'micromark-extension-gfm';
import { describe, expect, test } from 'vitest';
import { repoRoot } from '../support/repo.ts';

const SKIPPED = /(^|\/)(node_modules|dist|generated|releases)\/|^test\/fixtures\//;

const parse = (text: string): Root => fromMarkdown(text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });

/** GitHub's anchor of a heading: lower case, punctuation dropped (but `-` and `_`), each space a hyphen. */
const slug = (heading: string): string => heading.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replaceAll(' ', '-');

interface Link {
  url: string;
  line: number;
}

/** The anchors of a Markdown text (its headings', a repeated one suffixed -1, -2…, and HTML ids), and its links. */
function readMarkdown(text: string): { anchors: Set<string>; links: Link[] } {
  const anchors = new Set<string>();
  const links: Link[] = [];
  const visit = (node: Root | Root['children'][number]): void => {
    if (node.type === 'heading') {
      const base = slug(toString(node));
      let anchor = base;
      for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`;
      anchors.add(anchor);
    } else if (node.type === 'html') {
      for (const [, id] of node.value.matchAll(/\b(?:id|name)\s*=\s*["']([^"']+)["']/gi)) anchors.add(id!);
      for (const [, url] of node.value.matchAll(/\b(?:href|src)\s*=\s*["']([^"']+)["']/gi)) links.push({ url: url!, line: node.position!.start.line });
    }
    if (node.type === 'link' || node.type === 'image' || node.type === 'definition') links.push({ url: node.url, line: node.position!.start.line });
    if ('children' in node) for (const child of node.children) visit(child as Root['children'][number]);
  };
  visit(parse(text));
  return { anchors, links };
}

/**
 * What is wrong with each relative link of the Markdown file `file` (relative to `root`): a line for each, naming the
 * file, the line and the link. `read` gives a Markdown file's anchors (cached by the caller).
 */
function brokenLinks(root: string, file: string, read: (file: string) => { anchors: Set<string>; links: Link[] }): string[] {
  const broken: string[] = [];
  for (const { url, line } of read(file).links) {
    // A scheme (https:, mailto:, …) or a protocol-relative address leaves the repository.
    if (/^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith('//')) continue;
    const [address = '', fragment] = url.split('#', 2) as [string, string | undefined];
    let pathPart = address.split('?', 1)[0]!;
    try {
      pathPart = decodeURIComponent(pathPart);
    } catch {
      broken.push(`${file}:${line}: ${url}: not a valid address`);
      continue;
    }
    const target = pathPart === '' ? file : path.posix.normalize(pathPart.startsWith('/') ? pathPart.slice(1) : path.posix.join(path.posix.dirname(file), pathPart));
    if (target.startsWith('../') || target === '..') {
      broken.push(`${file}:${line}: ${url}: points outside the repository (${target})`);
      continue;
    }
    const absolute = path.join(root, target);
    if (!existsSync(absolute)) {
      broken.push(`${file}:${line}: ${url}: no file ${target}`);
      continue;
    }
    if (fragment === undefined || fragment === '') continue;
    if (!/\.md$/i.test(target) || statSync(absolute).isDirectory()) continue; // line anchors of code, a folder's README: GitHub's own
    let wanted = fragment;
    try {
      wanted = decodeURIComponent(fragment);
    } catch {
      // kept as written
    }
    if (!read(target).anchors.has(wanted)) {
      broken.push(`${file}:${line}: ${url}: no heading #${fragment} in ${target}`);
    }
  }
  return broken;
}

/** A reader of Markdown files under `root` that parses each once. */
const reader = (root: string) => {
  const cache = new Map<string, ReturnType<typeof readMarkdown>>();
  return (file: string) => {
    let read = cache.get(file);
    if (!read) cache.set(file, (read = readMarkdown(readFileSync(path.join(root, file), 'utf8'))));
    return read;
  };
};

describe('relative links of the Markdown files', () => {
  test("anchors follow GitHub's rules", () => {
    const { anchors } = readMarkdown(
      [
        '# The server\'s own pages (/docs, /contract, /health)',
        '## Seed file (`SEED_FILE`)',
        '## Limits',
        '## Limits',
        '## Limits',
        '### Über 100 % — *fast*, [linked](https://example.com) & done?',
        '## snake_case and  two  spaces',
        '<a id="kept-here"></a>',
        '```md\n# not a heading\n```',
      ].join('\n\n'),
    );
    expect([...anchors]).toEqual([
      'the-servers-own-pages-docs-contract-health',
      'seed-file-seed_file',
      'limits',
      'limits-1',
      'limits-2',
      'über-100---fast-linked--done',
      'snake_case-and--two--spaces',
      'kept-here',
    ]);
  });

  test('a missing file, a missing heading and a link out of the repository are each named with their line; others pass', () => {
    const files: Record<string, string> = {
      'README.md': [
        '# Top',
        'See [the guide](docs/guide.md#setting-up), [its second part](docs/guide.md#setting-up-1) and [a folder](docs/).',
        'Broken: [gone](docs/gone.md), [no such part](docs/guide.md#tear-down), [here](#nowhere), [out](../elsewhere.md).',
        '[ref]: docs/guide.md#missing-too',
        '`[in code](nothing.md)`, [a site](https://example.com/x.md), [mail](mailto:a@b.c), [top](#top), [spaced](docs/a%20b.md).',
      ].join('\n\n'),
      'docs/guide.md': '# Guide\n\n## Setting up\n\n## Setting up\n\nBack [up](../README.md#top).\n',
      'docs/a b.md': '# A B\n',
    };
    const root = mkdtempSync(path.join(tmpdir(), 'markdown-links-'));
    try {
      for (const [file, text] of Object.entries(files)) {
        mkdirSync(path.join(root, path.dirname(file)), { recursive: true });
        writeFileSync(path.join(root, file), text);
      }
      const read = reader(root);
      expect(brokenLinks(root, 'docs/guide.md', read)).toEqual([]);
      const checked = brokenLinks(root, 'README.md', read);
      expect(checked).toEqual([
        'README.md:5: docs/gone.md: no file docs/gone.md',
        'README.md:5: docs/guide.md#tear-down: no heading #tear-down in docs/guide.md',
        'README.md:5: #nowhere: no heading #nowhere in README.md',
        'README.md:5: ../elsewhere.md: points outside the repository (../elsewhere.md)',
        'README.md:7: docs/guide.md#missing-too: no heading #missing-too in docs/guide.md',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test('every one of the repository resolves', () => {
    const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', '*.md'], { cwd: repoRoot, encoding: 'utf8' })
      .split('\0')
      .filter((file) => file && !SKIPPED.test(file) && existsSync(path.join(repoRoot, file)));
    expect(files).toEqual(expect.arrayContaining(['README.md', 'server/README.md', 'server/docs/code.md', 'test/README.md']));
    const read = reader(repoRoot);
    const links = files.reduce((count, file) => count + read(file).links.length, 0);
    expect(links).toBeGreaterThan(20);
    expect(files.flatMap((file) => brokenLinks(repoRoot, file, read))).toEqual([]);
  });
});
