// Reading page markdown: the links and images it holds (parsed with mdast, GFM included), and the evaluation of
// variable expressions.
import type { Nodes } from 'mdast';
import { mayHoldAutolinkLiteral, parseMarkdown } from './document.ts';

/** How a page uses what an address points at: `reference` for a link, `embed` for an image. */
export type LinkRelation = 'reference' | 'embed';

export interface MarkdownLink {
  /** The address as written (reference-style links resolved through their definition). */
  href: string;
  relation: LinkRelation;
}

/**
 * Where a link or an image can start besides a GFM autolink literal (`mayHoldAutolinkLiteral`): a bracket (links,
 * images, references, definitions), an autolink's `<`, or a character reference, which may decode to the `@` of an
 * email address the tree's pass finds in text. Markdown holding none of these has no links, and is not parsed.
 */
const LINK_START = /[[<&]/;

/** The links and images of markdown, in document order. */
export function markdownLinks(markdown: string): MarkdownLink[] {
  return LINK_START.test(markdown) || mayHoldAutolinkLiteral(markdown) ? treeLinks(parseMarkdown(markdown)) : [];
}

/** The links and images of a tree of markdown, in document order. */
export function treeLinks(tree: Nodes): MarkdownLink[] {
  const definitions = new Map<string, string>();
  const collect = (node: Nodes, visit: (node: Nodes) => void) => {
    visit(node);
    if ('children' in node) for (const child of node.children) collect(child, visit);
  };
  collect(tree, (node) => {
    if (node.type === 'definition') definitions.set(node.identifier, node.url);
  });
  const links: MarkdownLink[] = [];
  collect(tree, (node) => {
    if (node.type === 'link') links.push({ href: node.url, relation: 'reference' });
    else if (node.type === 'image') links.push({ href: node.url, relation: 'embed' });
    else if (node.type === 'linkReference' || node.type === 'imageReference') {
      const href = definitions.get(node.identifier);
      if (href !== undefined) links.push({ href, relation: node.type === 'linkReference' ? 'reference' : 'embed' });
    }
  });
  return links.filter((link) => link.href.trim() !== '');
}

/**
 * Substitutes variable expressions: `{{ variables.name }}` is the page's variable `name`, else the revision's;
 * `{{ page.variables.name }}` and `{{ space.variables.name }}` read only one of them. An expression naming no
 * variable is left as written.
 */
export function evaluateVariables(
  markdown: string,
  variables: { page: Record<string, string>; space: Record<string, string> },
): string {
  return markdown.replace(
    /\{\{\s*(?:(page|space)\.)?variables\.([\p{L}\p{N}_-]+)\s*\}\}/gu,
    (expression, scope: string | undefined, name: string) => {
      const own = (map: Record<string, string>) => (Object.hasOwn(map, name) ? map[name] : undefined);
      const value =
        scope === 'page' ? own(variables.page) : scope === 'space' ? own(variables.space) : (own(variables.page) ?? own(variables.space));
      return value ?? expression;
    },
  );
}
