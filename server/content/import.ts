// The website importer (`source: "website"`): crawls the pages under the start address's prefix within fixed bounds,
// outside any transaction (`fetchWebsite`), then converts them from HTML to markdown and builds new content holding
// them as one tree of pages, their images as files, inside the request's write (`importFetchedWebsite`)
// (server/docs/behaviour-content-change-requests-comments.md, "Import").
import { performance } from 'node:perf_hooks';
import type TurndownService from 'turndown';
import { type HTMLElement, parse as parseHtml } from 'node-html-parser';
import type { AppContext, Scope } from '../context/context.ts';
import { badRequest } from '../common/errors.ts';
import { OutboundError, type OutboundResponse, outboundFor } from '../net/outbound.ts';
import { newPage, slugify, unique } from './edit.ts';
import { sameStoredFile, storeFile } from './files.ts';
import { type RevisionContent, type StoredFile, type StoredPage, walkPages } from './model.ts';
import { storableText } from '../common/text.ts';

export const IMPORT_LIMITS = {
  pages: 50,
  depth: 3,
  images: 50,
  pageBytes: 2 * 1024 * 1024,
  imageBytes: 5 * 1024 * 1024,
  concurrency: 4,
  /** The whole import takes at most this many outbound timeouts. */
  budget: 3,
};

const PAGE_EXTENSION = /\.(html?|xhtml|php|aspx?|jsp)$/i;

interface FetchedPage {
  /** Address the page was found at. */
  url: string;
  /** Path below the prefix, as slugs (empty for the start page). */
  segments: string[];
  title: string;
  description?: string;
  /** The content element, with links and images still as written. */
  body: HTMLElement;
}

export interface ImportResult {
  content: RevisionContent;
  importedResources: number;
  totalResources: number;
}

/** The folder of an address, as the prefix pages must be under. */
function prefixOf(url: URL): URL {
  const prefix = new URL(url.href);
  prefix.search = '';
  prefix.hash = '';
  const last = prefix.pathname.split('/').at(-1) ?? '';
  if (last.includes('.')) prefix.pathname = prefix.pathname.slice(0, prefix.pathname.length - last.length);
  else if (!prefix.pathname.endsWith('/')) prefix.pathname += '/';
  return prefix;
}

/** Path segments (slugs) of a page address below the prefix; undefined when it is not a page under it. */
function segmentsUnder(prefix: URL, url: URL): string[] | undefined {
  if (url.origin !== prefix.origin || (url.protocol !== 'http:' && url.protocol !== 'https:')) return undefined;
  const path = url.pathname.endsWith('/') ? url.pathname : `${url.pathname}/`;
  if (!path.startsWith(prefix.pathname)) return undefined;
  const rest = url.pathname.slice(prefix.pathname.length).replace(/\/+$/, '');
  const parts = rest.split('/').filter((part) => part !== '');
  const last = parts.at(-1);
  if (last !== undefined) {
    if (/^index\.(html?|xhtml|php|aspx?|jsp)$/i.test(last)) parts.pop();
    else if (last.includes('.') && !PAGE_EXTENSION.test(last)) return undefined;
    else parts[parts.length - 1] = last.replace(PAGE_EXTENSION, '');
  }
  return parts.map((part) => {
    try {
      return slugify(decodeURIComponent(part));
    } catch {
      return slugify(part);
    }
  });
}

const isHtml = (response: OutboundResponse) => /^(text\/html|application\/xhtml\+xml)\b/i.test(String(response.headers['content-type'] ?? ''));
const isOk = (response: OutboundResponse) => response.status >= 200 && response.status < 300;

function readPage(html: string, url: string, segments: string[]): { page: FetchedPage; links: string[]; images: string[] } {
  const root = parseHtml(html, { comment: false });
  const resolve = (href: string | undefined) => {
    try {
      return href ? new URL(href, url).href : undefined;
    } catch {
      return undefined;
    }
  };
  const links = root.querySelectorAll('a[href]').flatMap((a) => resolve(a.getAttribute('href')) ?? []);
  const heading = root.querySelector('h1');
  const title =
    heading?.text.trim() || root.querySelector('title')?.text.trim() || (segments.at(-1) ?? new URL(url).hostname);
  const description = root.querySelector('meta[name="description"]')?.getAttribute('content')?.trim();
  const body =
    root.querySelector('main') ?? root.querySelector('article') ?? root.querySelector('[role="main"]') ?? root.querySelector('body') ?? root;
  for (const element of body.querySelectorAll('script, style, noscript, template, nav, header, footer, iframe, form')) {
    element.remove();
  }
  const first = body.querySelector('h1');
  if (first && first.text.trim() === title) first.remove();
  const images = body.querySelectorAll('img[src]').flatMap((img) => {
    const src = resolve(img.getAttribute('src'));
    return src && /^https?:/.test(src) ? [src] : [];
  });
  return { page: { url, segments, title, ...(description ? { description } : {}), body }, links, images };
}

