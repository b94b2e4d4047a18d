// Markdown (the stored representation of a page) as a Document: a tree of blocks, inlines and text leaves with marks,
// each keyed deterministically, so that the same markdown always gives the same keys and a block keeps its key when
// other blocks change (server/docs/behaviour-content-change-requests-comments.md, "Documents").
import { createHash } from 'node:crypto';
import type {
  BlockContent,
  Definition,
  DefinitionContent,
  Nodes,
  PhrasingContent,
  Root,
  RootContent,
  Table,
} from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import { RecentlyUsed } from '../common/recently-used.ts';
import type { Model } from '../common/contract.ts';
import { frozen } from '../common/deep-freeze.ts';

export type DocumentModel = Model<'Document'>;
type Block = Model<'Block'>;
type Inline = Model<'Inline'>;
type Text = Model<'Text'>;
type Leaf = Model<'TextLeaf'>;
type Node = Block | Inline | Text;
type Mark = 'bold' | 'italic' | 'strikethrough' | 'code';

export const DOCUMENT_SCHEMA_VERSION = 1;

/**
 * Bounds on the structure of markdown parsed into a tree. Everything that reads markdown (Documents, links, PDFs,
 * translation, node previews) walks the tree recursively, and the parser's work on nested containers and on long
 * runs of emphasis and link delimiters grows with their square: a few thousand nested list markers were slow to parse
 * and overflowed the stack.
 */
export const MARKDOWN_LIMITS = {
  /** Most nested block containers (`>`, list items, two columns of indentation each) on a line. */
  depth: 32,
  /** Most emphasis and link delimiters (`*`, `_`, `~`, `[`, `]`) in one run of inline content. */
  delimiters: 1000,
  /** Most table cell separators (`|`) on a line. */
  cells: 256,
} as const;

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const CONTAINER = /^[ \t]*(?:>|[-+*][ \t]|\d{1,9}[.)][ \t])/;
const STARTS_INLINE_RUN = /^[ \t]*(?:>|[-+*][ \t]|\d{1,9}[.)][ \t]|#|\|)/;

/**
 * What makes markdown too complex to parse into a tree (more nested containers, delimiters or cells than
 * MARKDOWN_LIMITS), or undefined. Linear, line by line; the content of fenced code blocks is not counted.
 */
export function markdownProblem(markdown: string): string | undefined {
  let fence: string | undefined;
  let delimiters = 0;
  for (const line of markdown.split('\n')) {
    const marker = FENCE.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      continue;
    }
    if (marker) {
      fence = marker;
      delimiters = 0;
      continue;
    }
    if (line.trim() === '' || STARTS_INLINE_RUN.test(line)) delimiters = 0;
    const indent = /^[ \t]*/.exec(line)![0].replace(/\t/g, '    ').length;
    let depth = Math.floor(indent / 2);
    for (let rest = line, match; depth <= MARKDOWN_LIMITS.depth && (match = CONTAINER.exec(rest)); rest = rest.slice(match[0].length)) {
      depth++;
    }
    if (depth > MARKDOWN_LIMITS.depth) return `nests more than ${MARKDOWN_LIMITS.depth} levels of quotes and lists`;
    let cells = 0;
    for (let index = 0; index < line.length; index++) {
      const char = line.charCodeAt(index);
      // * _ ~ [ ]
      if (char === 42 || char === 95 || char === 126 || char === 91 || char === 93) delimiters++;
      else if (char === 124) cells++;
    }
    if (delimiters > MARKDOWN_LIMITS.delimiters) {
      return `holds more than ${MARKDOWN_LIMITS.delimiters} emphasis and link delimiters (*, _, ~, [, ]) in one paragraph`;
    }
    if (cells > MARKDOWN_LIMITS.cells) return `holds more than ${MARKDOWN_LIMITS.cells} table cells on one line`;
  }
  return undefined;
}

/** A Markdown body in each `OutputFormat` of the contract: as a document, or as it is. */
export const BODY_FORMATS = {
  document: (markdown: string) => ({ document: documentFromMarkdown(markdown) }),
  markdown: (markdown: string) => ({ markdown }),
} satisfies Record<Model<'OutputFormat'>, (markdown: string) => object>;

