import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { components } from '../../client/index.ts';
import {
  pseudoLocalize,
  pseudoLocalizer,
  translateContent,
  type Translator,
  useTranslator,
} from '../../server/content/translate.ts';
import { ACME, GLOBEX, type RoleUser, standardFixture, storedPage } from '../support/fixture.ts';
import { expectError, ok } from '../support/expect.ts';
import { startTestServer, type TestServer, useTestServer } from '../support/server.ts';

const WELCOME_MD =
  '# Getting started\n\nRead the [install guide](https://docs.acme.test/install) before you `npm install`.\n\n' +
  '```sh\necho "keep me"\n```\n';
const SETUP_MD = 'Visit https://acme.test for help.\n';
/** Words of the handbook: Welcome (1), its markdown (8), Setup (1), its markdown (3). */
const HANDBOOK_WORDS = 13;
const HANDBOOK_PAGES = 2;

const handbookPages = [{ id: 'welcome', title: 'Welcome', markdown: WELCOME_MD, pages: [{ id: 'setup', title: 'Setup', markdown: SETUP_MD }] }];

const fixture = {
  ...standardFixture,
  organizations: [
    {
      ...standardFixture.organizations![0]!,
      spaces: [
        { id: 'handbook', title: 'Handbook', pages: handbookPages },
        { id: 'notes', title: 'Notes', pages: [{ id: 'note', title: 'A note', markdown: 'Short and sweet.\n' }] },
        { id: 'fragile', title: 'Fragile', pages: [{ id: 'glass', title: 'Glass', markdown: 'Handle with care.\n' }] },
        { id: 'doomed', title: 'Doomed', pages: [{ id: 'end', title: 'The end', markdown: 'Soon gone.\n' }] },
      ],
    },
    {
      ...standardFixture.organizations![1]!,
      spaces: [{ id: 'globex-notes', title: 'Globex notes', pages: [] }],
    },
  ],
};

