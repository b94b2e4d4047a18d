// The release notes the breaking-change gate writes, on tiny documents built here: breaking changes first with
// what to do and why, then the deprecations (each with its reason, successor and dates, the seed's two among them),
// added operations, renames and the other changes; each release above the previous ones, taking the hand-written
// entries under Unreleased; and the notes a package carries, without what is not released.
import { describe, expect, test } from 'vitest';
import { compareDocuments, evaluateGate } from '../../breaking/index.ts';
import { notesBetween, prependNotes, releasedNotes, renderNotes } from '../../release/notes.ts';
import { doc, json, ok, ref, type Doc, type Schema } from '../support/breaking-documents.ts';
import { listReleases, readDocument } from '../../breaking/files.ts';
import { openapiPath } from '../support/repo.ts';

describe('release notes', () => {
  test('breaking changes come first with what to do and why, then added operations, then the other changes', () => {
    const before = doc({ '/things': { post: { operationId: 'createThing', requestBody: { required: true, content: json(ref('ThingRequest')) }, responses: ok(ref('Thing')) } } }, {
      ThingRequest: { type: 'object', properties: { title: { type: 'string', maxLength: 255 } } },
      Thing: { type: 'object', properties: { title: { type: 'string' } } },
    });
    const after = structuredClone(before);
    const schemas = (after.components as Doc).schemas as Record<string, Schema>;
    (schemas.ThingRequest!.properties as Record<string, Schema>).title!.maxLength = 100;
    (schemas.Thing!.properties as Record<string, Schema>).nickname = { type: 'string' };
    (after.paths as Doc)['/things/{id}'] = { get: { operationId: 'getThing', responses: ok(ref('Thing')) } };
    const judged = evaluateGate(compareDocuments(before, after), {
      declarations: [{ rule: 'request-property-max-length-decreased', schema: 'ThingRequest', path: '#/components/schemas/ThingRequest/properties/title', reason: 'Titles were cut.' }],
    }).judged;
    const notes = renderNotes({ version: '1.1.0', date: '2026-02-03', previous: '1.0.0', judged });
    expect(notes).toBe(
      [
        '## 1.1.0 (2026-02-03)',
        '',
        'Compared with 1.0.0: 1 breaking change, 1 new operation, 0 removed operations, 0 warnings, 1 other change.',
        '',
        '### Breaking changes',
        '',
        '#### `ThingRequest`, used by `createThing`',
        '',
        '- **Breaking for clients** (`request-property-max-length-decreased`): `ThingRequest.title`: maxLength 255 → 100.',
        '  What to do: Send values no longer than the new maximum.',
        '  Why: Titles were cut.',
        '',
        '### Added operations',
        '',
        '- `getThing` (GET /things/{id})',
        '',
        '### New fields',
        '',
        '#### `Thing`, used by `createThing`',
        '',
        '- **Change** (`response-property-added`): `Thing.nickname`: new optional field.',
        '',
      ].join('\n'),
    );
  });

  test('renames have a section of their own; a change made by an allOf member is named by the field clients reach', () => {
    const before = doc(
      { '/things': { post: { operationId: 'createThing', requestBody: { required: true, content: json(ref('ThingRequest')) }, responses: ok(ref('Thing')) } } },
      {
        ThingRequest: { type: 'object', properties: { mode: { allOf: [ref('Mode')], description: 'The mode.' } } },
        Thing: { type: 'object', properties: { urls: ref('Urls') } },
        Mode: { type: 'string', enum: ['live', 'locked'] },
        Urls: { type: 'object', properties: { app: { type: 'string' } } },
      },
    );
    const after = JSON.parse(JSON.stringify(before).replaceAll('#/components/schemas/Urls', '#/components/schemas/Links')) as Doc;
    const schemas = (after.components as Doc).schemas as Record<string, Schema>;
    schemas.Links = schemas.Urls!;
    delete schemas.Urls;
    ((schemas.ThingRequest!.properties as Record<string, Schema>).mode!.allOf as unknown[]).push({ enum: ['live'] });
    const notes = notesBetween({ base: before, revision: after, previous: '1.0.0', version: '1.1.0' });
    expect(notes).toContain('Compared with 1.0.0: 1 breaking change, 0 new operations, 0 removed operations, 0 warnings, 0 other changes, 1 rename.');
    const parts = [
      '### Breaking changes',
      '- **Breaking for clients** (`request-property-enum-value-removed`): `ThingRequest.mode`: value "locked" removed.',
      '### Renamed (the same requests and answers; new names in the generated types)',
      '#### `Links`, used by `createThing`',
      "- **Breaking for typed clients' source** (`schema-renamed`): schema `Urls` renamed `Links` (the same shape); the generated types of 1 operation name it.",
      '  What to do: Rename the type where your code names it',
    ];
    const positions = parts.map((part) => notes.indexOf(part));
    expect(positions.every((position) => position >= 0), notes).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  test('the same change over several operations is one entry, its operations counted and folded; nothing of the JSON is lost', () => {
    const last = listReleases().at(-1)!;
    const base = readDocument(last.document);
    const revision = readDocument(openapiPath);
    const judged = evaluateGate(compareDocuments(base, revision), { baseVersion: last.version, declarations: [] }).judged;
    const notes = renderNotes({ version: 'Unreleased', previous: last.version, judged });
    const lines = notes.split('\n');
    // Every finding of the gate's JSON is in the notes: its message, and each operation it touches.
    for (const { finding } of judged) {
      expect(notes, finding.message).toContain(finding.message);
      for (const operation of finding.operations) expect(notes, `${finding.rule} ${operation.operationId}`).toContain(`\`${operation.operationId}\``);
    }
    // A screen or two, however many operations a shared change touches: one line of ids per entry, folded.
    expect(lines.length).toBeLessThan(judged.length === 0 ? 10 : 200);
    if (judged.length > 20) expect(lines.length).toBeLessThan(judged.length);
    const folded = lines.filter((line) => line.startsWith('  <details><summary>'));
    expect(folded.length).toBe(lines.filter((line) => line.trim() === '</details>').length);
  });

  test('sections come in their order, each finding in one: breaking, deprecated, added operations, new fields, changed', () => {
    const operation = (id: string) => ({ get: { operationId: id, responses: ok(ref('Thing')) } });
    const before = doc({ '/a': operation('getA'), '/b': operation('getB'), '/c': operation('getC') }, { Thing: { type: 'object', properties: { title: { type: 'string' }, old: { type: 'string' } } } });
    const after = structuredClone(before);
    const paths = after.paths as Record<string, Record<string, Doc>>;
    for (const path of ['/a', '/b', '/c']) (paths[path]!.get!.responses as Record<string, unknown>)['429'] = { description: 'Too many requests.' };
    paths['/c']!.get!.deprecated = true;
    paths['/d'] = operation('getD');
    const thing = ((after.components as Doc).schemas as Record<string, Schema>).Thing!.properties as Record<string, Schema>;
    thing.nickname = { type: 'string' };
    delete thing.old;
    const notes = notesBetween({ base: before, revision: after, previous: '1.0.0', version: '1.1.0', declarations: [] });
    const order = ['### Breaking changes', '### Deprecated', '### Added operations', '### New fields', '### Changed'];
    const positions = order.map((part) => notes.indexOf(part));
    expect(positions.every((position) => position >= 0), notes).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(notes).toContain('status 429 now declared, in 3 operations');
    expect(notes).toContain('  `getA`, `getB`, `getC`');
    expect(notes.match(/status 429 now declared/g)).toHaveLength(1);
  });

  test('a new release goes above the previous ones', () => {
    const once = prependNotes(undefined, '## 1.0.0\n\nFirst.\n');
    const twice = prependNotes(once, '## 1.1.0\n\nSecond.\n');
    expect(twice.indexOf('## 1.1.0')).toBeLessThan(twice.indexOf('## 1.0.0'));
    expect(twice.startsWith('# Changelog\n')).toBe(true);
  });

  test('the hand-written entries under Unreleased move into the release, and the heading stays on top, empty', () => {
    const before = prependNotes(undefined, '## 1.0.0\n\nFirst.\n').replace('## 1.0.0', '## Unreleased\n\n- A server package.\n\n## 1.0.0');
    const after = prependNotes(before, '## 1.1.0\n\nSecond.\n');
    expect(after).toContain('## Unreleased\n\n## 1.1.0\n\nSecond.\n\n### Also in this release\n\n- A server package.\n\n## 1.0.0');
    expect(after.match(/A server package/g)).toHaveLength(1);
    // Nothing unreleased: the release's notes alone, under the heading.
    expect(prependNotes(after, '## 1.2.0\n\nThird.\n')).toContain('## Unreleased\n\n## 1.2.0\n\nThird.\n\n## 1.1.0');
  });

  test("the notes a package carries leave out what is not released yet; at a release's tag, they are the file as it is", () => {
    const released = prependNotes(undefined, '## 1.0.0\n\nFirst.\n').replace('## 1.0.0', '## Unreleased\n\n## 1.0.0');
    const pending = released.replace('## Unreleased\n\n', '## Unreleased\n\n- A server package.\n- A registry.\n\n');
    expect(releasedNotes(pending)).toBe(released);
    expect(releasedNotes(released)).toBe(released);
    // The next release's file, as the release command writes it, is carried whole.
    const tagged = prependNotes(pending, '## 1.1.0\n\nSecond.\n');
    expect(releasedNotes(tagged)).toBe(tagged);
    // Entries with no release below them yet: left out all the same.
    expect(releasedNotes('# Changelog\n\n## Unreleased\n\n- A server package.\n')).toBe('# Changelog\n\n## Unreleased\n\n');
  });
});

describe('release notes: deprecations', () => {
  test("the seed's two deprecations come right after the breaking changes, one entry each, with reason, successor and dates", () => {
    const revision = readDocument(openapiPath) as Doc;
    // The same contract as if no release had deprecated anything, and with one breaking change.
    const base = JSON.parse(JSON.stringify(revision, (key: string, value: unknown) => (['deprecated', 'x-deprecation', 'x-sunset'].includes(key) ? undefined : value))) as Doc;
    const organization = ((revision.components as Doc).schemas as Record<string, Schema>).Organization!.properties as Record<string, Schema>;
    const baseOrganization = ((base.components as Doc).schemas as Record<string, Schema>).Organization!.properties as Record<string, Schema>;
    baseOrganization.removedField = { type: 'string' };
    expect(organization.removedField).toBeUndefined();
    const notes = notesBetween({ base, revision, previous: '1.0.0', version: '1.1.0', declarations: [] });
    const deprecated = notes.slice(notes.indexOf('### Deprecated'));
    expect(notes.indexOf('### Breaking changes')).toBeGreaterThan(0);
    expect(notes.indexOf('### Breaking changes')).toBeLessThan(notes.indexOf('### Deprecated'));
    // Nothing between the breaking changes and the deprecations.
    expect(notes.slice(notes.indexOf('### Breaking changes') + 1, notes.indexOf('### Deprecated'))).not.toMatch(/^### /m);
    const section = deprecated.slice(0, deprecated.indexOf('\n### ', 1) === -1 ? undefined : deprecated.indexOf('\n### ', 1));
    expect(section.match(/^- \*\*Deprecated\*\*/gm)).toHaveLength(2);
    expect(section).toContain(
      [
        '#### `moveSiteSection` (POST /v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}/move)',
        '',
        '- **Deprecated** (`operation-deprecated`): deprecated.',
        '  Reason: A section is moved by sorting the structure of its site, which orders sections, section groups and site spaces alike.',
        '  Successor: `sortSiteStructure` (PATCH /v1/orgs/{organizationId}/sites/{siteId}/structure/sort).',
        '  Dates: no date of deprecation; no sunset.',
      ].join('\n'),
    );
    // The field, answered through Organization and through Integration.owner: one deprecation, one entry.
    expect(section).toContain(
      [
        '- **Deprecated** (`response-property-deprecated`): `Integration.owner.internal_isOnNewTrial`, `Organization.internal_isOnNewTrial`: deprecated.',
        '  Reason: It is always true, and says nothing of the organization.',
        '  Successor: none named.',
        '  Dates: no date of deprecation; no sunset.',
      ].join('\n'),
    );
  });

  test('a deprecation marked in requests and answers is one entry, its dates and field successor shown; a reason read from the description', () => {
    const before = doc(
      {
        '/things': { post: { operationId: 'createThing', requestBody: { required: true, content: json(ref('Thing')) }, responses: ok(ref('Thing')) } },
        '/things/{id}': { get: { operationId: 'getThing', description: 'Read a thing.', responses: ok(ref('Thing')) } },
      },
      { Thing: { type: 'object', properties: { nick: { type: 'string' }, nickname: { type: 'string' } } } },
    );
    const after = structuredClone(before);
    const nick = (((after.components as Doc).schemas as Record<string, Schema>).Thing!.properties as Record<string, Schema>).nick!;
    Object.assign(nick, { deprecated: true, 'x-deprecation': { reason: 'Too short a name.', since: '2026-06-01', successor: 'Thing.nickname' }, 'x-sunset': '2027-01-01' });
    // Written by hand: the reason in the description's paragraph only.
    Object.assign((after.paths as Record<string, Record<string, Doc>>)['/things/{id}']!.get!, { deprecated: true, description: 'Read a thing.\n\nDeprecated: Things are listed now.' });
    const notes = notesBetween({ base: before, revision: after, previous: '1.0.0', version: '1.1.0', declarations: [] });
    expect(notes.match(/^- \*\*Deprecated\*\*/gm), notes).toHaveLength(2);
    expect(notes).toContain(
      [
        '- **Deprecated** (`request-property-deprecated`, `response-property-deprecated`): `Thing.nick`: deprecated.',
        '  Reason: Too short a name.',
        '  Successor: `Thing.nickname`.',
        '  Dates: deprecated since 2026-06-01; sunset 2027-01-01 (it may be removed from that day).',
      ].join('\n'),
    );
    expect(notes).toContain('  Reason: Things are listed now.\n  Successor: none named.\n  Dates: no date of deprecation; no sunset.');
  });
});