/**
 * The tree of markdown (GFM). Markdown too complex to parse (`markdownProblem`), stored before these bounds or
 * brought in by an import, is read as one code block holding its text: shown as it is, never parsed.
 */
export function parseMarkdown(markdown: string): Root {
  if (markdownProblem(markdown) !== undefined) return { type: 'root', children: [{ type: 'code', value: markdown }] };
  parses++;
  return fromMarkdown(markdown, { extensions: gfmSyntaxFor(markdown), mdastExtensions: GFM_TREE });
}

let parses = 0;
/** How many times parseMarkdown has parsed markdown in this process (for tests). */
export const markdownParses = () => parses;

/** The syntax extensions `parseMarkdown` parses `markdown` with: GFM's, its autolink literals off when none can start. */
export const gfmSyntaxFor = (markdown: string) =>
  mayHoldAutolinkLiteral(markdown) ? GFM_SYNTAX : GFM_SYNTAX_WITHOUT_AUTOLINK_LITERALS;

/** GFM's extensions, made once: the parser only reads them (making them again showed in a short comment's parse). */
const GFM_SYNTAX = [gfm()];
const GFM_TREE = [gfmFromMarkdown()];
/**
 * GFM's autolink literals (`www.example.com`, `https://example.com`, `contact@example.com`) cost more than the rest
 * of parsing: micromark tries the email construct at every letter and digit of the text. None can start in markdown that holds none of these, whatever the case: there the
 * three constructs are turned off, and the tree is the same. The tree's own pass that finds them in text
 * (mdast-util-gfm-autolink-literal, after character references are decoded) always runs.
 */
const AUTOLINK_LITERAL_START = /www\.|https?:\/\/|@/i;
/** Whether a GFM autolink literal can start in `markdown` as written (see above). */
export const mayHoldAutolinkLiteral = (markdown: string) => AUTOLINK_LITERAL_START.test(markdown);
const GFM_SYNTAX_WITHOUT_AUTOLINK_LITERALS = [...GFM_SYNTAX, { disable: { null: ['wwwAutolink', 'protocolAutolink', 'emailAutolink'] } }];

/**
 * Documents of recently converted markdown, by the markdown. Parsing is the slow part of reading a page or a list of
 * comments as Documents (micromark works through every character, with its constructs at each), and the same
 * markdown always gives the same Document, so the most recently used ones are kept, frozen (see `frozen`), up to
 * DOCUMENT_CACHE_CHARS characters of their markdown: a Document takes many times its markdown's size in memory, so
 * the bound is in characters of markdown and small.
 */
export const DOCUMENT_CACHE_CHARS = 256 * 1024;
const documents = new RecentlyUsed<string, DocumentModel>(DOCUMENT_CACHE_CHARS, DOCUMENT_CACHE_CHARS / 8);

/** The markdown as a Document (shared and frozen: build a new one to change it). */
export function documentFromMarkdown(markdown: string): DocumentModel {
  const kept = documents.get(markdown);
  if (kept) return kept;
  const root = parseMarkdown(markdown);
  const converter = new Converter(definitionsOf(root));
  const nodes = withKeys(converter.blocks(root.children));
  const document = frozen<DocumentModel>({ object: 'document', data: { schemaVersion: DOCUMENT_SCHEMA_VERSION }, nodes });
  documents.set(markdown, document, markdown.length);
  return document;
}

/** The blocks of a page's content, by key, with their type and text (the text of a node, to preview it). */
export function documentBlocks(markdown: string): Map<string, { type: string; text: string }> {
  const blocks = new Map<string, { type: string; text: string }>();
  const visit = (nodes: Node[] | undefined) => {
    for (const node of nodes ?? []) {
      if (node.object !== 'block') continue;
      blocks.set(node.key!, { type: node.type, text: nodeText(node) });
      visit(node.nodes);
    }
  };
  visit(documentFromMarkdown(markdown).nodes);
  return blocks;
}

