// Order that never degrades, through the API, on both engines: every ordered list of the API against a model list
// (fast-check's model-based commands), many moves into one gap, and two writers moving items of one collection at
// once (on PostgreSQL, two instances on one database). ORDERING_SEED replays a run of the model-based part.
// The commands and the lists: test/README.md, "Order through the API".
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { DocsClient } from '../../client/index.ts';
import { testEngine } from '../support/databases.ts';
import { ok } from '../support/expect.ts';
import { extendFixture } from '../support/fixture.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { timeout } from '../support/timeouts.ts';

const GAP = 1000;
const RACE = 60;
const range = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(4, '0')}`);
// A space after the first (and one before the last) that nothing moves, so that no move finds its space there already.
const gapSpaces = ['gap-first', 'gap-mid', ...range('gap-', GAP), 'gap-last'];
const raceSpaces = ['race-first', 'race-m1', ...range('race-a', RACE), ...range('race-b', RACE), 'race-m2', 'race-last'];
const fixture = extendFixture({
  acme: {
    collections: [
      { id: 'gap', title: 'Gap' },
      { id: 'race', title: 'Race' },
    ],
    spaces: [
      ...gapSpaces.map((id) => ({ id, title: id, parent: 'gap' })),
      ...raceSpaces.map((id) => ({ id, title: id, parent: 'race' })),
    ],
  },
});

// Seeding the 1 100 spaces above takes longer than a hook's default time on a busy machine.
let server: TestServer | undefined;
beforeAll(async () => {
  server = await startTestServer({ fixture });
}, 120_000);
afterAll(() => server?.close());
const ctx = {
  get server() {
    return server!;
  },
};
const admin = () => ctx.server.as('admin');
const ORG = 'acme';
const org = { organizationId: ORG };

/** The ids of a collection's spaces in the order the API lists them, every page. */
async function collectionOrder(client: DocsClient, collectionId: string): Promise<string[]> {
  const ids: string[] = [];
  let page: string | undefined;
  do {
    const answer = ok(await client.GET('/v1/collections/{collectionId}/spaces', { params: { path: { collectionId }, query: { limit: 1000, ...(page ? { page } : {}) } } }));
    ids.push(...answer.items.map((space) => space.id));
    page = answer.next?.page;
  } while (page);
  return ids;
}

// ---- The model ----

type Item = { id: string; kind: string };
type Side = 'before' | 'after' | 'last';
interface Model {
  items: Item[];
}

/** An ordered list of the API, as the model-based test drives it. */
interface OrderedList {
  /** The kinds of items an insert can add. */
  kinds: string[];
  /** Adds an item of `kind`, which goes last. */
  insert(kind: string): Promise<Item>;
  /** Moves `item` before or after `reference`, or to the end; resolves to the answer's status. */
  move(item: Item, side: Side, reference?: Item): Promise<number>;
  /** Removes an item; resolves to what takes its place in the list (a deleted group leaves its sections). */
  remove(item: Item): Promise<Item[]>;
  /** The ids the API lists, in its order. */
  read(): Promise<string[]>;
  /** The ids the API lists for the model's items. */
  view(items: Item[]): string[];
}

/** Where the model puts `item` moved to `side` of `reference`. */
function moved(items: Item[], item: Item, side: Side, reference?: Item): Item[] {
  const others = items.filter((other) => other !== item);
  const index = side === 'last' ? others.length : others.indexOf(reference!) + (side === 'after' ? 1 : 0);
  return [...others.slice(0, index), item, ...others.slice(index)];
}

/** `{before: reference}` or `{after: reference}`. */
const placed = <Reference,>(side: 'before' | 'after', reference: Reference): { before: Reference } | { after: Reference } =>
  side === 'before' ? { before: reference } : { after: reference };

const same = (a: Item[], b: Item[]) => a.length === b.length && a.every((item, i) => item === b[i]);

async function expectInOrder(model: Model, list: OrderedList, what: string): Promise<void> {
  expect(await list.read(), what).toEqual(list.view(model.items));
}

class Insert implements fc.AsyncCommand<Model, OrderedList> {
  constructor(readonly kind: number) {}
  check = () => true;
  async run(model: Model, list: OrderedList) {
    const item = await list.insert(list.kinds[this.kind % list.kinds.length]!);
    model.items.push(item);
    await expectInOrder(model, list, this.toString());
  }
  toString = () => `insert(${this.kind})`;
}

class Move implements fc.AsyncCommand<Model, OrderedList> {
  constructor(readonly item: number, readonly side: Side, readonly reference: number) {}
  check = (model: Readonly<Model>) => model.items.length > (this.side === 'last' ? 0 : 1);
  async run(model: Model, list: OrderedList) {
    const item = model.items[this.item % model.items.length]!;
    const others = model.items.filter((other) => other !== item);
    const reference = this.side === 'last' ? undefined : others[this.reference % others.length]!;
    const next = moved(model.items, item, this.side, reference);
    const status = await list.move(item, this.side, reference);
    const what = `${this}: ${item.kind} ${item.id} ${this.side} ${reference?.id ?? ''}`;
    expect(status, what).toBe(same(next, model.items) ? 409 : 200);
    model.items = next;
    await expectInOrder(model, list, what);
  }
  toString = () => `move(${this.item}, ${this.side}, ${this.reference})`;
}

class Remove implements fc.AsyncCommand<Model, OrderedList> {
  constructor(readonly item: number) {}
  check = (model: Readonly<Model>) => model.items.length > 0;
  async run(model: Model, list: OrderedList) {
    const index = this.item % model.items.length;
    const replacement = await list.remove(model.items[index]!);
    model.items = [...model.items.slice(0, index), ...replacement, ...model.items.slice(index + 1)];
    await expectInOrder(model, list, this.toString());
  }
  toString = () => `remove(${this.item})`;
}

const commands = fc.commands(
  [
    fc.nat().map((kind) => new Insert(kind)),
    fc.nat().map((kind) => new Insert(kind)),
    fc.tuple(fc.nat(), fc.constantFrom<Side>('before', 'after', 'last'), fc.nat()).map(([item, side, reference]) => new Move(item, side, reference)),
    fc.tuple(fc.nat(), fc.constantFrom<Side>('before', 'after'), fc.nat()).map(([item, side, reference]) => new Move(item, side, reference)),
    fc.tuple(fc.nat(), fc.constantFrom<Side>('before', 'after'), fc.nat()).map(([item, side, reference]) => new Move(item, side, reference)),
    fc.nat().map((item) => new Remove(item)),
  ],
  { maxCommands: 24 },
);

/** Runs the model-based test on fresh lists made by `make`. */
async function checkAgainstModel(make: () => Promise<OrderedList>): Promise<void> {
  const seed = process.env.ORDERING_SEED === undefined ? undefined : Number(process.env.ORDERING_SEED);
  await fc.assert(
    fc.asyncProperty(commands, async (run) => {
      const list = await make();
      await fc.asyncModelRun(() => ({ model: { items: [] }, real: list }), run);
    }),
    { numRuns: 6, ...(seed === undefined ? {} : { seed }) },
  );
}

// ---- The lists ----

let made = 0;
const title = (what: string) => `${what} ${++made}`;

async function newSpace(parent?: string): Promise<string> {
  return ok(await admin().POST('/v1/orgs/{organizationId}/spaces', { params: { path: org }, body: { title: title('Space'), ...(parent ? { parent } : {}) } }), 201).id;
}

/** The spaces and collections of a new collection: one order, of which the API lists the spaces. */
async function collectionChildren(): Promise<OrderedList> {
  const parent = ok(await admin().POST('/v1/orgs/{organizationId}/collections', { params: { path: org }, body: { title: title('Parent') } }), 201).id;
  const position = (side: Side, reference?: Item) => (side === 'last' ? {} : { position: placed(side, { type: 'space' as const, space: reference!.id }) });
  return {
    kinds: ['space', 'space', 'collection'],
    async insert(kind) {
      if (kind === 'space') return { id: await newSpace(parent), kind };
      const id = ok(await admin().POST('/v1/orgs/{organizationId}/collections', { params: { path: org }, body: { title: title('Child'), parent } }), 201).id;
      return { id, kind };
    },
    async move(item, side, reference) {
      const answer =
        item.kind === 'space'
          ? await admin().POST('/v1/spaces/{spaceId}/move', { params: { path: { spaceId: item.id } }, body: position(side, reference) })
          : await admin().POST('/v1/collections/{collectionId}/move', { params: { path: { collectionId: item.id } }, body: position(side, reference) });
      return answer.response.status;
    },
    async remove(item) {
      const answer =
        item.kind === 'space'
          ? await admin().DELETE('/v1/spaces/{spaceId}', { params: { path: { spaceId: item.id } } })
          : await admin().DELETE('/v1/collections/{collectionId}', { params: { path: { collectionId: item.id } } });
      expect(answer.response.status).toBe(204);
      return [];
    },
    read: () => collectionOrder(admin(), parent),
    view: (items) => items.filter((item) => item.kind === 'space').map((item) => item.id),
  };
}

const sitePath = (siteId: string) => ({ organizationId: ORG, siteId });

async function newSite(): Promise<string> {
  return ok(await admin().POST('/v1/orgs/{organizationId}/sites', { params: { path: org }, body: { title: title('Site') } }), 201).id;
}

/** The site spaces of a site without sections (its root level). */
async function siteSpaces(): Promise<OrderedList> {
  const siteId = await newSite();
  return {
    kinds: ['site-space'],
    async insert(kind) {
      const spaceId = await newSpace();
      const id = ok(await admin().POST('/v1/orgs/{organizationId}/sites/{siteId}/site-spaces', { params: { path: sitePath(siteId) }, body: { spaceId } }), 201).id;
      return { id, kind };
    },
    async move(item, side, reference) {
      const position = side === 'last' ? {} : placed(side, { type: 'site-space' as const, siteSpace: reference!.id });
      const answer = await admin().POST('/v1/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/move', {
        params: { path: { ...sitePath(siteId), siteSpaceId: item.id } },
        body: { position },
      });
      return answer.response.status;
    },
    async remove(item) {
      const answer = await admin().DELETE('/v1/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}', { params: { path: { ...sitePath(siteId), siteSpaceId: item.id } } });
      expect(answer.response.status).toBe(204);
      return [];
    },
    read: async () =>
      ok(await admin().GET('/v1/orgs/{organizationId}/sites/{siteId}/site-spaces', { params: { path: sitePath(siteId), query: { limit: 1000 } } })).items.map((item) => item.id),
    view: (items) => items.map((item) => item.id),
  };
}

async function newSection(siteId: string): Promise<string> {
  const spaceId = await newSpace();
  return ok(await admin().POST('/v1/orgs/{organizationId}/sites/{siteId}/sections', { params: { path: sitePath(siteId) }, body: { spaceId, title: title('Section') } }), 201).id;
}

const listSections = async (siteId: string) =>
  ok(await admin().GET('/v1/orgs/{organizationId}/sites/{siteId}/sections', { params: { path: sitePath(siteId), query: { limit: 1000 } } })).items;

/**
 * The top level of a site's structure: sections, and groups of one section each (a group's sections are listed
 * where the group is, so the whole order shows in the list of sections).
 */
async function siteTopLevel(): Promise<OrderedList> {
  const siteId = await newSite();
  const sectionOf = new Map<string, string>();
  const type = (item: Item) => (item.kind === 'group' ? ('site-section-group' as const) : ('site-section' as const));
  return {
    kinds: ['section', 'section', 'group'],
    async insert(kind) {
      const section = await newSection(siteId);
      if (kind === 'section') return { id: section, kind };
      const id = ok(
        await admin().POST('/v1/orgs/{organizationId}/sites/{siteId}/section-groups', { params: { path: sitePath(siteId) }, body: { title: title('Group'), sections: [section] } }),
        201,
      ).id;
      sectionOf.set(id, section);
      return { id, kind };
    },
    async move(item, side, reference) {
      const position = side === 'last' ? {} : placed(side, { type: type(reference!), id: reference!.id });
      const answer =
        item.kind === 'group'
          ? await admin().POST('/v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/move', {
              params: { path: { ...sitePath(siteId), siteSectionGroupId: item.id } },
              body: { position },
            })
          : await admin().PATCH('/v1/orgs/{organizationId}/sites/{siteId}/structure/sort', {
              params: { path: sitePath(siteId) },
              body: { item: { type: type(item), id: item.id }, position },
            });
      return answer.response.status;
    },
    async remove(item) {
      if (item.kind === 'group') {
        const answer = await admin().DELETE('/v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}', {
          params: { path: { ...sitePath(siteId), siteSectionGroupId: item.id } },
        });
        expect(answer.response.status).toBe(204);
        // Its section stays where the group was.
        return [{ id: sectionOf.get(item.id)!, kind: 'section' }];
      }
      const answer = await admin().DELETE('/v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}', { params: { path: { ...sitePath(siteId), siteSectionId: item.id } } });
      expect(answer.response.status).toBe(204);
      return [];
    },
    read: async () => (await listSections(siteId)).map((section) => section.id),
    view: (items) => items.map((item) => (item.kind === 'group' ? sectionOf.get(item.id)! : item.id)),
  };
}

/** The sections of one group. */
async function groupSections(): Promise<OrderedList> {
  const siteId = await newSite();
  const first = await newSection(siteId);
  const groupId = ok(
    await admin().POST('/v1/orgs/{organizationId}/sites/{siteId}/section-groups', { params: { path: sitePath(siteId) }, body: { title: title('Group'), sections: [first] } }),
    201,
  ).id;
  // The group's first section stays in it: the model's items are the sections added after it.
  return {
    kinds: ['section'],
    async insert(kind) {
      const sectionId = await newSection(siteId);
      const answer = await admin().POST('/v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections', {
        params: { path: { ...sitePath(siteId), siteSectionGroupId: groupId } },
        body: { sectionId },
      });
      expect(answer.response.status, JSON.stringify(answer.error)).toBeLessThan(300);
      return { id: sectionId, kind };
    },
    async move(item, side, reference) {
      const position = side === 'last' ? {} : placed(side, { type: 'site-section' as const, siteSection: reference!.id });
      const answer = await admin().POST('/v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}/move', {
        params: { path: { ...sitePath(siteId), siteSectionId: item.id } },
        body: { position } as never,
      });
      return answer.response.status;
    },
    async remove(item) {
      const answer = await admin().DELETE('/v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}', { params: { path: { ...sitePath(siteId), siteSectionId: item.id } } });
      expect(answer.response.status).toBe(204);
      return [];
    },
    read: async () => (await listSections(siteId)).filter((section) => section.sectionGroup === groupId && section.id !== first).map((section) => section.id),
    view: (items) => items.map((item) => item.id),
  };
}

describe('every ordered list of the API keeps the order a model list says', () => {
  test('the spaces and collections of a collection', { timeout: timeout(300_000) }, () => checkAgainstModel(collectionChildren));
  test('the site spaces of a site', { timeout: timeout(300_000) }, () => checkAgainstModel(siteSpaces));
  test('the top level of a site: sections and section groups', { timeout: timeout(300_000) }, () => checkAgainstModel(siteTopLevel));
  test('the sections of a section group', { timeout: timeout(300_000) }, () => checkAgainstModel(groupSections));
});

describe('positions that never run out', () => {
  test(`${GAP} moves into one gap leave the collection in the order asked for`, { timeout: timeout(600_000) }, async () => {
    const first = gapSpaces[0]!;
    const moving = gapSpaces.slice(2, 2 + GAP);
    expect(await collectionOrder(admin(), 'gap')).toEqual(gapSpaces);
    for (const spaceId of moving) {
      const answer = await admin().POST('/v1/spaces/{spaceId}/move', { params: { path: { spaceId } }, body: { position: { after: { type: 'space', space: first } } } });
      expect(answer.response.status, `${spaceId}: ${JSON.stringify(answer.error)}`).toBe(200);
    }
    // Each went right after `first`: the last one moved comes first.
    expect(await collectionOrder(admin(), 'gap')).toEqual([first, ...[...moving].reverse(), 'gap-mid', 'gap-last']);
  });

  test(`two writers${testEngine() === 'postgres' ? ' (two instances on one database)' : ''} moving items of one collection at once, each into a gap that closes`, { timeout: timeout(600_000) }, async () => {
    // On PostgreSQL the second writer is another instance on the same database; SQLite has one server per database.
    const other =
      testEngine() === 'postgres'
        ? await startTestServer({ engine: 'sqlite', fixture, env: { DATABASE_URL: ctx.server.running.ctx.config.databaseUrl! } })
        : undefined;
    try {
      const second = other ? other.as('admin') : admin();
      const a = raceSpaces.slice(2, 2 + RACE);
      const b = raceSpaces.slice(2 + RACE, 2 + 2 * RACE);
      const moveAll = async (client: DocsClient, ids: string[], position: (id: string) => object) => {
        for (const spaceId of ids) {
          const answer = await client.POST('/v1/spaces/{spaceId}/move', { params: { path: { spaceId } }, body: position(spaceId) as never });
          expect(answer.response.status, `${spaceId}: ${JSON.stringify(answer.error)}`).toBe(200);
        }
      };
      // One writer puts each of its spaces right after the first, the other each of its own right before the last:
      // whatever the interleaving, the order is then known, and both gaps close several times.
      await Promise.all([
        moveAll(admin(), a, () => ({ position: { after: { type: 'space', space: 'race-first' } } })),
        moveAll(second, b, () => ({ position: { before: { type: 'space', space: 'race-last' } } })),
      ]);
      const expected = ['race-first', ...[...a].reverse(), 'race-m1', 'race-m2', ...b, 'race-last'];
      expect(await collectionOrder(admin(), 'race')).toEqual(expected);
      expect(await collectionOrder(second, 'race')).toEqual(expected);
    } finally {
      await other?.close();
    }
  });
});
