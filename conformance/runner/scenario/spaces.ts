// The scenario's collections and spaces: the two of each the other groups share (deleted at the very end), and the
// last group, which reads, changes, moves, duplicates, restores and transfers them.
import { StepFailed } from '../session.ts';
import type { Scenario } from './context.ts';

/** The two collections the other groups share: the second space goes in the first, the last group moves them. */
export function collections(sc: Scenario): Promise<void> {
  const { s, inOrg, named, deferToEnd } = sc;
  return s.group('collections', async () => {
    const a = await s.must(
      'createCollection',
      { path: inOrg, body: { title: named('collection A') } },
      { undo: (created) => s.cleanup('deleteCollection', { path: { collectionId: created.id } }) },
    );
    sc.collectionA = a;
    deferToEnd(() => s.cleanup('deleteCollection', { path: { collectionId: a.id } }));
    const b = await s.must('createCollection', { path: inOrg, body: { title: named('collection B') } }, { invalid: false });
    sc.collectionB = b;
    deferToEnd(() => s.cleanup('deleteCollection', { path: { collectionId: b.id } }));
  });
}

/** The two spaces the other groups share: the main space (its content, change requests, comments, site) and a second one. */
export function spaces(sc: Scenario): Promise<void> {
  const { s, inOrg, named, deferToEnd } = sc;
  return s.group('spaces', async () => {
    const main = await s.must(
      'createSpace',
      { path: inOrg, body: { title: named('space'), language: 'en' } },
      { undo: (created) => s.cleanup('deleteSpace', { path: { spaceId: created.id } }) },
    );
    sc.main = main;
    deferToEnd(() => s.cleanup('deleteSpace', { path: { spaceId: main.id } }));
    const { collectionA } = sc;
    const aux = await s.must('createSpace', { path: inOrg, body: { title: named('second space'), ...(collectionA ? { parent: collectionA.id } : {}) } });
    sc.aux = aux;
    deferToEnd(() => s.cleanup('deleteSpace', { path: { spaceId: aux.id } }));
  });
}

/** Spaces and collections: read, update, move, duplicate, delete and restore, transfer. */
export function spacesAndCollections(sc: Scenario): Promise<void> {
  const { s, inOrg, named, organizationId, target, main, aux, collectionA, collectionB } = sc;
  return s.group('spaces and collections', async (defer) => {
    if (!main || !aux || !collectionA || !collectionB) throw new StepFailed('no spaces or collections to work with');
    await s.call('listSpaces', { path: inOrg, query: {} });
    await s.call('getSpace', { path: { spaceId: main.id }, query: {} });
    await s.call('updateSpace', { path: { spaceId: main.id }, body: { title: named('space (renamed)'), emoji: '📘' } });
    await s.call('listCollections', { path: inOrg, query: {} });
    await s.call('getCollection', { path: { collectionId: collectionA.id } });
    await s.call('updateCollection', { path: { collectionId: collectionA.id }, body: { description: 'Created by the conformance runner.' } });
    await s.call('listCollectionSpaces', { path: { collectionId: collectionA.id }, query: {} });
    await s.call('moveSpace', { path: { spaceId: aux.id }, body: { parent: collectionB.id } });
    await s.call('moveCollection', { path: { collectionId: collectionB.id }, body: { parent: collectionA.id } });

    const copy = await s.must('duplicateSpace', { path: { spaceId: main.id } });
    defer(() => s.cleanup('deleteSpace', { path: { spaceId: copy.id } }));
    await s.call('deleteSpace', { path: { spaceId: copy.id } });
    await s.call('restoreSpace', { path: { spaceId: copy.id } });

    // Transfers: to a second organization when there is one; otherwise to the same one, which must be a 409.
    const moving = await s.must('createSpace', { path: inOrg, body: { title: named('transferred space') } }, { invalid: false });
    const movingCollection = await s.must('createCollection', { path: inOrg, body: { title: named('transferred collection') } }, { invalid: false });
    // In another organization the caller may lack the admin role on what they moved there: 403 is an answer too.
    const gone = target ? [204, 403] : [204];
    defer(() => s.cleanup('deleteSpace', { path: { spaceId: moving.id } }, gone));
    defer(() => s.cleanup('deleteCollection', { path: { collectionId: movingCollection.id } }, gone));
    const to = target ?? organizationId;
    const expectation = target ? {} : { expect: 409, exercises: true };
    await s.call('transferSpace', { path: { spaceId: moving.id }, body: { organization: to } }, expectation);
    await s.call('transferCollection', { path: { collectionId: movingCollection.id }, body: { organization: to } }, expectation);
  });
}
