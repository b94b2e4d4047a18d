import { readdirSync, readFileSync } from 'node:fs';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import { describe, expect, it } from 'vitest';
import {
  DOCUMENT_CACHE_CHARS,
  documentBlocks,
  documentKeys,
  documentFromMarkdown,
  gfmSyntaxFor,
  markdownParses,
  nodeText,
  parseMarkdown,
} from '../../server/content/document.ts';
import { markdownLinks, treeLinks } from '../../server/content/markdown.ts';
import { ENTRY_OVERHEAD } from '../../server/common/recently-used.ts';

type AnyNode = { object: string; type?: string; key?: string; nodes?: AnyNode[]; data?: Record<string, unknown>; leaves?: unknown[] };

const blocksOf = (markdown: string) => documentFromMarkdown(markdown).nodes as AnyNode[];

function allKeys(nodes: AnyNode[]): string[] {
  return nodes.flatMap((node) => [node.key!, ...allKeys(node.nodes ?? [])]);
}

describe('documentFromMarkdown', () => {
  it('turns headings, paragraphs, quotes, rules and code into blocks', () => {
    const nodes = blocksOf('# One\n\n###### Six\n\nText\n\n> quoted\n\n---\n\n```ts\nconst x = 1;\n```\n');
    expect(nodes.map((node) => node.type)).toEqual(['heading-1', 'heading-6', 'paragraph', 'blockquote', 'hr', 'code']);
    expect(nodes[3]!.nodes![0]!.type).toBe('paragraph');
    expect(nodes[4]).toMatchObject({ isVoid: true });
    expect(nodes[5]).toMatchObject({ data: { syntax: 'ts' }, nodes: [{ object: 'text', leaves: [{ text: 'const x = 1;' }] }] });
  });

  it('marks bold, italic, strikethrough and code runs on the leaves of a text node', () => {
    const [paragraph] = blocksOf('plain **bold *both*** ~~gone~~ `code`');
    const [textNode] = paragraph!.nodes!;
    expect(textNode).toMatchObject({
      object: 'text',
      leaves: [
        { text: 'plain ' },
        { text: 'bold ', marks: [{ object: 'mark', type: 'bold' }] },
        { text: 'both', marks: [{ type: 'bold' }, { type: 'italic' }] },
        { text: ' ' },
        { text: 'gone', marks: [{ type: 'strikethrough' }] },
        { text: ' ' },
        { text: 'code', marks: [{ type: 'code' }] },
      ],
    });
  });

  it('makes links inline nodes carrying their url and a url reference, also through definitions', () => {
    const [paragraph] = blocksOf('see [the docs](https://docs.test "Docs") and [ref][r]\n\n[r]: https://ref.test');
    const links = paragraph!.nodes!.filter((node) => node.object === 'inline');
    expect(links).toMatchObject([
      { type: 'link', data: { url: 'https://docs.test', title: 'Docs', ref: { kind: 'url', url: 'https://docs.test' } } },
      { type: 'link', data: { url: 'https://ref.test' }, nodes: [{ object: 'text', leaves: [{ text: 'ref' }] }] },
    ]);
  });

  it('makes lists, task items, tables and images blocks', () => {
    const nodes = blocksOf('- [x] done\n- todo\n\n3. third\n\n| a | b |\n|:--|--:|\n| 1 | 2 |\n\n![a cat](cat.png "Cat")\n');
    expect(nodes.map((node) => node.type)).toEqual(['list-unordered', 'list-ordered', 'table', 'image']);
    expect(nodes[0]!.nodes).toMatchObject([{ type: 'list-item', data: { checked: true } }, { type: 'list-item' }]);
    expect(nodes[1]).toMatchObject({ data: { start: 3 } });
    expect(nodes[2]).toMatchObject({
      data: { aligns: ['left', 'right'] },
      nodes: [
        { type: 'table-row', data: { header: true }, nodes: [{ type: 'table-cell' }, { type: 'table-cell' }] },
        { type: 'table-row' },
      ],
    });
    expect(nodes[3]).toMatchObject({ isVoid: true, data: { src: 'cat.png', alt: 'a cat', title: 'Cat' } });
  });

  it('gives every node a key, unique within the document, also for repeated blocks', () => {
    const document = documentFromMarkdown('Same\n\nSame\n\n- Same\n- [x](y)\n');
    const keys = allKeys(document.nodes as AnyNode[]);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.every((key) => key.length > 0)).toBe(true);
  });

  it('gives the same keys for the same markdown', () => {
    const markdown = '# Title\n\nSome *text* with [a link](https://x.test).\n\n- one\n- two\n';
    expect(documentFromMarkdown(markdown)).toEqual(documentFromMarkdown(markdown));
  });

  it('keeps the key of a block when other blocks change', () => {
    const before = documentBlocks('Intro\n\nThe paragraph\n');
    const after = documentBlocks('A new first paragraph\n\nIntro, edited\n\nThe paragraph\n');
    const key = [...before].find(([, block]) => block.text === 'The paragraph')![0];
    expect(after.get(key)).toEqual({ type: 'paragraph', text: 'The paragraph' });
  });

  it('answers an empty document for empty markdown', () => {
    expect(documentFromMarkdown('')).toEqual({ object: 'document', data: { schemaVersion: 1 }, nodes: [] });
  });
});

