// Translating the content of a revision. A Translator translates runs of plain text; translateContent feeds it the
// text of every page (titles, descriptions, and the text runs of the markdown, parsed with mdast) and puts the
// answers back, so that markdown syntax, code (blocks and inline), URLs and link targets are never touched.
// The default translator is a deterministic pseudo-localization; another one can be plugged in per server.
import type { Nodes } from 'mdast';
import { gfmToMarkdown } from 'mdast-util-gfm';
import { toMarkdown } from 'mdast-util-to-markdown';
import type { AppContext } from '../context/context.ts';
import type { Model } from '../common/contract.ts';
import { parseMarkdown } from './document.ts';
import type { RevisionContent, StoredPage } from './model.ts';

export type Language = Model<'Language'>;

export interface TranslationRequest {
  /** Language of the source text, when known. */
  from?: Language;
  to: Language;
  /** The translation's instructions, as plain text (empty when it has none). */
  instructions: string;
  /**
   * Aborted when the run is no longer this instance's (another took its job over): a translator that waits on a
   * service passes it on; the run stops before its next page either way.
   */
  signal?: AbortSignal;
}

export interface Translator {
  /** Translates runs of plain text: one answer per run, in the same order. */
  translate(texts: string[], request: TranslationRequest): Promise<string[]>;
}

const ACCENTED: Record<string, string> = { a: 'á', e: 'é', i: 'í', o: 'ó', u: 'ú', y: 'ý', A: 'Á', E: 'É', I: 'Í', O: 'Ó', U: 'Ú', Y: 'Ý' };

/** `Hello world ` becomes `⟦Hélló wórld⟧ `: vowels accented and the text marked, surrounding spaces kept outside. */
export function pseudoLocalize(text: string): string {
  const match = text.match(/^(\s*)([\s\S]*?)(\s*)$/)!;
  const [, before, core, after] = match as unknown as [string, string, string, string];
  if (core === '') return text;
  return `${before}⟦${core.replace(/[aeiouyAEIOUY]/g, (vowel) => ACCENTED[vowel]!)}⟧${after}`;
}

/** The default translator: deterministic pseudo-localization, whatever the languages and instructions. */
export const pseudoLocalizer: Translator = {
  translate: async (texts) => texts.map(pseudoLocalize),
};

/** The translator each server uses, by its store (one per server, shared by every scope of it). */
const plugged = new WeakMap<object, Translator>();

/** Makes `translator` the one a server's translation runs use (the pseudo-localizer otherwise). */
export function useTranslator(ctx: AppContext, translator: Translator): void {
  plugged.set(ctx.store, translator);
}

export function translatorOf(ctx: AppContext): Translator {
  return plugged.get(ctx.store) ?? pseudoLocalizer;
}

/** Words of a text: runs of letters and digits, with inner apostrophes and hyphens. */
export function countWords(text: string): number {
  return text.match(/[\p{L}\p{N}]+(?:['\u2019-][\p{L}\p{N}]+)*/gu)?.length ?? 0;
}

/** A run of text to translate and where its translation goes. */
interface Slot {
  text: string;
  put(translation: string): void;
}

const hasWords = (text: string) => /[\p{L}\p{N}]/u.test(text);

/** A link showing its own address (`<https://…>`, `www.…`, an email): translating its text would change it. */
function isAutolink(node: Nodes): boolean {
  if (node.type !== 'link' || node.children.length !== 1 || node.children[0]!.type !== 'text') return false;
  const shown = node.children[0]!.value;
  return [shown, `http://${shown}`, `https://${shown}`, `mailto:${shown}`].includes(node.url);
}

/** The text runs of markdown, as slots that rewrite the tree; `render` serializes the tree once they are filled. */
function markdownSlots(markdown: string): { slots: Slot[]; render(): string } {
  const tree = parseMarkdown(markdown);
  const slots: Slot[] = [];
  const visit = (node: Nodes) => {
    if (node.type === 'text' && hasWords(node.value)) {
      slots.push({ text: node.value, put: (value) => (node.value = value) });
    } else if (node.type === 'image' && node.alt && hasWords(node.alt)) {
      slots.push({ text: node.alt, put: (value) => (node.alt = value) });
    }
    if ('children' in node && !isAutolink(node)) node.children.forEach(visit);
  };
  visit(tree);
  return { slots, render: () => toMarkdown(tree, { extensions: [gfmToMarkdown()], bullet: '-', fences: true }) };
}

/** The slots of a page: title, description and markdown; `finish` writes the translated markdown back. */
function pageSlots(page: StoredPage): { slots: Slot[]; finish(): void } {
  const slots: Slot[] = [];
  if (hasWords(page.title)) slots.push({ text: page.title, put: (value) => (page.title = value) });
  if (page.description && hasWords(page.description)) {
    slots.push({ text: page.description, put: (value) => (page.description = value) });
  }
  if (!page.markdown || !hasWords(page.markdown)) return { slots, finish: () => undefined };
  const markdown = markdownSlots(page.markdown);
  slots.push(...markdown.slots);
  return { slots, finish: () => (page.markdown = markdown.render()) };
}

export interface TranslatedContent {
  content: RevisionContent;
  /** Pages translated (every page of the tree). */
  pages: number;
  /** Words of the source text sent to the translator. */
  words: number;
}

/**
 * Translates a revision's content page by page. Page ids and slugs are kept, so that a page has the same address
 * in every language; files, reusable contents and variables are copied as they are.
 */
export async function translateContent(
  source: RevisionContent,
  translator: Translator,
  request: TranslationRequest,
): Promise<TranslatedContent> {
  const { git: _git, ...rest } = structuredClone(source);
  const content: RevisionContent = rest;
  let pages = 0;
  let words = 0;
  const translatePages = async (list: StoredPage[]) => {
    for (const page of list) {
      request.signal?.throwIfAborted();
      pages += 1;
      const { slots, finish } = pageSlots(page);
      if (slots.length > 0) {
        const texts = slots.map((slot) => slot.text);
        const translations = await translator.translate(texts, request);
        if (translations.length !== texts.length) {
          throw new Error(`the translator answered ${translations.length} texts for ${texts.length}`);
        }
        slots.forEach((slot, index) => slot.put(translations[index]!));
        words += texts.reduce((sum, text) => sum + countWords(text), 0);
        finish();
      }
      await translatePages(page.pages);
    }
  };
  await translatePages(content.pages);
  return { content, pages, words };
}
