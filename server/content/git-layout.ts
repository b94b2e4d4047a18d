// How the content of a space is laid out in a Git repository, both ways, relative to the project directory: SUMMARY.md
// for the table of contents, a markdown file per page, the revision's files under `.gitbook/assets/`; a repository
// without SUMMARY.md is read by its folders (server/docs/behaviour-openapi-integrations-git.md, "Layout" and "Import").
import path from 'node:path';
import type { List, ListItem, Nodes, Paragraph, PhrasingContent, Root } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { toMarkdown } from 'mdast-util-to-markdown';
import { toString } from 'mdast-util-to-string';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { newId } from '../common/ids.ts';
import { markdownProblem, parseMarkdown } from './document.ts';
import { pageBody, type RevisionContent, type StoredFile, type StoredPage, walkPages } from './model.ts';
import { anchorOf } from './search.ts';
import { storableText } from '../common/text.ts';

export const SUMMARY_FILE = 'SUMMARY.md';
export const ASSETS_DIR = '.gitbook/assets';

const posix = path.posix;
export const isMarkdown = (file: string) => /\.md$/i.test(file);
const isReadme = (file: string) => posix.basename(file).toLowerCase() === 'readme.md';
const isAbsoluteAddress = (href: string) => /^[a-z][a-z0-9+.-]*:/i.test(href);

/** Whether an import reads a file of the project directory: markdown files and the assets. */
export const isImported = (file: string) => isMarkdown(file) || file.startsWith(`${ASSETS_DIR}/`);

/**
 * The files of the project directory an export replaces: SUMMARY.md, the files the previous SUMMARY.md links to,
 * and the assets folder. Every other file of the repository is left as it is.
 */
export function replacedByExport(summary: string | undefined, files: Set<string>): (file: string) => boolean {
  const linked = new Set<string>();
  const collect = (entries: Entry[]) =>
    entries.forEach((entry) => {
      if (entry.file) linked.add(entry.file);
      collect(entry.children);
    });
  if (summary !== undefined) collect(summaryEntries(summary, (file) => files.has(file)));
  return (file) => file === SUMMARY_FILE || file.startsWith(`${ASSETS_DIR}/`) || linked.has(file);
}

// ---- Export -------------------------------------------------------------------------------------------------------

/** The files of a revision, by path relative to the project directory. `bytesOf` reads a revision file's bytes. */
export function exportLayout(content: RevisionContent, bytesOf: (file: StoredFile) => Buffer | undefined): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const items = exportPages(content.pages, '', files);
  const summary: Root = {
    type: 'root',
    children: [
      { type: 'heading', depth: 1, children: [{ type: 'text', value: 'Table of contents' }] },
      ...(items.length > 0 ? [list(items)] : []),
    ],
  };
  files.set(SUMMARY_FILE, Buffer.from(toMarkdown(summary, { bullet: '*', listItemIndent: 'one' })));
  const names = new Set<string>();
  for (const file of content.files) {
    const bytes = bytesOf(file);
    if (!bytes) continue;
    const name = safeName(file.name);
    const extension = posix.extname(name);
    const unique = uniqueName(names, name.slice(0, name.length - extension.length), extension);
    files.set(`${ASSETS_DIR}/${unique}`, bytes);
  }
  return files;
}

function exportPages(pages: StoredPage[], directory: string, files: Map<string, Buffer>): ListItem[] {
  // Sibling names are unique without regard to case; README and SUMMARY are reserved.
  const taken = new Set(['readme', 'summary']);
  return pages.map((page) => {
    const name = uniqueName(taken, page.slug || anchorOf(page.title) || 'page');
    const folder = directory ? `${directory}/${name}` : name;
    const children = exportPages(page.pages, folder, files);
    let label: PhrasingContent = { type: 'text', value: oneLine(page.title) };
    if (pageBody(page) === 'href' && page.href) {
      label = { type: 'link', url: page.href, children: [label] };
    } else if (pageBody(page) !== 'none') {
      const file = page.pages.length > 0 ? `${folder}/README.md` : `${folder}.md`;
      files.set(file, Buffer.from(pageFile(page)));
      label = { type: 'link', url: file.split('/').map(encodeURIComponent).join('/'), children: [label] };
    }
    const paragraph: Paragraph = { type: 'paragraph', children: [label] };
    return { type: 'listItem', spread: false, children: children.length > 0 ? [paragraph, list(children)] : [paragraph] };
  });
}

const list = (items: ListItem[]): List => ({ type: 'list', ordered: false, spread: false, children: items });

