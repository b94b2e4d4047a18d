// Search results as the API shows them: matching sections grouped by page (and, for organization search, by
// space), in the order of each group's best match. Hits are grouped first and presented for a page of results
// only, as the text shown for each section (the words around the match) is most of what a search costs.
import type { Scope } from '../context/context.ts';
import type { Model } from '../common/contract.ts';
import { type SectionHit, sectionBodies } from './search.ts';

/** The matching sections of one page, best first. */
export interface PageHits {
  spaceId: string;
  pageId: string;
  hits: SectionHit[];
}

/** The hits grouped by page, in the order of each page's best hit. */
export function groupByPage(hits: readonly SectionHit[]): PageHits[] {
  const pages = new Map<string, PageHits>();
  for (const hit of hits) {
    const key = `${hit.spaceId}/${hit.pageId}`;
    let entry = pages.get(key);
    if (!entry) pages.set(key, (entry = { spaceId: hit.spaceId, pageId: hit.pageId, hits: [] }));
    entry.hits.push(hit);
  }
  return [...pages.values()];
}

/** Presents pages of hits for a search of `text`, each with its matching sections and their text. */
export async function presentPages(ctx: Scope, text: string, pages: readonly PageHits[]): Promise<Model<'SearchPageResult'>[]> {
  const bodies = await sectionBodies(ctx.db, text, pages.flatMap((page) => page.hits.map((hit) => hit.row)));
  return pages.map(({ spaceId, hits }) => {
    const { pageTitle, pagePath } = hits[0]!;
    const pageUrl = ctx.urls.app(`/s/${spaceId}/${pagePath}`);
    return {
      id: hits[0]!.pageId,
      title: pageTitle,
      path: pagePath,
      // A section's path is its page's, plus its anchor.
      sections: hits.map((hit) => ({
        id: hit.sectionId,
        title: hit.sectionTitle,
        path: hit.sectionId ? `${pagePath}#${hit.sectionId}` : pagePath,
        body: bodies.get(hit.row) ?? '',
        urls: { app: hit.sectionId ? `${pageUrl}#${hit.sectionId}` : pageUrl },
      })),
      urls: { app: pageUrl },
    };
  });
}