describe('documentKeys and documentBlocks', () => {
  it('list every block, nested ones included, with its text', () => {
    const markdown = '# Title\n\n> quoted **text**\n';
    const blocks = documentBlocks(markdown);
    expect([...blocks.values()]).toEqual([
      { type: 'heading-1', text: 'Title' },
      { type: 'blockquote', text: 'quoted text' },
      { type: 'paragraph', text: 'quoted text' },
    ]);
    expect(documentKeys(markdown)).toEqual(new Set(blocks.keys()));
  });

  it('take the text of a node from its leaves and its child blocks', () => {
    const [list] = blocksOf('- one\n- two `2`\n');
    expect(nodeText(list as never)).toBe('one\ntwo 2');
  });
});

describe('converted Documents are kept', () => {
  it('the same markdown gives the same Document, shared and frozen all the way down', () => {
    const markdown = '# Kept\n\nSome **bold** text and a [link](https://example.com).\n';
    const first = documentFromMarkdown(markdown);
    expect(documentFromMarkdown(markdown)).toBe(first);
    const heading = first.nodes[0] as AnyNode;
    for (const value of [first, first.nodes, heading, heading.nodes, heading.nodes![0], heading.nodes![0]!.leaves]) {
      expect(Object.isFrozen(value)).toBe(true);
    }
    expect(() => (first.nodes as unknown[]).push(heading)).toThrow(TypeError);
  });

  it('past the bound, the least recently used are converted again, with the same result; long markdown is never kept', { timeout: 120_000 }, () => {
    const markdown = 'A paragraph to be pushed out.\n';
    const first = documentFromMarkdown(markdown);
    // One eighth of the bound each, with what every entry costs (ENTRY_OVERHEAD).
    const filler = (n: number) => `${n} `.repeat((DOCUMENT_CACHE_CHARS / 8 - ENTRY_OVERHEAD) / 2);
    for (let n = 0; n < 9; n++) documentFromMarkdown(filler(n));
    const again = documentFromMarkdown(markdown);
    expect(again).not.toBe(first);
    expect(again).toEqual(first);

    const long = 'word '.repeat(DOCUMENT_CACHE_CHARS / 4);
    const once = documentFromMarkdown(long);
    expect(documentFromMarkdown(long)).not.toBe(once);
    expect(documentFromMarkdown(long)).toEqual(once);
  });
});

describe('parseMarkdown without GFM autolink literals where none can start', () => {
  const full = (markdown: string) => fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  const withoutLiterals = (markdown: string) => gfmSyntaxFor(markdown) !== gfmSyntaxFor('https://example.com');
  const parses = markdownParses;

  it('parses with them whenever one may start, in any case', () => {
    for (const markdown of ['See www.example.com.', 'WWW.EXAMPLE.COM', 'at https://example.com', 'HTTP://EXAMPLE.COM', 'mail a@b.co', 'xmpp:a@b.co']) {
      expect(withoutLiterals(markdown), markdown).toBe(false);
    }
    for (const markdown of ['Plain prose, with [a link](page) and <https:x>.', 'http:relative and www without a dot', '']) {
      expect(withoutLiterals(markdown), markdown).toBe(true);
    }
  });

  it('gives the very tree GFM gives, and markdownLinks the same links without parsing where none can start, on the sections of this repository\'s documents and on their text without addresses', { timeout: 120_000 }, () => {
    const serverPages = readdirSync('server/docs')
      .filter((file) => file.endsWith('.md'))
      .sort()
      .map((file) => `server/docs/${file}`);
    const documents = ['README.md', 'server/README.md', ...serverPages, 'docs/api-document.md', 'docs/wire-decisions.md']
      .map((file) => readFileSync(file, 'utf8'));
    expect(documents.length).toBeGreaterThanOrEqual(2 + serverPages.length);
    // Each document in sections (at its headings), as they are and with every address made one no literal starts.
    const sections = documents.flatMap((text) => text.split(/\n(?=#)/));
    const plain = sections.map((section) => section.replace(/www\./gi, 'www-').replace(/(https?):\/\//gi, '$1:/').replaceAll('@', '(at)'));
    const crafted = [
      'A [link](https://example.com "title") and ![image](a.png), a [reference][ref] and [ref].\n\n[ref]: guides/setup\n',
      'Text with contact&#64;example.com: a character reference decodes to an at sign after parsing, and GFM links it.',
      '| a | b |\n| - | - |\n| [x](y) | `www` |\n\n- [ ] task with [link](z)\n\n~~gone~~ and footnote[^1]\n\n[^1]: note',
      '<http://example.com> and <me@example.com> autolinks, `code with www.example.com`, and\n\n    indented www.x.org\n',
    ];
    // Texts without links: prose, and what could start one but does not.
    const linkless = [
      'Just prose, over two lines\nof a paragraph.\n\n## A heading\n\n- a list\n- of items',
      'A reference decoded to an at sign alone: &#64; and an escaped bracket \\[x]',
      '`<code>` in a span, and an <em>inline</em> tag',
    ];
    let fast = 0;
    let unparsed = 0;
    for (const markdown of [...sections, ...plain, ...crafted, ...linkless]) {
      if (withoutLiterals(markdown)) fast++;
      const tree = full(markdown);
      expect(parseMarkdown(markdown), markdown.slice(0, 80)).toEqual(tree);
      // markdownLinks does not parse markdown where no link can start, and finds the same links.
      const parsed = parses();
      expect(markdownLinks(markdown), markdown.slice(0, 80)).toEqual(treeLinks(tree));
      if (parses() === parsed) unparsed++;
    }
    expect(fast).toBeGreaterThan(sections.length / 2);
    expect(unparsed).toBeGreaterThan(0);
    // The decoded character reference became an email link all the same.
    expect(JSON.stringify(parseMarkdown(crafted[1]!))).toContain('"url":"mailto:contact@example.com"');
  });
});
