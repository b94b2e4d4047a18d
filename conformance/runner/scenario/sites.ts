// The scenario's site group: a site of the main space, its settings and adaptive schema, and its structure (sections,
// section groups, site spaces) built and reordered.
import { StepFailed } from '../session.ts';
import type { Scenario } from './context.ts';

/**
 * A site and its structure: sections, section groups, site spaces, moves. The site stays until the end (the
 * integration's site list shows it).
 */
export function sites(sc: Scenario): Promise<void> {
  const { s, inOrg, named, organizationId, runId, main, aux, deferToEnd } = sc;
  return s.group('sites', async (defer) => {
    if (!main || !aux) throw new StepFailed('no spaces to publish');
    const site = await s.must(
      'createSite',
      { path: inOrg, body: { title: named('site'), spaces: [main.id] } },
      { undo: (created) => s.cleanup('deleteSite', { path: { organizationId, siteId: created.id } }) },
    );
    const siteId = site.id;
    deferToEnd(() => s.cleanup('deleteSite', { path: { organizationId, siteId } }));
    const onSite = { organizationId, siteId };
    await s.call('listSites', { path: inOrg, query: {} });
    await s.call('getSite', { path: onSite });
    await s.call('updateSite', { path: onSite, body: { title: named('site (renamed)') } });
    await s.call('getSiteAdaptiveSchema', { path: onSite });
    await s.call('updateSiteAdaptiveSchema', {
      path: onSite,
      body: {
        jsonSchema: {
          type: 'object',
          properties: { isBeta: { type: 'boolean', description: 'The visitor is in the beta programme' } },
          additionalProperties: false,
        },
      },
    });
    await s.call('listSiteAdaptiveConditionTemplates', { path: onSite });
    await s.call('getPublishedSite', { path: onSite, query: {} });

    // Sections: the first one takes in the root site space (the main space's).
    const first = await s.must('createSiteSection', { path: onSite, body: { spaceId: main.id, title: 'Guides' } });
    const second = await s.must('createSiteSection', { path: onSite, body: { spaceId: main.id, title: 'Reference' } }, { invalid: false });
    defer(() => s.cleanup('deleteSiteSection', { path: { ...onSite, siteSectionId: second.id } }));
    const third = await s.must('createSiteSection', { path: onSite, body: { spaceId: aux.id, title: 'Extras' } }, { invalid: false });
    await s.call('listSiteSections', { path: onSite, query: {} });
    await s.call('updateSiteSection', { path: { ...onSite, siteSectionId: second.id }, body: { description: 'The reference pages' } });
    // Top level: first, second, third -> third, first, second.
    await s.call('moveSiteSection', {
      path: { ...onSite, siteSectionId: third.id },
      body: { position: { before: { type: 'site-section', siteSection: first.id } } },
    });

    // A section group: third, group[first], second -> third, group[first, second] -> group, third -> third, group.
    const group = await s.must('createSiteSectionGroup', { path: onSite, body: { title: 'Handbook', sections: [first.id] } });
    const onGroup = { ...onSite, siteSectionGroupId: group.id };
    let groupAlive = true;
    defer(async () => {
      if (groupAlive) await s.cleanup('deleteSiteSectionGroup', { path: onGroup });
    });
    await s.call('listSiteSectionGroups', { path: onSite, query: {} });
    await s.call('updateSiteSectionGroup', { path: onGroup, body: { title: 'Handbook (renamed)' } });
    await s.call('addSiteSectionToGroup', { path: onGroup, body: { sectionId: second.id } });
    await s.call('moveSiteSectionGroup', { path: onGroup, body: { position: { before: { type: 'site-section', id: third.id } } } });
    await s.call('sortSiteStructure', {
      path: onSite,
      body: { item: { type: 'site-section', id: third.id }, position: { before: { type: 'site-section-group', id: group.id } } },
    });
    await s.call('removeSiteSectionFromGroup', { path: { ...onGroup, siteSectionId: second.id } });
    await s.call('deleteSiteSectionGroup', { path: onGroup });
    groupAlive = false;

    // Site spaces of the first section: [main] -> [main, aux] -> [aux, main].
    const siteSpace = await s.must('createSiteSpace', { path: onSite, body: { spaceId: aux.id, sectionId: first.id } });
    const onSiteSpace = { ...onSite, siteSpaceId: siteSpace.id };
    let siteSpaceAlive = true;
    defer(async () => {
      if (siteSpaceAlive) await s.cleanup('deleteSiteSpace', { path: onSiteSpace });
    });
    const siteSpaces = await s.must('listSiteSpaces', { path: onSite, query: {} });
    await s.call('updateSiteSpace', { path: onSiteSpace, body: { path: `extras-${runId}` } });
    const sibling =
      first.siteSpaces.find((candidate) => candidate.id !== siteSpace.id) ??
      siteSpaces.items.find((candidate) => candidate.section === first.id && candidate.id !== siteSpace.id);
    if (!sibling) throw new StepFailed('the first section has no other site space to move before');
    await s.call('moveSiteSpace', { path: onSiteSpace, body: { position: { before: { type: 'site-space', siteSpace: sibling.id } } } });
    await s.call('deleteSiteSpace', { path: onSiteSpace });
    siteSpaceAlive = false;
    await s.call('deleteSiteSection', { path: { ...onSite, siteSectionId: second.id } });
  });
}
