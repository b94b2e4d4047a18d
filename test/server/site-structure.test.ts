// The parts of a site's structure that stand alone, below the API (test/api/site-structure.test.ts,
// site-sections.test.ts, site-section-groups.test.ts and site-spaces.test.ts prove them through it): the order and the
// defaults its rows give, and where a move puts an item among its siblings.
import { describe, expect, test } from 'vitest';
import { type GroupRow, type ItemRef, movedOrder, type SectionRow, type SiteSpaceRow, structureOf } from '../../server/domain/site-structure.ts';
import type { SiteRow } from '../../server/domain/sites.ts';
import { DomainError } from '../../server/common/errors.ts';

const CREATED = '2024-01-01T00:00:00.000Z';
const LATER = '2024-01-02T00:00:00.000Z';

function site(defaults: { section?: string; siteSpace?: string } = {}): SiteRow {
  return {
    id: 'site',
    organizationId: 'acme',
    type: 'basic',
    title: 'Docs',
    visibility: 'public',
    basename: null,
    proxy: null,
    agentsContext: 'included',
    adaptiveContent: 0,
    adaptiveSchema: '{}',
    adaptiveSchemaUpdatedAt: null,
    shareKey: 'key',
    defaultSectionId: defaults.section ?? null,
    defaultSiteSpaceId: defaults.siteSpace ?? null,
    createdAt: CREATED,
  };
}

const section = (id: string, position: number, more: Partial<SectionRow> = {}): SectionRow => ({
  id,
  siteId: 'site',
  groupId: null,
  title: id,
  path: id,
  description: null,
  condition: null,
  icon: null,
  defaultSiteSpaceId: null,
  position,
  createdAt: CREATED,
  ...more,
});

const group = (id: string, position: number, more: Partial<GroupRow> = {}): GroupRow => ({ id, siteId: 'site', title: id, icon: null, position, createdAt: CREATED, ...more });

const siteSpace = (id: string, sectionId: string | null, position: number, more: Partial<SiteSpaceRow> = {}): SiteSpaceRow => ({
  id,
  siteId: 'site',
  sectionId,
  spaceId: `space-${id}`,
  path: id,
  condition: null,
  position,
  createdAt: CREATED,
  ...more,
});

const ids = (rows: { id: string }[]) => rows.map((row) => row.id);

