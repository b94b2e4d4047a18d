// The parts of integrations that stand alone, below the API (test/api/integrations.test.ts proves them through it):
// the catalog's filters, the tunnel address a development mode accepts, what a tunnel's answer may change of its
// installation, and the rendering of a block.
import LZString from 'lz-string';
import { describe, expect, test } from 'vitest';
import { renderBlock, substituteProps } from '../../server/domain/integration-blocks.ts';
import { installationUpdate } from '../../server/domain/integration-events.ts';
import { type IntegrationFilters, matchesFilters } from '../../server/domain/integration-lists.ts';
import { checkTunnelUrl } from '../../server/domain/integration-publishing.ts';
import type { IntegrationRow } from '../../server/domain/integrations.ts';
import { DomainError } from '../../server/common/errors.ts';
import { MAX_JSON_DEPTH, MAX_JSON_KEY_LENGTH } from '../../server/common/json-limits.ts';

/** An integration as stored, with `fields` (JSON columns given as values). */
function integration(fields: Partial<Omit<IntegrationRow, 'blocks' | 'categories' | 'scopes' | 'contentSources'>> & { blocks?: unknown[]; categories?: string[]; scopes?: string[]; contentSources?: unknown[] } = {}): IntegrationRow {
  const { blocks = [], categories = [], scopes = [], contentSources = [], ...columns } = fields;
  return {
    name: 'status-board',
    organizationId: 'acme',
    version: 1,
    runtime: 'v1',
    title: 'Status Board',
    description: null,
    summary: null,
    icon: null,
    previewImages: '[]',
    visibility: 'public',
    target: 'space',
    scopes: JSON.stringify(scopes),
    categories: JSON.stringify(categories),
    blocks: JSON.stringify(blocks),
    contentSources: JSON.stringify(contentSources),
    externalLinks: '[]',
    configurations: '{}',
    script: null,
    secrets: '{}',
    contentSecurityPolicy: null,
    verified: 0,
    devTunnelUrl: null,
    devAll: 0,
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
    ...columns,
  };
}

/** The message of the DomainError `run` throws. */
function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return (error as DomainError).message;
  }
  throw new Error('expected a refusal');
}

describe('matchesFilters', () => {
  const matching = (row: IntegrationRow, filters: IntegrationFilters) => matchesFilters(row, filters);

  test('no filter keeps every integration', () => {
    expect(matching(integration(), {})).toBe(true);
  });

  test('search looks into the name and the title, whatever the case', () => {
    expect(matching(integration(), { search: 'BOARD' })).toBe(true);
    expect(matching(integration({ name: 'x', title: 'Status Board' }), { search: 'us bo' })).toBe(true);
    expect(matching(integration(), { search: 'calendar' })).toBe(false);
  });

  test('category and scope are members of their lists; owner is the organization', () => {
    const row = integration({ categories: ['analytics'], scopes: ['space:content:read'] });
    expect(matching(row, { category: 'analytics', scope: 'space:content:read', owner: 'acme' })).toBe(true);
    expect(matching(row, { category: 'analy' })).toBe(false);
    expect(matching(row, { scope: 'space:views:read' })).toBe(false);
    expect(matching(row, { owner: 'globex' })).toBe(false);
  });

  test('a target keeps the integrations of that target and those of every target', () => {
    expect(matching(integration({ target: 'space' }), { target: 'space' })).toBe(true);
    expect(matching(integration({ target: 'all' }), { target: 'site' })).toBe(true);
    expect(matching(integration({ target: 'space' }), { target: 'site' })).toBe(false);
  });

  test('blocks and content sources: whether it has any', () => {
    const withBoth = integration({ blocks: [{ id: 'b', title: 'B' }], contentSources: [{ id: 's', title: 'S' }] });
    expect(matching(withBoth, { blocks: true, contentSources: true })).toBe(true);
    expect(matching(withBoth, { blocks: false })).toBe(false);
    expect(matching(integration(), { blocks: false, contentSources: false })).toBe(true);
    expect(matching(integration(), { contentSources: true })).toBe(false);
  });

  test('a block domain is covered by a block URL pattern naming it, a subdomain of it, or a wildcard over it', () => {
    const unfurling = (...urlUnfurl: string[]) => integration({ blocks: [{ id: 'b', title: 'B', urlUnfurl }] });
    expect(matching(unfurling('https://*.statuspage.example/**'), { blockDomain: 'eu.statuspage.example' })).toBe(true);
    expect(matching(unfurling('https://*.statuspage.example/**'), { blockDomain: 'statuspage.example' })).toBe(true);
    expect(matching(unfurling('https://*.statuspage.example/**'), { blockDomain: 'a.b.statuspage.example' })).toBe(false);
    expect(matching(unfurling('http://Docs.Example.com:8080/path?q'), { blockDomain: 'docs.example.com' })).toBe(true);
    expect(matching(unfurling('https://docs.example.com/**'), { blockDomain: 'example.com' })).toBe(true);
    expect(matching(unfurling('https://example.com/**'), { blockDomain: 'docs.example.com' })).toBe(false);
    expect(matching(unfurling('https://exampleXcom/**'), { blockDomain: 'example.com' })).toBe(false);
    expect(matching(integration(), { blockDomain: 'example.com' })).toBe(false);
  });
});

