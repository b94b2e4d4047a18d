// PDF export of content: the pages of a revision (all, one page and the pages under it, or one page alone), their
// markdown laid out with headings, paragraphs, lists, quotes, code and tables. The PDF's standard fonts cover
// Latin text (Windows-1252); other characters are printed as `?`.
import type { List, PhrasingContent, RootContent, Table } from 'mdast';
import { parseMarkdown } from './document.ts';
import { findPage, pageBody, type RevisionContent, type StoredPage } from './model.ts';

export interface PdfPage {
  page: StoredPage;
  /** 0 for the pages the PDF starts from, 1 for the pages under them, … */
  depth: number;
}

/**
 * The pages a PDF holds: every page of the content, or `pageId` and the pages under it, or, with `only`, that page
 * alone. Undefined when the content has no page `pageId`.
 */
export function pagesForPdf(content: RevisionContent, pageId?: string, only = false): PdfPage[] | undefined {
  const nested = (pages: StoredPage[], depth: number): PdfPage[] =>
    pages.flatMap((page) => [{ page, depth }, ...nested(page.pages, depth + 1)]);
  if (pageId === undefined) return nested(content.pages, 0);
  const found = findPage(content, pageId);
  if (!found) return undefined;
  return only ? [{ page: found.page, depth: 0 }] : nested([found.page], 0);
}

// Windows-1252 characters beyond Latin-1, which the standard fonts also print.
const CP1252_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');
const printable = (text: string) =>
  [...text].map((char) => (char.charCodeAt(0) <= 0xff || CP1252_EXTRA.has(char) ? char : '?')).join('');

const FONTS = {
  regular: 'Helvetica',
  bold: 'Helvetica-Bold',
  italic: 'Helvetica-Oblique',
  boldItalic: 'Helvetica-BoldOblique',
  code: 'Courier',
};
const BODY_SIZE = 11;
const HEADING_SIZES = [0, 18, 15, 13, 12, 11, 11];
const INDENT = 16;

interface Run {
  text: string;
  bold?: boolean;
  italic?: boolean;
  code?: boolean;
  link?: string;
}

/** Inline content as runs of text in one style. */
function runsOf(nodes: PhrasingContent[], style: Omit<Run, 'text'> = {}): Run[] {
  return nodes.flatMap((node): Run[] => {
    switch (node.type) {
      case 'text':
        return [{ ...style, text: node.value }];
      case 'inlineCode':
        return [{ ...style, code: true, text: node.value }];
      case 'strong':
        return runsOf(node.children, { ...style, bold: true });
      case 'emphasis':
        return runsOf(node.children, { ...style, italic: true });
      case 'delete':
        return runsOf(node.children, style);
      case 'link':
        return runsOf(node.children, { ...style, link: node.url });
      case 'image':
        return [{ ...style, italic: true, text: `[image: ${node.alt || node.url}]` }];
      case 'break':
        return [{ ...style, text: '\n' }];
      case 'html':
        return [{ ...style, text: node.value }];
      default:
        return 'children' in node ? runsOf(node.children as PhrasingContent[], style) : [];
    }
  });
}

class Writer {
  constructor(private readonly doc: PDFKit.PDFDocument) {}

  private fontOf(run: Run): string {
    if (run.code) return FONTS.code;
    if (run.bold) return run.italic ? FONTS.boldItalic : FONTS.bold;
    return run.italic ? FONTS.italic : FONTS.regular;
  }

  /** A paragraph of runs at `indent`, in `size`, optionally after a prefix (a bullet). */
  runs(runs: Run[], options: { indent: number; size?: number; prefix?: string; color?: string }): void {
    const { doc } = this;
    const x = doc.page.margins.left + options.indent;
    const width = doc.page.width - doc.page.margins.right - x;
    const parts = runs.filter((run) => run.text !== '');
    if (options.prefix) parts.unshift({ text: options.prefix });
    if (parts.length === 0) return;
    doc.fontSize(options.size ?? BODY_SIZE).fillColor(options.color ?? 'black');
    parts.forEach((run, index) => {
      const last = index === parts.length - 1;
      doc.font(this.fontOf(run));
      const text = printable(run.text);
      const style = { width, continued: !last, link: run.link ?? null, underline: run.link !== undefined };
      if (index === 0) doc.text(text, x, doc.y, style);
      else doc.text(text, style);
    });
    doc.moveDown(0.4);
  }