/** The file of a page: front matter when it has attributes, the title as the first heading, then the markdown. */
function pageFile(page: StoredPage): string {
  const front = {
    ...(page.description ? { description: page.description } : {}),
    ...(page.emoji ? { emoji: page.emoji } : {}),
    ...(page.icon ? { icon: page.icon } : {}),
    ...(page.hidden ? { hidden: true } : {}),
  };
  const head = Object.keys(front).length > 0 ? `---\n${stringifyYaml(front)}---\n\n` : '';
  const markdown = page.markdown ?? '';
  return `${head}# ${oneLine(page.title)}\n${markdown ? `\n${markdown}` : ''}`;
}

const oneLine = (text: string) => text.replace(/\s*[\r\n]+\s*/g, ' ');

/** `stem + extension`, or `stem-2 + extension`, … : the first not taken (without regard to case), now taken. */
function uniqueName(taken: Set<string>, stem: string, extension = ''): string {
  let name = `${stem}${extension}`;
  for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${stem}-${n}${extension}`;
  taken.add(name.toLowerCase());
  return name;
}

const safeName = (name: string) => posix.basename(name.replace(/\\/g, '/')).replace(/^\.+/, '') || 'file';

// ---- Import -------------------------------------------------------------------------------------------------------

/** A file read from the repository: its path relative to the project directory, its path in the repository. */
export interface RepositoryFile {
  oid: string;
  repoPath: string;
  bytes: Buffer;
}

/** What a page file holds: its title (first heading), its markdown (the rest) and its front matter attributes. */
function readPageFile(text: string): {
  title?: string;
  markdown: string;
  attributes: Pick<StoredPage, 'description' | 'emoji' | 'icon' | 'hidden'>;
} {
  let rest = text.replace(/^\uFEFF/, '');
  const attributes: Pick<StoredPage, 'description' | 'emoji' | 'icon' | 'hidden'> = {};
  const front = rest.match(/^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/);
  if (front) {
    rest = rest.slice(front[0].length).replace(/^(?:[ \t]*\r?\n)+/, '');
    let data: unknown;
    try {
      // A warning about the page's front matter is not the server's: not made a process warning.
      data = parseYaml(front[1]!, { logLevel: 'error' });
    } catch {
      data = undefined;
    }
    if (data && typeof data === 'object') {
      const record = data as Record<string, unknown>;
      for (const key of ['description', 'emoji', 'icon'] as const) {
        if (typeof record[key] === 'string' && record[key]) attributes[key] = record[key];
      }
      if (record.hidden === true) attributes.hidden = true;
    }
  }
  const heading = rest.match(/^#[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*(?:\r?\n|$)/);
  if (!heading || heading[1]!.trim() === '') return { markdown: rest, attributes };
  return { title: heading[1]!.trim(), markdown: rest.slice(heading[0].length).replace(/^\r?\n/, ''), attributes };
}

/** An item of the table of contents, before it becomes a page. */
interface Entry {
  title: string;
  /** Path of its file (relative to the project directory), for a document page. */
  file?: string;
  /** Target of a link page. */
  href?: string;
  children: Entry[];
}

interface ImportOptions {
  /** The content the import replaces: pages found at the same path keep their id and dates (when unchanged). */
  previous: RevisionContent;
  now: string;
  /** Changes the markdown read from a page file. */
  rewrite?: (markdown: string, file: RepositoryFile) => string;
}

/** The pages of a repository's files (by path relative to the project directory). */
export function importPages(files: Map<string, RepositoryFile>, options: ImportOptions): StoredPage[] {
  const summary = files.get(SUMMARY_FILE);
  const entries = summary
    ? summaryEntries(storableText(summary.bytes.toString('utf8')), (file) => files.has(file))
    : folderEntries([...files.keys()].filter((file) => isMarkdown(file) && !file.startsWith('.')), '');
  const before = new Map([...walkPages(options.previous.pages)].map(({ page, path: pagePath }) => [pagePath, page]));
  return buildPages(entries, '', { ...options, files, before });
}

/** The files of the assets folder, as revision files to store (name, type, Git reference). */
export function importAssets(files: Map<string, RepositoryFile>): { name: string; contentType: string; file: RepositoryFile }[] {
  return [...files.entries()]
    .filter(([file]) => file.startsWith(`${ASSETS_DIR}/`) && !file.slice(ASSETS_DIR.length + 1).includes('/'))
    .map(([file, content]) => ({ name: posix.basename(file), contentType: contentTypeOf(file), file: content }));
}

function summaryEntries(summary: string, has: (file: string) => boolean): Entry[] {
  const entries: Entry[] = [];
  let group: Entry | undefined;
  // A summary too complex to parse safely lists nothing: the pages keep the folder layout.
  const children = markdownProblem(summary) === undefined ? fromMarkdown(summary).children : [];
  for (const node of children) {
    if (node.type === 'heading') {
      // `# Table of contents` is the file's title; `## Part` headings are groups of the items below them.
      group = node.depth >= 2 ? { title: toString(node), children: [] } : undefined;
      if (group) entries.push(group);
    } else if (node.type === 'list') {
      (group?.children ?? entries).push(...node.children.map((item) => listEntry(item, has)));
    }
  }
  return entries;
}