const INSTRUCTIONS = {
  object: 'document',
  data: { schemaVersion: 1 },
  nodes: [
    { object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Keep a formal tone.' }] }] },
  ],
} satisfies components['schemas']['Document'];

const ctx = useTestServer({ fixture });

const org = (organizationId = ACME) => ({ params: { path: { organizationId } } });
const one = (translationId: string, organizationId = ACME) => ({ params: { path: { organizationId, translationId } } });
const idle = () => ctx.server.running.ctx.jobs.idle();

type CreateBody = components['schemas']['CreateTranslationRequest'];

async function create(body: CreateBody, user: RoleUser = 'admin', server: TestServer = ctx.server) {
  return ok(await server.as(user).POST('/v1/orgs/{organizationId}/translations', { ...org(), body }), 201);
}

async function get(id: string, server: TestServer = ctx.server) {
  return ok(await server.as('admin').GET('/v1/orgs/{organizationId}/translations/{translationId}', one(id)));
}

async function getSpace(spaceId: string) {
  return ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', { params: { path: { spaceId } } }));
}

/** A translator that waits, once it is called, until the test opens its gate. */
function gatedTranslator() {
  let open!: () => void;
  let entered!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const started = new Promise<void>((resolve) => (entered = resolve));
  const translator: Translator = {
    async translate(texts) {
      entered();
      await gate;
      return texts.map(pseudoLocalize);
    },
  };
  return { translator, started, open };
}

afterEach(() => useTranslator(ctx.server.running.ctx, pseudoLocalizer));

describe('POST /v1/orgs/{organizationId}/translations', () => {
  test('creates a translation and runs it: a new space holds the pseudo-localized content', async () => {
    const answer = await ctx.server.as('creator').POST('/v1/orgs/{organizationId}/translations', {
      ...org(),
      body: { language: 'fr', source: { space: 'handbook', language: 'en' }, instructions: INSTRUCTIONS },
    });
    const created = ok(answer, 201);
    expect(answer.response.headers.get('location')).toBe(created.urls.location);
    expect(created).toMatchObject({
      object: 'translation',
      status: 'pending',
      language: 'fr',
      source: { space: 'handbook', language: 'en' },
      instructions: INSTRUCTIONS,
      stats: { runs: 0, totalWords: 0, totalPages: 0, totalDuration: 0 },
      permissions: { view: true, edit: true },
      urls: { location: `${ctx.server.url}/v1/orgs/${ACME}/translations/${created.id}` },
    });
    expect(created.result).toBeUndefined();

    await idle();
    const done = await get(created.id);
    expect(done).toMatchObject({
      status: 'completed',
      stats: {
        runs: 1,
        totalWords: HANDBOOK_WORDS,
        totalPages: HANDBOOK_PAGES,
        latestWords: HANDBOOK_WORDS,
        latestPages: HANDBOOK_PAGES,
        // The clock of the tests does not move by itself: durations are measured with it.
        latestRunDuration: 0,
        totalDuration: 0,
      },
    });
    const space = await getSpace(done.result!.space);
    expect(space).toMatchObject({ title: 'Handbook (fr)', language: 'fr', organization: ACME, revision: done.result!.revision });
  });

  test('the result space holds the pages with their text marked and code, URLs and link targets intact', async () => {
    const created = await create({ language: 'de', source: { space: 'handbook' } });
    await idle();
    const { result } = await get(created.id);
    const answer = await ctx.server.as('admin').GET('/v1/spaces/{spaceId}/content/page/{pageId}', {
      params: { path: { spaceId: result!.space, pageId: 'welcome' } },
    });
    const page = ok(answer);
    expect(page.title).toBe('⟦Wélcómé⟧');
    expect(page.markdown).toContain('# ⟦Géttíng stártéd⟧');
    expect(page.markdown).toContain('[⟦ínstáll gúídé⟧](https://docs.acme.test/install) ⟦béfóré ýóú⟧ `npm install`.');
    expect(page.markdown).toContain('```sh\necho "keep me"\n```');
  });

  test('without a source nothing runs: the translation stays pending, and a run is refused', async () => {
    const created = await create({ language: 'de' });
    await idle();
    const read = await get(created.id);
    expect(read).toMatchObject({ status: 'pending', stats: { runs: 0 } });
    expect(read.source).toBeUndefined();
    expectError(
      await ctx.server.as('admin').POST('/v1/orgs/{organizationId}/translations/{translationId}/run', one(created.id)),
      400,
      'source',
    );
    await idle();
    expect(await get(created.id)).toEqual(read);
  });

  test('rejects invalid input with 400 naming the field, and creates nothing', async () => {
    const count = async () => ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/translations', org())).count;
    const before = await count();
    const post = (body: unknown) =>
      ctx.server.as('admin').POST('/v1/orgs/{organizationId}/translations', { ...org(), body: body as never });
    expectError(await post({ language: 'xx' }), 400, 'language');
    expectError(await post({}), 400, 'language');
    expectError(await post({ language: 'fr', source: { space: 'no-such-space' } }), 400, 'source.space');
    expectError(await post({ language: 'fr', source: { space: 'globex-notes' } }), 400, 'source.space');
    expectError(await post({ language: 'fr', source: { space: 'handbook', language: 'fr' } }), 400, 'language');
    expectError(await post({ language: 'fr', source: { language: 'en' } }), 400, 'source');
    expectError(await post({ language: 'fr', instructions: { object: 'document' } }), 400, 'instructions');
    expectError(await post({ language: 'fr', status: 'completed' }), 400, 'status');
    await idle();
    expect(await count()).toBe(before);
  });

  test('needs the createContent permission (403), membership (404) and a token (401)', async () => {
    const before = ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/translations', org())).count;
    const body = { language: 'it' as const, source: { space: 'notes' } };
    const post = (user: RoleUser | 'anonymous', organizationId = ACME) =>
      ctx.server.as(user).POST('/v1/orgs/{organizationId}/translations', { ...org(organizationId), body });
    expectError(await post('reviewer'), 403, 'edit');
    expectError(await post('reader'), 403);
    expectError(await post('guest'), 403);
    expectError(await post('outsider'), 404);
    expectError(await post('admin', 'nope'), 404);
    expectError(await post('anonymous'), 401);
    expect(ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/translations', org())).count).toBe(before);
  });
});

describe('GET /v1/orgs/{organizationId}/translations', () => {
  test('lists the translations of the organization in pages, with permissions for the caller', async () => {
    const all = ok(await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/translations', org()));
    expect(all.count).toBeGreaterThanOrEqual(3);
    expect(all.items.every((item) => item.permissions.view && !item.permissions.edit)).toBe(true);
    const pages = [];
    let page: string | undefined;
    do {
      const answer = ok(
        await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/translations', {
          params: { ...org().params, query: { limit: 2, ...(page ? { page } : {}) } },
        }),
      );
      pages.push(...answer.items.map((item) => item.id));
      page = answer.next?.page;
    } while (page);
    expect(pages).toEqual(all.items.map((item) => item.id));
    const globex = ok(await ctx.server.as('outsider').GET('/v1/orgs/{organizationId}/translations', org(GLOBEX)));
    expect(globex.count).toBe(0);
  });

  test('rejects a bad limit or cursor with 400', async () => {
    const list = (query: { limit?: number; page?: string }) =>
      ctx.server.as('reader').GET('/v1/orgs/{organizationId}/translations', { params: { ...org().params, query } });
    expectError(await list({ limit: 0 }), 400, 'limit');
    expectError(await list({ page: 'forged.cursor' }), 400, 'page');
  });

  test('answers 403 to a guest, 404 outside the organization, 401 without a token', async () => {
    expectError(await ctx.server.as('guest').GET('/v1/orgs/{organizationId}/translations', org()), 403, 'view');
    expectError(await ctx.server.as('outsider').GET('/v1/orgs/{organizationId}/translations', org()), 404);
    expectError(await ctx.server.as('anonymous').GET('/v1/orgs/{organizationId}/translations', org()), 401);
  });
});

describe('GET /v1/orgs/{organizationId}/translations/{translationId}', () => {
  test('returns the translation to a reader, who may view but not edit', async () => {
    const created = await create({ language: 'es', source: { space: 'notes' } });
    await idle();
    const read = ok(await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/translations/{translationId}', one(created.id)));
    expect(read).toMatchObject({ id: created.id, language: 'es', status: 'completed', permissions: { view: true, edit: false } });
  });

  test('answers 404 for an unknown id or one of another organization', async () => {
    expectError(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/translations/{translationId}', one('unknown')), 404);
    const [mine] = ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/translations', org())).items;
    expectError(
      await ctx.server.as('outsider').GET('/v1/orgs/{organizationId}/translations/{translationId}', one(mine!.id, GLOBEX)),
      404,
    );
  });

  test('answers 403 to a guest, 404 outside the organization, 401 without a token', async () => {
    const [first] = ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/translations', org())).items;
    expectError(await ctx.server.as('guest').GET('/v1/orgs/{organizationId}/translations/{translationId}', one(first!.id)), 403);
    expectError(await ctx.server.as('outsider').GET('/v1/orgs/{organizationId}/translations/{translationId}', one(first!.id)), 404);
    expectError(await ctx.server.as('anonymous').GET('/v1/orgs/{organizationId}/translations/{translationId}', one(first!.id)), 401);
  });
});

describe('PUT /v1/orgs/{organizationId}/translations/{translationId}', () => {
  const put = (user: RoleUser | 'anonymous', id: string, body: unknown) =>
    ctx.server.as(user).PUT('/v1/orgs/{organizationId}/translations/{translationId}', { ...one(id), body: body as never });
  const NEW_INSTRUCTIONS = {
    ...INSTRUCTIONS,
    nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Be brief.' }] }] }],
  };

  test('replaces the instructions, and reads them back', async () => {
    const created = await create({ language: 'nl', instructions: INSTRUCTIONS });
    ctx.server.clock.advance(60_000);
    const updated = ok(await put('creator', created.id, { instructions: NEW_INSTRUCTIONS }));
    expect(updated.instructions).toEqual(NEW_INSTRUCTIONS);
    expect(updated.updatedAt > created.updatedAt).toBe(true);
    expect(await get(created.id)).toEqual(updated);
  });

  test('rejects invalid input with 400 naming the field, and changes nothing', async () => {
    const created = await create({ language: 'pl', instructions: INSTRUCTIONS });
    expectError(await put('admin', created.id, {}), 400, 'instructions');
    expectError(await put('admin', created.id, { instructions: { object: 'document', data: {}, nodes: 'text' } }), 400, 'instructions');
    expectError(await put('admin', created.id, { instructions: INSTRUCTIONS, language: 'de' }), 400, 'language');
    expect(await get(created.id)).toEqual(created);
  });

  test('answers 404 for an unknown id, 403 without the edit permission, 404 outside the organization, 401 without a token', async () => {
    const created = await create({ language: 'sv', instructions: INSTRUCTIONS });
    expectError(await put('admin', 'unknown', { instructions: NEW_INSTRUCTIONS }), 404);
    expectError(await put('reader', created.id, { instructions: NEW_INSTRUCTIONS }), 403, 'edit');
    expectError(await put('outsider', created.id, { instructions: NEW_INSTRUCTIONS }), 404);
    expectError(await put('anonymous', created.id, { instructions: NEW_INSTRUCTIONS }), 401);
    expect(await get(created.id)).toEqual(created);
  });
});

describe('DELETE /v1/orgs/{organizationId}/translations/{translationId}', () => {
  const remove = (user: RoleUser | 'anonymous', id: string) =>
    ctx.server.as(user).DELETE('/v1/orgs/{organizationId}/translations/{translationId}', one(id));

  test('deletes the translation and keeps its result space; deleting again answers 204', async () => {
    const created = await create({ language: 'fi', source: { space: 'notes' } });
    await idle();
    const { result } = await get(created.id);
    expect((await remove('creator', created.id)).response.status).toBe(204);
    expectError(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/translations/{translationId}', one(created.id)), 404);
    expect((await getSpace(result!.space)).title).toBe('Notes (fi)');
    expect((await remove('creator', created.id)).response.status).toBe(204);
    expect((await remove('admin', 'never-was')).response.status).toBe(204);
  });

  test('a run queued before the deletion finds nothing to do', async () => {
    const created = await create({ language: 'da', source: { space: 'notes' } });
    expect((await remove('admin', created.id)).response.status).toBe(204);
    await idle();
    expectError(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/translations/{translationId}', one(created.id)), 404);
  });

  test('needs the edit permission (403), membership (404) and a token (401), and then keeps the translation', async () => {
    const created = await create({ language: 'cs' });
    expectError(await remove('reader', created.id), 403, 'edit');
    expectError(await remove('guest', created.id), 403);
    expectError(await remove('outsider', created.id), 404);
    expectError(await remove('anonymous', created.id), 401);
    expect(await get(created.id)).toEqual(created);
  });
});

describe('POST /v1/orgs/{organizationId}/translations/{translationId}/run', () => {
  const run = (user: RoleUser | 'anonymous', id: string) =>
    ctx.server.as(user).POST('/v1/orgs/{organizationId}/translations/{translationId}/run', one(id));

  test('each run writes a new revision of the same result space; statistics accumulate, with durations from the clock', async () => {
    // Each page takes the translator 1.5 s of the server's clock.
    useTranslator(ctx.server.running.ctx, {
      async translate(texts) {
        ctx.server.clock.advance(1500);
        return texts.map(pseudoLocalize);
      },
    });
    const created = await create({ language: 'ja', source: { space: 'handbook' } });
    await idle();
    const first = await get(created.id);
    expect(first.stats).toEqual({
      runs: 1,
      totalWords: HANDBOOK_WORDS,
      totalPages: HANDBOOK_PAGES,
      totalDuration: 3000,
      latestRunDuration: 3000,
      latestPages: HANDBOOK_PAGES,
      latestWords: HANDBOOK_WORDS,
    });

    const answer = await run('creator', created.id);
    expect(answer.response.status).toBe(204);
    await idle();
    const second = await get(created.id);
    expect(second).toMatchObject({
      status: 'completed',
      stats: {
        runs: 2,
        totalWords: 2 * HANDBOOK_WORDS,
        totalPages: 2 * HANDBOOK_PAGES,
        totalDuration: 6000,
        latestRunDuration: 3000,
        latestPages: HANDBOOK_PAGES,
        latestWords: HANDBOOK_WORDS,
      },
    });
    expect(second.result!.space).toBe(first.result!.space);
    expect(second.result!.revision).not.toBe(first.result!.revision);
    expect((await getSpace(second.result!.space)).revision).toBe(second.result!.revision);
  });

  test('a run that cannot be done in the background keeps the result and statistics, and completes', async () => {
    const gated = gatedTranslator();
    useTranslator(ctx.server.running.ctx, gated.translator);
    const created = await create({ language: 'ko', source: { space: 'fragile' } });
    await gated.started;
    expect((await run('admin', created.id)).response.status).toBe(204);
    expect((await get(created.id)).status).toBe('running');
    // The second run is queued; its source goes away before it starts.
    expect((await ctx.server.as('admin').DELETE('/v1/spaces/{spaceId}', { params: { path: { spaceId: 'fragile' } } })).response.status).toBe(204);
    gated.open();
    await idle();
    const after = await get(created.id);
    expect(after).toMatchObject({ status: 'completed', stats: { runs: 1, totalPages: 1 } });
    expect(after.result).toBeDefined();
    // Now the missing source is known before anything is queued.
    expectError(await run('admin', created.id), 400, 'source.space');
    expect(await get(created.id)).toEqual(after);
  });

  test('a locked result space makes the run fail without changing it', async () => {
    const created = await create({ language: 'ru', source: { space: 'notes' } });
    await idle();
    const before = await get(created.id);
    const spaceId = before.result!.space;
    ok(await ctx.server.as('admin').PATCH('/v1/spaces/{spaceId}', { params: { path: { spaceId } }, body: { editMode: 'locked' } }));
    expect((await run('admin', created.id)).response.status).toBe(204);
    await idle();
    const after = await get(created.id);
    expect(after).toMatchObject({ status: 'completed', stats: before.stats, result: before.result });
    expect((await getSpace(spaceId)).revision).toBe(before.result!.revision);
  });

  test('when the result space was deleted, the next run writes into a new one', async () => {
    const created = await create({ language: 'tr', source: { space: 'notes' } });
    await idle();
    const before = await get(created.id);
    ok(await ctx.server.as('admin').DELETE('/v1/spaces/{spaceId}', { params: { path: { spaceId: before.result!.space } } }));
    expect((await run('admin', created.id)).response.status).toBe(204);
    await idle();
    const after = await get(created.id);
    expect(after.stats.runs).toBe(2);
    expect(after.result!.space).not.toBe(before.result!.space);
    expect((await getSpace(after.result!.space)).title).toBe('Notes (tr)');
  });

  test('refuses a translation whose source space was deleted with 400, and queues nothing', async () => {
    const created = await create({ language: 'el', source: { space: 'doomed' } });
    await idle();
    const before = await get(created.id);
    ok(await ctx.server.as('admin').DELETE('/v1/spaces/{spaceId}', { params: { path: { spaceId: 'doomed' } } }));
    expectError(await run('admin', created.id), 400, 'source.space');
    await idle();
    expect(await get(created.id)).toEqual(before);
  });

  test('answers 404 for an unknown id, 403 without the edit permission, 404 outside the organization, 401 without a token', async () => {
    const created = await create({ language: 'hu', source: { space: 'notes' } });
    await idle();
    const before = await get(created.id);
    expectError(await run('admin', 'unknown'), 404);
    expectError(await run('reader', created.id), 403, 'edit');
    expectError(await run('guest', created.id), 403);
    expectError(await run('outsider', created.id), 404);
    expectError(await run('anonymous', created.id), 401);
    await idle();
    expect(await get(created.id)).toEqual(before);
  });
});

describe('runs across a restart', () => {
  test('a run queued behind a running one before a restart runs after it', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'translations-test-'));
    const server = await startTestServer({ dataDir, fixture });
    try {
      const gated = gatedTranslator();
      useTranslator(server.running.ctx, gated.translator);
      const created = await create({ language: 'fr', source: { space: 'handbook' } }, 'admin', server);
      await gated.started;
      const queued = await server.as('admin').POST('/v1/orgs/{organizationId}/translations/{translationId}/run', one(created.id));
      expect(queued.response.status).toBe(204);
      expect((await get(created.id, server)).status).toBe('running');

      // Stopping waits for the running run; the queued one stays in the database.
      const restarting = server.restart();
      gated.open();
      await restarting;

      await server.running.ctx.jobs.idle();
      expect(await get(created.id, server)).toMatchObject({
        status: 'completed',
        stats: { runs: 2, totalPages: 2 * HANDBOOK_PAGES, totalWords: 2 * HANDBOOK_WORDS },
      });
    } finally {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the pseudo-localizing translator', () => {
  test('marks each text run and accents its vowels, keeping the spaces around it', () => {
    expect(pseudoLocalize('Read the ')).toBe('⟦Réád thé⟧ ');
    expect(pseudoLocalize('  ')).toBe('  ');
    expect(pseudoLocalize('You are AWAY')).toBe('⟦Ýóú áré ÁWÁÝ⟧');
  });

  test('keeps markdown structure, code, URLs and link targets, and page ids and slugs', async () => {
    const page = storedPage;
    const source = {
      pages: [
        page('welcome', 'Welcome', `${WELCOME_MD}\n| Name | Value |\n| --- | --- |\n| Mode | fast |\n\n- ![A cat](cat.png)\n`, [
          page('setup', 'Setup', SETUP_MD),
        ]),
      ],
      files: [],
      reusableContents: [],
      variables: { product: 'Acme' },
    };
    const translated = await translateContent(source, pseudoLocalizer, { to: 'fr', instructions: '' });
    expect(translated.pages).toBe(2);
    expect(translated.words).toBe(HANDBOOK_WORDS + 6);
    const [welcome] = translated.content.pages;
    expect(welcome).toMatchObject({ id: 'welcome', slug: 'welcome', title: '⟦Wélcómé⟧' });
    expect(welcome!.markdown).toBe(
      '# ⟦Géttíng stártéd⟧\n\n' +
        '⟦Réád thé⟧ [⟦ínstáll gúídé⟧](https://docs.acme.test/install) ⟦béfóré ýóú⟧ `npm install`.\n\n' +
        '```sh\necho "keep me"\n```\n\n' +
        '| ⟦Námé⟧ | ⟦Válúé⟧ |\n| ------ | ------- |\n| ⟦Módé⟧ | ⟦fást⟧  |\n\n' +
        '- ![⟦Á cát⟧](cat.png)\n',
    );
    expect(welcome!.pages[0]!.markdown).toBe('⟦Vísít⟧ <https://acme.test> ⟦fór hélp.⟧\n');
    expect(translated.content.variables).toEqual({ product: 'Acme' });
    expect(source.pages[0]!.title).toBe('Welcome');
  });
});
