// Helpers to build new content from a revision's: new pages, slugs and file names that do not collide.
import { newId } from '../common/ids.ts';
import type { StoredPage } from './model.ts';
import { anchorOf } from './search.ts';

/** A slug from any text: lower-case words joined with `-` (`Getting_Started.html` gives `getting-started-html`). */
export function slugify(text: string): string {
  return anchorOf(text.replace(/[_.+]+/g, ' ')).replace(/-+/g, '-').replace(/^-|-$/g, '') || 'page';
}

/** `base`, or `base-2`, `base-3`… (before the extension, for a file name) when it is taken. */
export function unique(base: string, taken: Set<string>, options: { extension?: boolean } = {}): string {
  const dot = options.extension ? base.lastIndexOf('.') : -1;
  const [stem, extension] = dot > 0 ? [base.slice(0, dot), base.slice(dot)] : [base, ''];
  let candidate = base;
  for (let n = 2; taken.has(candidate); n++) candidate = `${stem}-${n}${extension}`;
  return candidate;
}

/** A new document page. */
export function newPage(
  input: Partial<Omit<StoredPage, 'id' | 'createdAt' | 'updatedAt'>> & { title: string },
  now: string,
): StoredPage {
  return {
    id: newId(),
    slug: slugify(input.title),
    type: 'document',
    markdown: '',
    pages: [],
    ...input,
    createdAt: now,
    updatedAt: now,
  };
}
