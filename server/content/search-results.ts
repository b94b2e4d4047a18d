// Search results as the API shows them: matching sections grouped by page (and, for organization search, by
// space), in the order of each group's best match.
import type { AppContext } from '../context.ts';
import type { Model } from '../http/types.ts';
import type { SectionHit } from './search.ts';

/** A matching section; its path is its page's, plus its anchor. */
function sectionResult(ctx: AppContext, hit: SectionHit): Model<'SearchSectionResult'> {
  const pageUrl = ctx.urls.app(`/s/${hit.spaceId}/${hit.pagePath}`);
  return {
    id: hit.sectionId,
    title: hit.sectionTitle,
    path: hit.sectionId ? `${hit.pagePath}#${hit.sectionId}` : hit.pagePath,
    body: hit.body,
    urls: { app: hit.sectionId ? `${pageUrl}#${hit.sectionId}` : pageUrl },
  };
}

/** The pages of the hits, each with its matching sections, with the space each page belongs to. */
export function pageResults(ctx: AppContext, hits: SectionHit[]): { spaceId: string; page: Model<'SearchPageResult'> }[] {
  const pages = new Map<string, { spaceId: string; page: Model<'SearchPageResult'> }>();
  for (const hit of hits) {
    const key = `${hit.spaceId}/${hit.pageId}`;
    let entry = pages.get(key);
    if (!entry) {
      entry = {
        spaceId: hit.spaceId,
        page: {
          id: hit.pageId,
          title: hit.pageTitle,
          path: hit.pagePath,
          sections: [],
          urls: { app: ctx.urls.app(`/s/${hit.spaceId}/${hit.pagePath}`) },
        },
      };
      pages.set(key, entry);
    }
    entry.page.sections.push(sectionResult(ctx, hit));
  }
  return [...pages.values()];
}