/** Fetches the site: pages first (breadth first), then their images. Touches no state. */
async function crawl(ctx: AppContext, start: string) {
  const fetchUrl = outboundFor(ctx.config);
  const timeout = ctx.config.outboundTimeoutMs;
  const deadline = performance.now() + IMPORT_LIMITS.budget * timeout;
  const get = (url: string, maxBytes: number, accept: string) => {
    const timeoutMs = Math.floor(Math.min(timeout, deadline - performance.now()));
    if (timeoutMs < 1) return Promise.reject(new OutboundError('timeout', `the import's time is up before ${url}`));
    return fetchUrl(url, { maxBytes, timeoutMs, headers: { accept } });
  };
  const inBatches = async <T, R>(items: T[], work: (item: T) => Promise<R>): Promise<R[]> => {
    const results: R[] = [];
    for (let i = 0; i < items.length; i += IMPORT_LIMITS.concurrency) {
      results.push(...(await Promise.all(items.slice(i, i + IMPORT_LIMITS.concurrency).map(work))));
    }
    return results;
  };

  let first: OutboundResponse;
  try {
    first = await get(start, IMPORT_LIMITS.pageBytes, 'text/html,application/xhtml+xml');
  } catch (error) {
    if (error instanceof OutboundError) throw badRequest(`url: ${error.message}`);
    throw error;
  }
  if (!isOk(first)) throw badRequest(`url: ${start} answered HTTP ${first.status}`);
  if (!isHtml(first)) {
    throw badRequest(`url: ${start} answered ${first.headers['content-type'] ?? 'without a content type'}, not an HTML page`);
  }
  const prefix = prefixOf(new URL(first.url));

  const pages: FetchedPage[] = [];
  const found = new Map<string, string[]>(); // path below the prefix → segments, in discovery order
  const images = new Set<string>();
  let level: { url: string; segments: string[] }[] = [];
  const discover = (links: string[], depth: number) => {
    for (const link of links) {
      const segments = segmentsUnder(prefix, new URL(link));
      if (!segments) continue;
      const key = segments.join('/');
      if (found.has(key)) continue;
      found.set(key, segments);
      if (depth <= IMPORT_LIMITS.depth) level.push({ url: link.replace(/[?#].*$/s, ''), segments });
    }
  };
  const accept = (html: string, url: string, segments: string[], depth: number) => {
    const read = readPage(html, url, segments);
    pages.push(read.page);
    read.images.forEach((image) => images.add(image));
    discover(read.links, depth + 1);
  };

  found.set('', []);
  accept(storableText(first.body.toString('utf8')), first.url, [], 0);
  for (let depth = 1; depth <= IMPORT_LIMITS.depth && level.length > 0; depth++) {
    const current = level.slice(0, Math.max(0, IMPORT_LIMITS.pages - pages.length));
    level = [];
    const responses = await inBatches(current, (entry) =>
      get(entry.url, IMPORT_LIMITS.pageBytes, 'text/html,application/xhtml+xml').catch(() => undefined),
    );
    responses.forEach((response, index) => {
      if (response && isOk(response) && isHtml(response)) {
        accept(storableText(response.body.toString('utf8')), current[index]!.url, current[index]!.segments, depth);
      }
    });
  }

  const imageList = [...images];
  const downloads = new Map<string, { bytes: Buffer; contentType: string }>();
  const wanted = imageList.slice(0, IMPORT_LIMITS.images);
  const answers = await inBatches(wanted, (url) => get(url, IMPORT_LIMITS.imageBytes, 'image/*').catch(() => undefined));
  answers.forEach((response, index) => {
    const contentType = String(response?.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (response && isOk(response) && contentType.startsWith('image/')) {
      downloads.set(wanted[index]!, { bytes: response.body, contentType });
    }
  });

  return { prefix, pages, found: found.size, images: imageList.length, downloads };
}

const EXTENSIONS: Record<string, string> = {
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/gif': '.gif',
  'image/svg+xml': '.svg',
  'image/webp': '.webp',
  'image/avif': '.avif',
};

function fileNameOf(url: string, contentType: string): string {
  let name = new URL(url).pathname.split('/').at(-1) ?? '';
  try {
    name = decodeURIComponent(name);
  } catch {
    // keep it as written
  }
  name = name.replace(/[^\p{L}\p{N}._-]+/gu, '-').replace(/^[-.]+/, '') || 'image';
  return name.includes('.') ? name : `${name}${EXTENSIONS[contentType] ?? ''}`;
}

const titleOf = (slug: string) => {
  const words = slug.replace(/-/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** A crawled website, ready to be imported (`importFetchedWebsite`). */
export interface FetchedWebsite extends Awaited<ReturnType<typeof crawl>> {
  /** The HTML to markdown converter, loaded with the site so that importing it waits on nothing. */
  turndown: TurndownService;
}

/** Crawls the website at `url` (see the bounds above); touches no state. A start page that cannot be imported is a 400 naming `url`. */
export async function fetchWebsite(ctx: AppContext, url: string): Promise<FetchedWebsite> {
  const [site, [{ default: Turndown }, { gfm }]] = await Promise.all([
    crawl(ctx, url),
    // Loaded by the first import rather than at start-up (turndown brings a DOM implementation, 50 modules).
    Promise.all([import('turndown'), import('turndown-plugin-gfm')]),
  ]);
  const turndown = new Turndown({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' }).use(gfm);
  return { ...site, turndown };
}

/**
 * Imports a fetched website into `content`: stores its images as files (reusing identical ones) and returns the new
 * content and the counts. It runs inside the request's write transaction, with everything fetched already.
 */
export async function importFetchedWebsite(ctx: Scope, content: RevisionContent, site: FetchedWebsite): Promise<ImportResult> {
  const now = ctx.now();

  // Files: one per downloaded image, reusing an identical file of the content.
  const files = [...content.files];
  const names = new Set(files.map((file) => file.name));
  const fileNames = new Map<string, string>();
  for (const [imageUrl, download] of site.downloads) {
    const name = fileNameOf(imageUrl, download.contentType);
    let file: StoredFile | undefined = await sameStoredFile(ctx.db, files, name, download.bytes);
    if (!file) {
      file = await storeFile(ctx.db, download.bytes, { name: unique(name, names, { extension: true }), contentType: download.contentType }, now);
      files.push(file);
      names.add(file.name);
    }
    fileNames.set(imageUrl, file.name);
  }

  // Pages, converted with their links made into paths of the space or absolute addresses.
  const hostSlug = slugify(site.prefix.hostname);
  const rootSlug = slugify(site.prefix.pathname.split('/').filter(Boolean).at(-1) ?? hostSlug);
  const paths = new Map(site.pages.map((page) => [page.segments.join('/'), page]));
  const { turndown } = site;
  const markdownOf = (page: FetchedPage) => {
    for (const anchor of page.body.querySelectorAll('a[href]')) {
      let target: URL;
      try {
        target = new URL(anchor.getAttribute('href')!, page.url);
      } catch {
        continue;
      }
      const segments = segmentsUnder(site.prefix, target);
      const imported = segments && paths.has(segments.join('/'));
      anchor.setAttribute('href', imported ? `/${[rootSlug, ...segments].join('/')}${target.hash}` : target.href);
    }
    for (const image of page.body.querySelectorAll('img[src]')) {
      try {
        const source = new URL(image.getAttribute('src')!, page.url).href;
        image.setAttribute('src', fileNames.get(source) ?? source);
      } catch {
        // an unparsable address stays as written
      }
    }
    return turndown.turndown(page.body.innerHTML).trim() + '\n';
  };

  const nodes = new Map<string, StoredPage>();
  for (const page of site.pages) {
    nodes.set(
      page.segments.join('/'),
      newPage(
        {
          title: page.title,
          slug: page.segments.at(-1) ?? rootSlug,
          markdown: markdownOf(page),
          ...(page.description ? { description: page.description } : {}),
        },
        now,
      ),
    );
  }
  const root = nodes.get('')!;
  const attach = (segments: string[]): StoredPage => {
    const key = segments.join('/');
    let node = nodes.get(key);
    if (!node) {
      node = newPage({ title: titleOf(segments.at(-1)!), slug: segments.at(-1)!, type: 'group' }, now);
      delete node.markdown;
      nodes.set(key, node);
      attach(segments.slice(0, -1)).pages.push(node);
    }
    return node;
  };
  for (const page of site.pages) {
    if (page.segments.length > 0) attach(page.segments.slice(0, -1)).pages.push(nodes.get(page.segments.join('/'))!);
  }

  const existing = content.pages.find((page) => page.slug === rootSlug);
  const tree = existing ? keepIdentities(root, existing, now) : root;
  return {
    content: {
      ...content,
      pages: existing ? content.pages.map((page) => (page === existing ? tree : page)) : [...content.pages, tree],
      files,
    },
    importedResources: site.pages.length + site.downloads.size,
    totalResources: site.found + site.images,
  };
}

/** The new tree, where each page at a path the old tree had keeps that page's id, creation and (if unchanged) update time. */
function keepIdentities(fresh: StoredPage, old: StoredPage, now: string): StoredPage {
  const before = new Map([...walkPages([old])].map((entry) => [entry.path, entry.page]));
  const visit = (page: StoredPage, path: string): StoredPage => {
    const previous = before.get(path);
    const pages = page.pages.map((child) => visit(child, `${path}/${child.slug}`));
    if (!previous) return { ...page, pages };
    const unchanged =
      previous.title === page.title && previous.markdown === page.markdown && previous.description === page.description;
    return { ...page, id: previous.id, createdAt: previous.createdAt, updatedAt: unchanged ? previous.updatedAt : now, pages };
  };
  return visit(fresh, fresh.slug);
}