describe('checkTunnelUrl', () => {
  const closed = { allowPrivateNetworks: false };

  test('accepts a public http(s) address, and a host name (checked when delivering)', () => {
    expect(() => checkTunnelUrl('https://tunnel.example/events', closed)).not.toThrow();
    expect(() => checkTunnelUrl('http://8.8.8.8:8080/', closed)).not.toThrow();
    expect(() => checkTunnelUrl('http://localhost:3000/', { allowPrivateNetworks: true })).not.toThrow();
  });

  test('refuses what is not an http(s) address, and loopback or private addresses unless the server allows them', () => {
    expect(refusal(() => checkTunnelUrl('tunnel.example', closed))).toBe('tunnelUrl: must be an absolute URL');
    expect(refusal(() => checkTunnelUrl('ftp://tunnel.example/', closed))).toBe('tunnelUrl: must be an http or https address');
    for (const url of ['http://127.0.0.1/', 'http://[::1]:8080/', 'http://10.1.2.3/', 'http://localhost/']) {
      expect(refusal(() => checkTunnelUrl(url, closed)), url).toMatch(/^tunnelUrl: is not a public address/);
    }
    expect(() => checkTunnelUrl('http://10.1.2.3/', { allowPrivateNetworks: false, allowedAddresses: ['10.0.0.0/8'] })).not.toThrow();
  });
});

describe('installationUpdate', () => {
  test('an answer without `installation` updates nothing', () => {
    expect(installationUpdate({ ok: true })).toBeUndefined();
    expect(installationUpdate('text')).toBeUndefined();
    expect(installationUpdate(null)).toBeUndefined();
  });

  test('gives the external ids (each once) and the configuration the answer sets', () => {
    expect(installationUpdate({ installation: { externalIds: ['a', 'b', 'a'], configuration: { region: 'eu' } } })).toEqual({
      externalIds: ['a', 'b'],
      configuration: { region: 'eu' },
    });
    expect(installationUpdate({ installation: {} })).toEqual({});
  });

  test('names what is wrong with an update out of shape or past its bounds', () => {
    expect(installationUpdate({ installation: [] })).toBe('installation must be an object');
    expect(installationUpdate({ installation: { externalIds: 'a' } })).toMatch(/^installation\.externalIds must be an array of at most 100 strings/);
    expect(installationUpdate({ installation: { externalIds: [''] } })).toMatch(/^installation\.externalIds/);
    expect(installationUpdate({ installation: { externalIds: ['x'.repeat(MAX_JSON_KEY_LENGTH + 1)] } })).toMatch(/^installation\.externalIds/);
    expect(installationUpdate({ installation: { externalIds: Array.from({ length: 101 }, (_, i) => `id-${i}`) } })).toMatch(/^installation\.externalIds/);
    expect(installationUpdate({ installation: { configuration: ['a'] } })).toBe('installation.configuration must be an object');
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`key${i}`, i]));
    expect(installationUpdate({ installation: { configuration: many } })).toBe('installation.configuration has more than 100 entries');
    let deep: unknown = 'leaf';
    for (let level = 0; level <= MAX_JSON_DEPTH; level++) deep = { nested: deep };
    expect(installationUpdate({ installation: { configuration: deep as object } })).toMatch(/^installation\.configuration/);
  });
});

describe('renderBlock', () => {
  const status = integration({
    blocks: [
      { id: 'status', title: 'Service status', description: 'One service', icon: 'gauge', markdown: { codeblock: 'status', body: 'Service **{{props.service}}** is {{ props.state.label }}.' } },
      { id: 'plain', title: 'Plain' },
    ],
  });
  const request = (value: unknown) => LZString.compressToEncodedURIComponent(JSON.stringify(value));

  test("gives the block's card, its markdown with the props substituted", () => {
    expect(renderBlock(status, request({ blockId: 'status', props: { service: 'API', state: { label: 'up' } } }))).toEqual({
      type: 'block',
      blockId: 'status',
      props: { service: 'API', state: { label: 'up' } },
      children: [{ type: 'card', title: 'Service status', hint: 'One service', icon: 'gauge', children: [{ type: 'markdown', content: 'Service **API** is up.' }] }],
    });
    expect(renderBlock(status, request({ blockId: 'plain' }))).toEqual({
      type: 'block',
      blockId: 'plain',
      props: {},
      children: [{ type: 'card', title: 'Plain', children: [] }],
    });
  });

  test('refuses a request that is not compressed JSON of a block of the integration, naming request', () => {
    expect(refusal(() => renderBlock(status, 'not-lz'))).toMatch(/^request: not JSON compressed with lz-string/);
    expect(refusal(() => renderBlock(status, request(['status'])))).toBe('request: expected {"blockId": string, "props"?: object}');
    expect(refusal(() => renderBlock(status, request({ blockId: 1 })))).toBe('request: blockId: expected a string');
    expect(refusal(() => renderBlock(status, request({ blockId: 'status', props: [] })))).toBe('request: props: expected an object');
    expect(refusal(() => renderBlock(status, request({ blockId: 'other' })))).toBe('request: the integration status-board has no block "other"');
    expect(refusal(() => renderBlock(status, request({ blockId: 'status', props: { text: 'x'.repeat(256 * 1024) } })))).toMatch(
      /^request: decompresses to more than 262144 characters/,
    );
  });
});

describe('substituteProps', () => {
  test('strings as they are, other values as JSON, missing ones and null by nothing', () => {
    const props = { name: 'Ada', count: 3, tags: ['a'], nested: { deep: { value: true } }, none: null };
    expect(substituteProps('{{props.name}}/{{ props.count }}/{{props.tags}}/{{props.nested.deep.value}}/{{props.none}}/{{props.missing.x}}', props)).toBe(
      'Ada/3/["a"]/true//',
    );
    expect(substituteProps('{{props}} {{ state.x }}', props)).toBe('{{props}} {{ state.x }}');
  });
});
