// The runner leaves nothing behind: every list of the organizations it works in (and transfers to), read through the
// typed client before and after a full run against the reference server, is the same. That covers what the
// implementation creates on the runner's behalf (a site's new space, duplicates, translations' result spaces,
// transferred items) and what the property phase and the invalid inputs create with generated titles.
import { expect, test } from 'vitest';
import { createDocsClient, paginate } from '../../client/index.ts';
import { runConformance } from '../../conformance/runner/runner.ts';
import { Session } from '../../conformance/runner/session.ts';
import { RUNNER_TOKEN, runnerServer } from '../support/runner.ts';

// Allowed to reach the runner's address: every operation is exercised, so every way of creating something is taken.
const server = runnerServer({ ALLOW_PRIVATE_ADDRESSES: '127.0.0.1' });

/** Every list the runner touches, as `list: ids (with a title where there is one)`, for each organization. */
async function snapshot(url: string): Promise<Record<string, string[]>> {
  const client = createDocsClient({ baseUrl: url, token: RUNNER_TOKEN, throwOnError: true });
  const lists: Record<string, string[]> = {};
  const all = async <T>(items: AsyncIterable<T>, key: (item: T) => string) => {
    const keys: string[] = [];
    for await (const item of items) keys.push(key(item));
    return keys.sort();
  };
  const limit = { limit: 1000 } as const;
  for (const organizationId of ['acme', 'globex']) {
    const path = { organizationId };
    lists[`${organizationId} spaces`] = await all(paginate(client, '/v1/orgs/{organizationId}/spaces', { params: { path, query: limit } }), (item) => `${item.id} ${item.title}`);
    lists[`${organizationId} collections`] = await all(paginate(client, '/v1/orgs/{organizationId}/collections', { params: { path, query: limit } }), (item) => `${item.id} ${item.title}`);
    lists[`${organizationId} sites`] = await all(paginate(client, '/v1/orgs/{organizationId}/sites', { params: { path, query: limit } }), (item) => `${item.id} ${item.title}`);
    lists[`${organizationId} teams`] = await all(paginate(client, '/v1/orgs/{organizationId}/teams', { params: { path, query: limit } }), (item) => `${item.id} ${item.title}`);
    lists[`${organizationId} members`] = await all(paginate(client, '/v1/orgs/{organizationId}/members', { params: { path, query: limit } }), (item) => `${item.user.id} ${item.role}`);
    lists[`${organizationId} saml`] = await all(paginate(client, '/v1/orgs/{organizationId}/saml', { params: { path, query: limit } }), (item) => `${item.id} ${item.label}`);
    lists[`${organizationId} openapi`] = await all(paginate(client, '/v1/orgs/{organizationId}/openapi', { params: { path, query: limit } }), (item) => item.slug);
    lists[`${organizationId} translations`] = await all(paginate(client, '/v1/orgs/{organizationId}/translations', { params: { path, query: limit } }), (item) => item.id);
  }
  const integrations = await all(paginate(client, '/v1/integrations', { params: { query: limit } }), (item) => item.name);
  lists.integrations = integrations;
  for (const integrationName of integrations) {
    lists[`${integrationName} installations`] = await all(
      paginate(client, '/v1/integrations/{integrationName}/installations', { params: { path: { integrationName }, query: limit } }),
      (item) => item.id,
    );
  }
  return lists;
}

test('after a full run, every list of the organizations reads as before it', { timeout: 120_000 }, async () => {
  const before = await snapshot(server.url);
  const report = await runConformance({ baseUrl: server.url, token: RUNNER_TOKEN, property: { seed: 11 } });
  expect(report.violations).toEqual([]);
  expect(report.notExercised).toEqual([]);
  expect(report.leftBehind ?? []).toEqual([]);
  expect(await snapshot(server.url)).toEqual(before);
});

test('a translation without a source, which no run is queued for, is deleted at once: the clean-up waits only for runs', { timeout: 60_000 }, async () => {
  // A translation with a source, whose run the clean-up waits for, and one without (the contract makes `source`
  // optional; such a translation stays `pending` with no run to come), both made as the property phase makes them.
  const session = new Session({ baseUrl: server.url, token: RUNNER_TOKEN });
  const path = { organizationId: 'acme' };
  const space = await session.exchange('createSpace', { path, query: {}, body: { title: 'Translated' } });
  const translated = await session.exchange('createTranslation', { path, query: {}, body: { language: 'fr', source: { space: (space!.json as { id: string }).id } } });
  const sourceless = await session.exchange('createTranslation', { path, query: {}, body: { language: 'de' } });
  expect([space?.status, translated?.status, sourceless?.status]).toEqual([201, 201, 201]);
  expect(sourceless!.json).toMatchObject({ status: 'pending' });
  expect(sourceless!.json).not.toHaveProperty('source');
  await session.sweep();
  const report = session.report(new Date(), {});
  expect(report.notes).toEqual([]);
  expect(report.leftBehind ?? []).toEqual([]);
  // The translation without a source was read once before its deletion, not polled for the --wait-ms.
  const polls = (id: string) => report.calls.filter((call) => call.kind === 'poll' && call.url.endsWith(`/translations/${id}`)).length;
  expect(polls((sourceless!.json as { id: string }).id)).toBe(1);
  expect(polls((translated!.json as { id: string }).id)).toBeGreaterThanOrEqual(1);
});