/** The keys of the blocks of a page's content: the nodes a comment may target. */
export function documentKeys(markdown: string): Set<string> {
  return new Set(documentBlocks(markdown).keys());
}

/** Text of a node: its leaves, with child blocks on their own lines. */
export function nodeText(node: Node): string {
  if (node.object === 'text') return node.leaves.map((leaf) => leaf.text).join('');
  const children = node.nodes ?? [];
  if (children.length === 0) {
    const data = (node.data ?? {}) as Record<string, unknown>;
    return typeof data.alt === 'string' ? data.alt : typeof data.html === 'string' ? data.html : '';
  }
  const separator = children.some((child) => child.object === 'block') ? '\n' : '';
  return children.map(nodeText).join(separator);
}

function definitionsOf(root: Root): Map<string, Definition> {
  const definitions = new Map<string, Definition>();
  const visit = (node: Nodes) => {
    if (node.type === 'definition' && !definitions.has(node.identifier)) definitions.set(node.identifier, node);
    if ('children' in node) for (const child of node.children) visit(child);
  };
  visit(root);
  return definitions;
}

class Converter {
  constructor(private readonly definitions: Map<string, Definition>) {}

  blocks(children: (RootContent | BlockContent | DefinitionContent)[]): Block[] {
    return children.flatMap((child) => this.block(child));
  }

  private block(node: RootContent | BlockContent | DefinitionContent): Block[] {
    switch (node.type) {
      case 'paragraph': {
        const images = node.children.filter((child) => !(child.type === 'text' && child.value.trim() === ''));
        if (images.length > 0 && images.every((child) => child.type === 'image' || child.type === 'imageReference')) {
          return images.map((image) => ({ object: 'block', type: 'image', isVoid: true, data: this.imageData(image) }));
        }
        return [block('paragraph', this.inlines(node.children))];
      }
      case 'heading':
        return [block(`heading-${node.depth}`, this.inlines(node.children))];
      case 'thematicBreak':
        return [{ object: 'block', type: 'hr', isVoid: true }];
      case 'blockquote':
        return [block('blockquote', this.blocks(node.children))];
      case 'list':
        return [
          block(
            node.ordered ? 'list-ordered' : 'list-unordered',
            node.children.map((item) =>
              block('list-item', this.blocks(item.children), typeof item.checked === 'boolean' ? { checked: item.checked } : undefined),
            ),
            node.ordered && node.start != null && node.start !== 1 ? { start: node.start } : undefined,
          ),
        ];
      case 'code':
        return [
          block('code', [text([{ object: 'leaf', text: node.value }])], {
            ...(node.lang ? { syntax: node.lang } : {}),
            ...(node.meta ? { meta: node.meta } : {}),
          }),
        ];
      case 'html':
        return [{ object: 'block', type: 'html', isVoid: true, data: { html: node.value } }];
      case 'table':
        return [this.table(node)];
      case 'footnoteDefinition':
        return [block('footnote', this.blocks(node.children), { identifier: node.identifier })];
      default:
        // Definitions are resolved into the links and images that use them; other nodes carry no content.
        return [];
    }
  }

  private table(node: Table): Block {
    const rows = node.children.map((row, index) =>
      block(
        'table-row',
        row.children.map((cell) => block('table-cell', this.inlines(cell.children))),
        index === 0 ? { header: true } : undefined,
      ),
    );
    return block('table', rows, { aligns: (node.align ?? []).map((align) => align ?? 'none') });
  }