  blocks(nodes: RootContent[], indent: number, color?: string): void {
    for (const node of nodes) this.block(node, indent, color);
  }

  private block(node: RootContent, indent: number, color?: string): void {
    const { doc } = this;
    switch (node.type) {
      case 'heading':
        doc.moveDown(0.3);
        this.runs(runsOf(node.children, { bold: true }), { indent, size: HEADING_SIZES[node.depth], color });
        return;
      case 'paragraph':
        this.runs(runsOf(node.children), { indent, color });
        return;
      case 'list':
        this.list(node, indent, color);
        return;
      case 'blockquote':
        this.blocks(node.children, indent + INDENT, 'gray');
        return;
      case 'code':
        this.runs([{ text: node.value, code: true }], { indent: indent + INDENT / 2, size: 9, color });
        return;
      case 'table':
        this.table(node, indent, color);
        return;
      case 'thematicBreak': {
        const y = doc.y + 4;
        doc
          .moveTo(doc.page.margins.left + indent, y)
          .lineTo(doc.page.width - doc.page.margins.right, y)
          .stroke('gray');
        doc.moveDown(0.8);
        return;
      }
      case 'html':
        this.runs([{ text: node.value, code: true }], { indent, size: 9, color });
        return;
      case 'footnoteDefinition':
        this.runs([{ text: `[${node.identifier}]` }], { indent, size: 9, color });
        this.blocks(node.children, indent + INDENT, color);
        return;
      default:
        return; // definitions and front matter print nothing
    }
  }

  private list(list: List, indent: number, color?: string): void {
    list.children.forEach((item, index) => {
      const marker = item.checked === true ? '[x] ' : item.checked === false ? '[ ] ' : '';
      const bullet = list.ordered ? `${(list.start ?? 1) + index}. ` : '• ';
      const [first, ...rest] = item.children;
      if (first?.type === 'paragraph') {
        this.runs(runsOf(first.children), { indent, prefix: `${bullet}${marker}`, color });
        this.blocks(rest, indent + INDENT, color);
      } else {
        this.runs([], { indent, prefix: `${bullet}${marker}`, color });
        this.blocks(item.children, indent + INDENT, color);
      }
    });
  }

  private table(table: Table, indent: number, color?: string): void {
    table.children.forEach((row, index) => {
      const cells = row.children.map((cell) => runsOf(cell.children, { bold: index === 0 }));
      const joined = cells.flatMap((runs, at) => (at === 0 ? runs : [{ text: ' | ' }, ...runs]));
      this.runs(joined, { indent, size: 10, color });
    });
  }
}

/**
 * The PDF of `pages` under a title, as a Buffer. `createdAt` is recorded as the PDF's creation date. pdfkit (with
 * its fonts) is loaded on the first PDF, not at start-up, where it would be a large share of the modules the server
 * loads.
 */
export async function renderPdf(input: { title: string; pages: PdfPage[]; createdAt: Date }): Promise<Buffer> {
  const { default: PDFDocument } = await import('pdfkit');
  const doc = new PDFDocument({
    size: 'A4',
    margin: 56,
    info: {
      Title: printable(input.title),
      Creator: 'Documentation Platform reference server',
      CreationDate: input.createdAt,
    },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const writer = new Writer(doc);
  writer.runs([{ text: input.title, bold: true }], { indent: 0, size: 22 });
  if (input.pages.length === 0) writer.runs([{ text: 'This content has no pages.', italic: true }], { indent: 0 });
  input.pages.forEach(({ page, depth }, index) => {
    if (index > 0 || doc.y > doc.page.height / 2) doc.addPage();
    writer.runs([{ text: page.title, bold: true }], { indent: 0, size: depth === 0 ? 20 : 17 });
    if (page.description) writer.runs([{ text: page.description, italic: true }], { indent: 0, color: 'gray' });
    if (pageBody(page) === 'href' && page.href) writer.runs([{ text: page.href, link: page.href }], { indent: 0 });
    if (page.markdown) writer.blocks(parseMarkdown(page.markdown).children, 0);
  });
  doc.end();
  return done;
}