describe('structureOf', () => {
  test('orders the top level (sections outside a group and groups) by position, then creation, then id; a group holds its sections in order', () => {
    const structure = structureOf({
      site: site(),
      sections: [
        section('b', 2),
        section('a', 2, { createdAt: LATER }),
        section('in-group-2', 2, { groupId: 'g' }),
        section('in-group-1', 1, { groupId: 'g' }),
        section('c', 1),
        section('d', 2),
      ],
      groups: [group('g', 1, { createdAt: LATER })],
      siteSpaces: [],
      spaces: [],
    });
    expect(structure.top).toEqual([
      { type: 'site-section', id: 'c' },
      { type: 'site-section-group', id: 'g' },
      { type: 'site-section', id: 'b' },
      { type: 'site-section', id: 'd' },
      { type: 'site-section', id: 'a' },
    ]);
    expect(ids(structure.sections)).toEqual(['c', 'in-group-1', 'in-group-2', 'b', 'd', 'a']);
    expect(ids(structure.groupSections('g'))).toEqual(['in-group-1', 'in-group-2']);
    expect(structure.nextTopPosition).toBe(3);
    expect(structure.section('a')?.createdAt).toBe(LATER);
    expect(structure.group('g')?.id).toBe('g');
    expect(structure.section('none')).toBeUndefined();
  });

  test('orders site spaces within their container, and all of them root level first, then by section', () => {
    const structure = structureOf({
      site: site(),
      sections: [section('s2', 2), section('s1', 1)],
      groups: [],
      siteSpaces: [siteSpace('x2', 's2', 1), siteSpace('y', 's1', 2), siteSpace('x', 's1', 1), siteSpace('root', null, 1)],
      spaces: [],
    });
    expect(ids(structure.siteSpaces('s1'))).toEqual(['x', 'y']);
    expect(ids(structure.siteSpaces(null))).toEqual(['root']);
    expect(ids(structure.allSiteSpaces)).toEqual(['root', 'x', 'y', 'x2']);
    expect(structure.siteSpace('y')?.sectionId).toBe('s1');
  });

  test('a default is the stored one while it is there, else the first item in order', () => {
    const rows = {
      sections: [section('s1', 1, { defaultSiteSpaceId: 'y' }), section('s2', 2, { defaultSiteSpaceId: 'gone' }), section('s3', 3)],
      groups: [],
      siteSpaces: [siteSpace('x', 's1', 1), siteSpace('y', 's1', 2), siteSpace('z', 's2', 1), siteSpace('root', null, 1)],
      spaces: [],
    };
    const stored = structureOf({ ...rows, site: site({ section: 's2', siteSpace: 'root' }) });
    expect(stored.defaultSectionId).toBe('s2');
    expect([null, 's1', 's2', 's3'].map((id) => stored.defaultSiteSpaceId(id))).toEqual(['root', 'y', 'z', undefined]);
    const fallen = structureOf({ ...rows, site: site({ section: 'gone', siteSpace: 'gone' }) });
    expect(fallen.defaultSectionId).toBe('s1');
    expect(fallen.defaultSiteSpaceId(null)).toBe('root');
    expect(structureOf({ site: site(), sections: [], groups: [], siteSpaces: [], spaces: [] }).defaultSectionId).toBeUndefined();
  });

  test('a space its site spaces do not hold is an error naming it', () => {
    const structure = structureOf({ site: site(), sections: [], groups: [], siteSpaces: [], spaces: [] });
    expect(() => structure.space('s')).toThrow('space s of site site was attached after its structure was loaded');
  });
});

describe('movedOrder', () => {
  const item = (id: string): ItemRef => ({ type: 'site-space', id });
  const siblings = ['a', 'b', 'c', 'd'].map(item);
  const fields = { before: 'before', after: 'after' };
  const moved = (id: string, position: { before?: string; after?: string }) =>
    movedOrder(siblings, item(id), { ...(position.before ? { before: item(position.before) } : {}), ...(position.after ? { after: item(position.after) } : {}) }, fields).map(
      (entry) => entry.id,
    );
  const refusal = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      expect(error).toBeInstanceOf(DomainError);
      return `${(error as DomainError).kind}: ${(error as DomainError).message}`;
    }
    throw new Error('expected a refusal');
  };

  test('places the item just before `before`, just after `after`, between both, or last', () => {
    expect(moved('d', { before: 'b' })).toEqual(['a', 'd', 'b', 'c']);
    expect(moved('a', { after: 'c' })).toEqual(['b', 'c', 'a', 'd']);
    expect(moved('a', { after: 'b', before: 'c' })).toEqual(['b', 'a', 'c', 'd']);
    expect(moved('b', {})).toEqual(['a', 'c', 'd', 'b']);
  });

  test('refuses a reference that is the item or not a sibling (naming the field), two that are not next to each other, and a move that changes nothing', () => {
    expect(refusal(() => moved('a', { before: 'a' }))).toBe('invalid: before: an item cannot be placed next to itself');
    expect(refusal(() => moved('a', { after: 'z' }))).toBe('invalid: after: site-space z is not a sibling of site-space a');
    expect(refusal(() => moved('a', { after: 'b', before: 'd' }))).toBe('invalid: position: b is not just before d');
    expect(refusal(() => moved('d', {}))).toBe('conflict: the move changes nothing: site-space d is already there');
    expect(refusal(() => moved('b', { after: 'a' }))).toBe('conflict: the move changes nothing: site-space b is already there');
  });
});