  /** Phrasing content as Text nodes (consecutive runs merged) and Inlines. */
  inlines(children: PhrasingContent[], marks: Mark[] = []): (Text | Inline)[] {
    const nodes: (Text | Inline)[] = [];
    const pushLeaf = (value: string, leafMarks: Mark[]) => {
      if (value === '') return;
      const last = nodes.at(-1);
      const leaf: Leaf = { object: 'leaf', text: value, ...(leafMarks.length ? { marks: leafMarks.map(mark) } : {}) };
      if (last?.object !== 'text') return nodes.push(text([leaf]));
      const previous = last.leaves.at(-1)!;
      if (sameMarks(previous, leaf)) previous.text += value;
      else last.leaves.push(leaf);
    };
    const visit = (node: PhrasingContent, active: Mark[]) => {
      switch (node.type) {
        case 'text':
        case 'html':
          return pushLeaf(node.value, active);
        case 'inlineCode':
          return pushLeaf(node.value, withMark(active, 'code'));
        case 'break':
          return pushLeaf('\n', active);
        case 'strong':
          return node.children.forEach((child) => visit(child, withMark(active, 'bold')));
        case 'emphasis':
          return node.children.forEach((child) => visit(child, withMark(active, 'italic')));
        case 'delete':
          return node.children.forEach((child) => visit(child, withMark(active, 'strikethrough')));
        case 'link':
          return nodes.push(this.link(node.url, node.title, node.children, active));
        case 'linkReference': {
          const definition = this.definitions.get(node.identifier);
          if (definition) return nodes.push(this.link(definition.url, definition.title, node.children, active));
          return node.children.forEach((child) => visit(child, active));
        }
        case 'image':
        case 'imageReference':
          return nodes.push({ object: 'inline', type: 'image', isVoid: true, data: this.imageData(node) });
        case 'footnoteReference':
          return nodes.push({ object: 'inline', type: 'footnote-ref', isVoid: true, data: { identifier: node.identifier } });
      }
    };
    for (const child of children) visit(child, marks);
    return nodes;
  }

  private link(url: string, title: string | null | undefined, children: PhrasingContent[], marks: Mark[]): Inline {
    return {
      object: 'inline',
      type: 'link',
      data: { url, ...(title ? { title } : {}), ref: { kind: 'url', url } },
      nodes: this.inlines(children, marks),
    };
  }

  private imageData(node: PhrasingContent): Record<string, unknown> {
    if (node.type === 'image') return { src: node.url, alt: node.alt ?? '', ...(node.title ? { title: node.title } : {}) };
    if (node.type !== 'imageReference') return {};
    const definition = this.definitions.get(node.identifier);
    return { src: definition?.url ?? '', alt: node.alt ?? '', ...(definition?.title ? { title: definition.title } : {}) };
  }
}

function block(type: string, nodes: Node[], data?: Record<string, unknown>): Block {
  return { object: 'block', type, nodes, ...(data && Object.keys(data).length ? { data } : {}) };
}

function text(leaves: Leaf[]): Text {
  return { object: 'text', leaves };
}

function mark(type: Mark): Model<'TextMark'> {
  return { object: 'mark', type };
}

function withMark(marks: Mark[], added: Mark): Mark[] {
  return marks.includes(added) ? marks : [...marks, added];
}

function sameMarks(a: Leaf, b: Leaf): boolean {
  const types = (leaf: Leaf) => (leaf.marks ?? []).map((m) => m.type).sort().join(',');
  return types(a) === types(b);
}

/** The nodes with their keys, placed right after `object` and `type`. */
function withKeys(blocks: Block[]): Block[] {
  // The next suffix of each base key: the k-th block with the same base gets `-k` without trying `-2` … `-(k-1)`
  // again (which grows with the square of the repeats: a large table of identical rows was slow).
  const repeats = new Map<string, number>();
  const visit = <N extends Node>(node: N, fallback: string): N => {
    let key = fallback;
    if (node.object === 'block') {
      const base = createHash('sha1').update(`${node.type}\n${nodeText(node)}`).digest('hex').slice(0, 10);
      const seen = repeats.get(base) ?? 0;
      key = seen === 0 ? base : `${base}-${seen + 1}`;
      repeats.set(base, seen + 1);
    }
    if (node.object === 'text') return { object: node.object, key, leaves: node.leaves } as N;
    const { object, type, nodes, ...rest } = node;
    return {
      object,
      type,
      key,
      ...(nodes ? { nodes: nodes.map((child, index) => visit(child, `${key}.${index}`)) } : {}),
      ...rest,
    } as N;
  };
  return blocks.map((node, index) => visit(node, String(index)));
}
