// Content written from a test as an edit would write it, where the API has no operation that writes it directly.
import type { AppContext } from '../../server/context/context.ts';
import type { RevisionContent, RevisionRecord } from '../../server/content/model.ts';
import { commitSpaceContent, getRevision } from '../../server/content/revisions.ts';
import { getSpaceRow } from '../../server/domain/spaces.ts';

/**
 * Gives a space new current content, in a write of the server's store: `edit` changes a copy of its current content,
 * which becomes a new revision on top of it (`commitSpaceContent`, as the server's own edits do).
 */
export function editSpaceContent(app: AppContext, spaceId: string, edit: (content: RevisionContent) => void): Promise<RevisionRecord> {
  return app.store.write(async (db) => {
    const current = (await getSpaceRow(db, spaceId))!.revisionId;
    const content = structuredClone((await getRevision(db, current, spaceId))!.content);
    edit(content);
    return commitSpaceContent(db, spaceId, [current], content, app.now());
  });
}