function listEntry(item: ListItem, has: (file: string) => boolean): Entry {
  const [first] = item.children;
  const children = item.children
    .filter((node): node is List => node.type === 'list')
    .flatMap((node) => node.children.map((child) => listEntry(child, has)));
  const link = first?.type === 'paragraph' ? findLink(first) : undefined;
  if (!link) return { title: first?.type === 'paragraph' ? toString(first) : '', children };
  const title = toString(link);
  if (isAbsoluteAddress(link.url)) return { title, href: link.url, children };
  return { title, file: summaryTarget(link.url, has), children };
}

function findLink(node: Nodes): Extract<Nodes, { type: 'link' }> | undefined {
  if (node.type === 'link') return node;
  if ('children' in node) {
    for (const child of node.children) {
      const link = findLink(child);
      if (link) return link;
    }
  }
  return undefined;
}

/** A link's address without its query and fragment, percent-decoded when it can be. */
function addressPath(url: string): string {
  const address = url.replace(/[#?].*$/, '');
  try {
    return decodeURIComponent(address);
  } catch {
    return address;
  }
}

/** The file a SUMMARY link points at, relative to the project directory ('' when it points outside it). */
function summaryTarget(url: string, has: (file: string) => boolean): string {
  let target = posix.normalize(addressPath(url).replace(/^\/+/, ''));
  if (target === '..' || target.startsWith('../')) return '';
  if (target.endsWith('/') || (!has(target) && has(`${target}/README.md`))) {
    target = `${target.replace(/\/+$/, '')}/README.md`;
  }
  return target === '.' ? '' : target;
}

/** Without SUMMARY.md: README.md first (the folder's own page below the root), then files and folders by name. */
function folderEntries(markdownFiles: string[], folder: string): Entry[] {
  const prefix = folder ? `${folder}/` : '';
  const files = new Set<string>();
  const folders = new Set<string>();
  for (const file of markdownFiles) {
    if (!file.startsWith(prefix)) continue;
    const rest = file.slice(prefix.length);
    if (rest.includes('/')) folders.add(rest.split('/')[0]!);
    else if (!isReadme(rest) || folder === '') files.add(rest);
  }
  const fileEntries = [...files].map((name): [string, Entry] => [
    name,
    { title: isReadme(name) ? 'Introduction' : name.replace(/\.md$/i, ''), file: `${prefix}${name}`, children: [] },
  ]);
  const folderEntriesOf = [...folders].map((name): [string, Entry] => {
    const readme = markdownFiles.find((file) => file.toLowerCase() === `${prefix}${name}/readme.md`.toLowerCase());
    return [name, { title: name, ...(readme ? { file: readme } : {}), children: folderEntries(markdownFiles, `${prefix}${name}`) }];
  });
  return [...fileEntries, ...folderEntriesOf]
    .sort(([a], [b]) => (isReadme(a) ? -1 : isReadme(b) ? 1 : a.localeCompare(b)))
    .map(([, entry]) => entry);
}

function buildPages(
  entries: Entry[],
  parentPath: string,
  context: ImportOptions & { files: Map<string, RepositoryFile>; before: Map<string, StoredPage> },
): StoredPage[] {
  const taken = new Set<string>();
  return entries.map((entry) => {
    const file = entry.file ? context.files.get(entry.file) : undefined;
    const read = file ? readPageFile(storableText(file.bytes.toString('utf8'))) : undefined;
    const title = read?.title ?? (entry.title.trim() || 'Untitled');
    const slug = uniqueName(taken, slugOf(entry, parentPath, title));
    const pagePath = parentPath ? `${parentPath}/${slug}` : slug;
    const previous = context.before.get(pagePath);
    const type: StoredPage['type'] = entry.href ? 'link' : entry.file !== undefined ? 'document' : 'group';
    const markdown = read && file && context.rewrite ? context.rewrite(read.markdown, file) : (read?.markdown ?? '');
    const fields = {
      title,
      ...(type === 'document' ? { markdown } : {}),
      ...(entry.href ? { href: entry.href } : {}),
      ...(read?.attributes ?? {}),
    };
    const unchanged =
      previous !== undefined &&
      previous.title === fields.title &&
      previous.type === type &&
      (previous.markdown ?? '') === (fields.markdown ?? '') &&
      previous.description === fields.description;
    return {
      id: previous?.id ?? newId(),
      slug,
      type,
      ...fields,
      createdAt: previous?.createdAt ?? context.now,
      updatedAt: unchanged ? previous.updatedAt : context.now,
      ...(file ? { git: { oid: file.oid, path: file.repoPath } } : {}),
      pages: buildPages(entry.children, pagePath, context),
    };
  });
}

/** A page's slug: its file's name (its folder's for a README), a group's folder, else from its title. */
function slugOf(entry: Entry, parentPath: string, title: string): string {
  let name: string | undefined;
  if (entry.file !== undefined) {
    const folder = posix.dirname(entry.file);
    if (!isReadme(entry.file)) name = posix.basename(entry.file).replace(/\.md$/i, '');
    else if (folder !== '.') name = posix.basename(folder);
  } else if (!entry.href) {
    const prefix = parentPath ? `${parentPath}/` : '';
    const nested = firstFile(entry.children);
    const parts = nested?.startsWith(prefix) ? nested.slice(prefix.length).split('/') : [];
    if (parts.length > 1) name = parts[0];
  }
  return slugify(name ?? '') || slugify(title) || 'page';
}

const slugify = (name: string) => anchorOf(name.replace(/[_.\s]+/g, ' '));

function firstFile(entries: Entry[]): string | undefined {
  for (const entry of entries) {
    const file = entry.file || firstFile(entry.children);
    if (file) return file;
  }
  return undefined;
}

const CONTENT_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.webp': 'image/webp',
  '.pdf': 'application/pdf',
  '.json': 'application/json',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.txt': 'text/plain',
  '.csv': 'text/csv',
  '.md': 'text/markdown',
  '.html': 'text/html',
  '.zip': 'application/zip',
  '.mp4': 'video/mp4',
};

const contentTypeOf = (file: string) => CONTENT_TYPES[posix.extname(file).toLowerCase()] ?? 'application/octet-stream';

/**
 * Points the relative links and images of a page file at `prefix` + their path in the repository, when they name a
 * file of the repository that the import does not bring in (not a page, not an asset): `repoTreeURL`.
 */
export function linkExternalFiles(markdown: string, fileRepoPath: string, repoPaths: Set<string>, prefix: string): string {
  const edits: { start: number; end: number; url: string }[] = [];
  const visit = (node: Nodes) => {
    if ((node.type === 'link' || node.type === 'image' || node.type === 'definition') && node.position) {
      const edit = externalEdit(markdown, node, fileRepoPath, repoPaths, prefix);
      if (edit) edits.push(edit);
    }
    if ('children' in node) node.children.forEach(visit);
  };
  visit(parseMarkdown(markdown));
  return edits
    .sort((a, b) => b.start - a.start)
    .reduce((text, edit) => `${text.slice(0, edit.start)}${edit.url}${text.slice(edit.end)}`, markdown);
}

function externalEdit(
  markdown: string,
  node: Extract<Nodes, { type: 'link' | 'image' | 'definition' }>,
  fileRepoPath: string,
  repoPaths: Set<string>,
  prefix: string,
): { start: number; end: number; url: string } | undefined {
  const { url } = node;
  if (!url || isAbsoluteAddress(url) || url.startsWith('#') || url.startsWith('/')) return undefined;
  const suffix = url.slice(url.replace(/[#?].*$/, '').length);
  const target = posix.normalize(posix.join(posix.dirname(fileRepoPath), addressPath(url)));
  if (!repoPaths.has(target) || isMarkdown(target) || target.includes(`${ASSETS_DIR}/`)) return undefined;
  // Where the address is written: after the link text, the image's `](` or the definition's `]:`.
  const start = node.position!.start.offset!;
  const source = markdown.slice(start, node.position!.end.offset!);
  const from =
    node.type === 'link' ? (node.children.at(-1)?.position?.end.offset ?? start) - start : source.indexOf(node.type === 'image' ? '](' : ']:');
  const at = source.indexOf(url, Math.max(from, 0));
  if (at < 0) return undefined;
  const encoded = target.split('/').map(encodeURIComponent).join('/');
  return { start: start + at, end: start + at + url.length, url: `${prefix}${encoded}${suffix}` };
}
