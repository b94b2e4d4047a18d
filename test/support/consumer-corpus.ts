// The consumer corpus: contract changes, each with a consumer's usage record (made by the recorders' own code from the
// exchanges its tests had, with the fields its code read), the verdict it must get from every tool, and the pact of the
// same interactions for PactFlow's engine. One base contract shaped like the real one (components used in several
// places, allOf, a discriminated union, security); each case changes a copy of it. Run by consumer-corpus.test.ts.
import { contractIdentity } from '../../conformance/records/consumer.ts';
import { loadContract, type OpenApiDocument } from '../../conformance/contract/contract.ts';
import type { ConsumerVerdict } from '../../conformance/judgement/judgement.ts';
import { authenticatedBy, usageOf } from '../../conformance/records/usage-fields.ts';
import { emptyUsage, mergeOperationUsage, emptyOperationUsage, type UsageRecord } from '../../conformance/records/usage-format.ts';

type Json = Record<string, unknown>;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: unknown) => ({ 'application/json': { schema } });
const spaceId = { name: 'spaceId', in: 'path', required: true, schema: { type: 'string' } };

/** The base contract, release 1.0.0 of the corpus. */
export function baseContract(): Json {
  return {
    openapi: '3.1.0',
    info: { title: 'Corpus', version: '1.0.0' },
    security: [{ BearerAuth: [] }],
    paths: {
      '/spaces': {
        get: {
          operationId: 'listSpaces',
          parameters: [
            { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
            { name: 'visibility', in: 'query', schema: { type: 'string', enum: ['public', 'private', 'internal'] } },
            { name: 'cursor', in: 'query', schema: { type: 'string' } },
          ],
          responses: { '200': { description: 'Spaces.', content: json(ref('SpaceList')) } },
        },
        post: {
          operationId: 'createSpace',
          requestBody: { required: true, content: json(ref('CreateSpaceRequest')) },
          responses: { '201': { description: 'Created.', headers: { Location: { required: true, schema: { type: 'string' } } }, content: json(ref('Space')) } },
        },
      },
      '/spaces/{spaceId}': {
        get: {
          operationId: 'getSpace',
          parameters: [spaceId],
          responses: { '200': { description: 'The space.', content: json(ref('Space')) }, '404': { description: 'Not found.', content: json(ref('Error')) } },
        },
        patch: {
          operationId: 'updateSpace',
          parameters: [spaceId],
          requestBody: { required: true, content: json(ref('UpdateSpaceRequest')) },
          responses: { '200': { description: 'The space.', content: json(ref('Space')) } },
        },
        delete: { operationId: 'deleteSpace', parameters: [spaceId], responses: { '204': { description: 'Deleted.' } } },
      },
      '/spaces/{spaceId}/content': {
        get: {
          operationId: 'getSpaceContent',
          parameters: [spaceId],
          responses: {
            '200': {
              description: 'The content.',
              content: { 'application/json': { schema: ref('Content') }, 'text/markdown': { schema: { type: 'string' } } },
            },
          },
        },
      },
      '/integrations': {
        post: {
          operationId: 'createIntegration',
          requestBody: { required: true, content: json(ref('IntegrationRequest')) },
          responses: { '201': { description: 'Created.', content: json(ref('Integration')) } },
        },
      },
      '/sites': {
        post: {
          operationId: 'createSite',
          requestBody: { required: true, content: json(ref('CreateSiteRequest')) },
          responses: { '201': { description: 'Created.', content: json(ref('Site')) } },
        },
      },
      '/orgs/{organizationId}': {
        get: {
          operationId: 'getOrganization',
          parameters: [{ name: 'organizationId', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { '200': { description: 'The organization.', content: json(ref('Organization')) } },
        },
      },
    },
    components: {
      securitySchemes: { BearerAuth: { type: 'http', scheme: 'bearer' } },
      schemas: {
        User: { type: 'object', required: ['id', 'displayName'], properties: { id: { type: 'string' }, displayName: { type: 'string' } } },
        Space: {
          type: 'object',
          required: ['id', 'title', 'status', 'revision', 'createdAt', 'owner'],
          properties: {
            id: { type: 'string' },
            title: { type: 'string' },
            status: { type: 'string', enum: ['draft', 'live', 'archived'] },
            revision: { type: 'integer', minimum: 0, maximum: 1000 },
            createdAt: { type: 'string', format: 'date-time' },
            description: { type: 'string' },
            owner: ref('User'),
            cover: { oneOf: [ref('ImageCover'), ref('ColorCover')] },
          },
        },
        ImageCover: { type: 'object', required: ['url'], properties: { url: { type: 'string' } } },
        ColorCover: { type: 'object', required: ['color'], properties: { color: { type: 'string' } } },
        SpaceList: { type: 'object', required: ['items'], properties: { items: { type: 'array', items: ref('Space') }, next: { type: 'string' } } },
        CreateSpaceRequest: {
          type: 'object',
          required: ['title'],
          properties: { title: { type: 'string', maxLength: 255 }, editMode: { type: 'string', enum: ['live', 'locked'] }, emoji: { type: 'string' } },
        },
        UpdateSpaceRequest: {
          type: 'object',
          properties: {
            title: { type: 'string' },
            editMode: { type: 'string', enum: ['live', 'locked'] },
            labels: { type: 'array', items: { type: 'string', maxLength: 40 }, maxItems: 10 },
            priority: { type: 'integer', minimum: 0, maximum: 10 },
          },
        },
        CreateSiteRequest: {
          type: 'object',
          required: ['title', 'spaces'],
          properties: { title: { type: 'string' }, spaces: { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'string', enum: ['new'] }] } },
        },
        Site: { type: 'object', required: ['id', 'title'], properties: { id: { type: 'string' }, title: { type: 'string' } } },
        Content: { type: 'object', required: ['markdown'], properties: { markdown: { type: 'string' } } },
        Error: { type: 'object', required: ['error'], properties: { error: { type: 'object', required: ['code'], properties: { code: { type: 'string' }, message: { type: 'string' } } } } },
        PlanBase: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
        Plan: { allOf: [ref('PlanBase'), { type: 'object', properties: { seats: { type: 'integer' } } }] },
        Organization: {
          type: 'object',
          required: ['id', 'title', 'type', 'owner'],
          properties: { id: { type: 'string' }, title: { type: 'string' }, type: { type: 'string', enum: ['company', 'community'] }, owner: ref('User'), plan: ref('Plan') },
        },
        WebhookRequest: { type: 'object', required: ['kind', 'url'], properties: { kind: { type: 'string', const: 'webhook' }, url: { type: 'string' } } },
        SlackRequest: { type: 'object', required: ['kind', 'channel'], properties: { kind: { type: 'string', const: 'slack' }, channel: { type: 'string' } } },
        IntegrationRequest: { type: 'object', required: ['kind'], oneOf: [ref('WebhookRequest'), ref('SlackRequest')], discriminator: { propertyName: 'kind' } },
        Webhook: { type: 'object', required: ['id', 'kind', 'url'], properties: { id: { type: 'string' }, kind: { type: 'string', const: 'webhook' }, url: { type: 'string' } } },
        Slack: { type: 'object', required: ['id', 'kind', 'channel'], properties: { id: { type: 'string' }, kind: { type: 'string', const: 'slack' }, channel: { type: 'string' } } },
        Integration: { type: 'object', required: ['kind'], oneOf: [ref('Webhook'), ref('Slack')], discriminator: { propertyName: 'kind' } },
      },
    },
  };
}

// ---- consumers: what their tests sent and received ---------------------------------------------------------------

/** One exchange of a consumer's tests, as sent and received, and the fields its code read (the typed client's recording). */
export interface CorpusExchange {
  operationId: string;
  path: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  status: number;
  mediaType?: string;
  answer?: unknown;
  headers?: Record<string, string>;
  read?: string[];
}

const user = { id: 'u1', displayName: 'Ann' };
const space = { id: 's1', title: 'Handbook', status: 'live', revision: 3, createdAt: '2024-05-01T10:00:00Z', description: 'How we work', owner: user };
const get = (read?: string[]): CorpusExchange => ({ operationId: 'getSpace', path: { spaceId: 's1' }, status: 200, mediaType: 'application/json', answer: space, ...(read ? { read } : {}) });
const list = (query: Record<string, string>, read?: string[]): CorpusExchange => ({
  operationId: 'listSpaces',
  path: {},
  query,
  status: 200,
  mediaType: 'application/json',
  answer: { items: [space], next: 'c2' },
  ...(read ? { read } : {}),
});
const create = (body: Json): CorpusExchange => ({ operationId: 'createSpace', path: {}, body, status: 201, mediaType: 'application/json', answer: space, headers: { Location: '/spaces/s1' } });
const update = (body: Json): CorpusExchange => ({ operationId: 'updateSpace', path: { spaceId: 's1' }, body, status: 200, mediaType: 'application/json', answer: space, read: ['/id'] });
const organization = (read: string[]): CorpusExchange => ({
  operationId: 'getOrganization',
  path: { organizationId: 'acme' },
  status: 200,
  mediaType: 'application/json',
  answer: { id: 'acme', title: 'Acme', type: 'company', owner: user, plan: { name: 'team', seats: 10 } },
  read,
});
const webhook: CorpusExchange = {
  operationId: 'createIntegration',
  path: {},
  body: { kind: 'webhook', url: 'https://hooks.example.com/a' },
  status: 201,
  mediaType: 'application/json',
  answer: { id: 'i1', kind: 'webhook', url: 'https://hooks.example.com/a' },
};

/** The consumers of the corpus: each the exchanges its tests had. */
export const CONSUMERS = {
  /** Reads one field of a space, through the typed client's recording mode. */
  'title-reader': [get(['/title'])],
  /** Gets spaces through the proxy, with fetch: every field received. */
  'space-viewer': [get()],
  /** Lists public spaces ten at a time, every field received. */
  'space-lister': [list({ limit: '10', visibility: 'public' })],
  /** Lists spaces (the default page size), its code reading the titles and the next page. */
  'title-lister': [list({}, ['/items', '/items/*', '/items/*/title', '/next'])],
  /** Creates live spaces. */
  'space-creator': [create({ title: 'Handbook', editMode: 'live' })],
  /** Locks spaces: `billing-svc` of the issue, which only ever sent `locked`. */
  'space-locker': [update({ editMode: 'locked' })],
  /** Deletes spaces. */
  'space-cleaner': [{ operationId: 'deleteSpace', path: { spaceId: 's1' }, status: 204 } as CorpusExchange],
  /** Looks a space up and handles its absence (a 404). */
  'space-prober': [{ operationId: 'getSpace', path: { spaceId: 'gone' }, status: 404, mediaType: 'application/json', answer: { error: { code: 'not_found', message: 'No such space.' } }, read: ['/error', '/error/code'] } as CorpusExchange],
  /** Reads a space's content as Markdown. */
  'markdown-reader': [{ operationId: 'getSpaceContent', path: { spaceId: 's1' }, status: 200, mediaType: 'text/markdown', answer: undefined } as CorpusExchange],
  /** Reads a space's content as JSON. */
  'content-reader': [{ operationId: 'getSpaceContent', path: { spaceId: 's1' }, status: 200, mediaType: 'application/json', answer: { markdown: '# Handbook' } } as CorpusExchange],
  /** Creates webhooks, and reads the integration answered (every field: it keeps it whole). */
  'hook-maker': [webhook],
  /** Reads an organization's type and its owner's name. */
  'org-reader': [organization(['/type', '/owner', '/owner/displayName'])],
  /** Reads an organization's plan. */
  'plan-reader': [organization(['/plan', '/plan/name'])],
  /** Labels spaces and sets their priority: three labels, priority 7. */
  'space-tagger': [update({ labels: ['guide', 'team', 'draft'], priority: 7 })],
  /** Publishes sites over a new space (`spaces: "new"`), never a list of existing ones. */
  'site-maker': [{ operationId: 'createSite', path: {}, body: { title: 'Docs', spaces: 'new' }, status: 201, mediaType: 'application/json', answer: { id: 'st1', title: 'Docs' }, read: ['/id'] }],
  /** Shows a space's cover image: its code reads the cover's `url`. */
  'cover-reader': [{ ...get(['/cover', '/cover/url']), answer: { ...space, cover: { url: 'https://img.example.com/a.png' } } }],
} satisfies Record<string, CorpusExchange[]>;

export type ConsumerName = keyof typeof CONSUMERS;

/** The kinds of wrong answer the tools gave before they judged alike, each a case at least. */
export const WRONG_ANSWERS = {
  1: 'can-i-deploy said "deploy" to a change that fails the consumer',
  2: 'can-i-deploy said "deploy" when a response field the code reads became optional',
  3: 'the gate named a consumer broken because it sends a field whose enumeration gained a value',
  4: 'the gate ignored the values a record holds (a request enumeration value removed that it never sent)',
  5: 'the gate named a consumer broken by a value removed from a response enumeration',
} as const;

export interface CorpusCase {
  id: string;
  /** The change, in words. */
  change: string;
  consumer: ConsumerName;
  expected: ConsumerVerdict;
  why: string;
  /** The wrong answer of the tools before that it shows (WRONG_ANSWERS). */
  wrongBefore?: keyof typeof WRONG_ANSWERS;
  /** Changes a copy of the base contract into the revision. */
  revise: (document: Doc) => void;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = any;
const schema = (document: Doc, name: string) => document.components.schemas[name];
const op = (document: Doc, path: string, method: string) => document.paths[path][method];
const param = (document: Doc, path: string, method: string, name: string) => op(document, path, method).parameters.find((each: Json) => each.name === name);
const unrequire = (object: Doc, name: string) => void (object.required = object.required.filter((each: string) => each !== name));

/** The cases: at least one for every rule family that can touch a consumer, both ways where the record decides. */
export const CASES: CorpusCase[] = [
  // Parameters.
  { id: 'query-required-added', change: 'required query parameter `scope` added to listSpaces', consumer: 'space-lister', expected: 'breaks', why: 'it does not send `scope`, which every request must now hold', wrongBefore: 1, revise: (d) => op(d, '/spaces', 'get').parameters.push({ name: 'scope', in: 'query', required: true, schema: { type: 'string' } }) },
  { id: 'query-became-required-sent', change: 'query parameter `limit` of listSpaces made required', consumer: 'space-lister', expected: 'untouched', why: 'it always sends `limit`', revise: (d) => void (param(d, '/spaces', 'get', 'limit').required = true) },
  { id: 'query-became-required-unsent', change: 'query parameter `limit` of listSpaces made required', consumer: 'title-lister', expected: 'breaks', why: 'it leaves `limit` out', revise: (d) => void (param(d, '/spaces', 'get', 'limit').required = true) },
  { id: 'query-removed-sent', change: 'query parameter `visibility` of listSpaces removed', consumer: 'space-lister', expected: 'breaks', why: 'it sends `visibility`, no longer accepted', revise: (d) => void (op(d, '/spaces', 'get').parameters = op(d, '/spaces', 'get').parameters.filter((each: Json) => each.name !== 'visibility')) },
  { id: 'query-removed-unsent', change: 'query parameter `cursor` of listSpaces removed', consumer: 'space-lister', expected: 'untouched', why: 'it never sends `cursor`', revise: (d) => void (op(d, '/spaces', 'get').parameters = op(d, '/spaces', 'get').parameters.filter((each: Json) => each.name !== 'cursor')) },
  { id: 'query-enum-value-removed-sent', change: 'value `public` of query parameter `visibility` removed', consumer: 'space-lister', expected: 'breaks', why: 'it sent `public`', revise: (d) => void (param(d, '/spaces', 'get', 'visibility').schema.enum = ['private', 'internal']) },
  { id: 'query-enum-value-removed-other', change: 'value `internal` of query parameter `visibility` removed', consumer: 'space-lister', expected: 'untouched', why: 'it only ever sent `public`', revise: (d) => void (param(d, '/spaces', 'get', 'visibility').schema.enum = ['public', 'private']) },
  { id: 'query-minimum-raised', change: 'minimum of query parameter `limit` raised from 1 to 20', consumer: 'space-lister', expected: 'breaks', why: 'it sends `limit`, and a record keeps no values of a parameter that is not an enumeration: what it sends may be refused', revise: (d) => void (param(d, '/spaces', 'get', 'limit').schema.minimum = 20) },
  { id: 'query-maximum-raised', change: 'maximum of query parameter `limit` raised from 100 to 500', consumer: 'space-lister', expected: 'untouched', why: 'a wider range breaks implementations only', revise: (d) => void (param(d, '/spaces', 'get', 'limit').schema.maximum = 500) },
  { id: 'query-default-changed-sent', change: 'default of query parameter `limit` changed from 20 to 50', consumer: 'space-lister', expected: 'untouched', why: 'it always sends `limit`', revise: (d) => void (param(d, '/spaces', 'get', 'limit').schema.default = 50) },
  { id: 'query-default-changed-left-out', change: 'default of query parameter `limit` changed from 20 to 50', consumer: 'title-lister', expected: 'breaks', why: 'it leaves `limit` out: its pages are now another size', revise: (d) => void (param(d, '/spaces', 'get', 'limit').schema.default = 50) },
  { id: 'path-parameter-renamed', change: 'path parameter `spaceId` of /spaces/{spaceId} renamed `id`', consumer: 'title-reader', expected: 'warns', why: 'the URL is the same; typed source that names `spaceId` no longer compiles', revise: (d) => renamePathParameter(d) },
  // Request fields and values.
  { id: 'request-enum-value-added', change: 'value `draft` added to `CreateSpaceRequest.editMode`', consumer: 'space-creator', expected: 'untouched', why: 'a new value accepted breaks implementations only', wrongBefore: 3, revise: (d) => schema(d, 'CreateSpaceRequest').properties.editMode.enum.push('draft') },
  { id: 'request-enum-value-removed-other', change: 'value `locked` removed from `CreateSpaceRequest.editMode`', consumer: 'space-creator', expected: 'untouched', why: 'it only ever sent `live`', wrongBefore: 4, revise: (d) => void (schema(d, 'CreateSpaceRequest').properties.editMode.enum = ['live']) },
  { id: 'request-enum-value-removed-sent', change: 'value `locked` removed from `UpdateSpaceRequest.editMode`', consumer: 'space-locker', expected: 'breaks', why: 'it sent `locked`', revise: (d) => void (schema(d, 'UpdateSpaceRequest').properties.editMode.enum = ['live']) },
  { id: 'request-field-made-required-unsent', change: '`UpdateSpaceRequest.title` made required', consumer: 'space-locker', expected: 'breaks', why: 'it does not send `title`', revise: (d) => void (schema(d, 'UpdateSpaceRequest').required = ['title']) },
  { id: 'request-field-made-required-sent', change: '`CreateSpaceRequest.editMode` made required', consumer: 'space-creator', expected: 'untouched', why: 'it sends `editMode`', revise: (d) => schema(d, 'CreateSpaceRequest').required.push('editMode') },
  { id: 'request-field-made-optional', change: '`CreateSpaceRequest.title` made optional', consumer: 'space-creator', expected: 'untouched', why: 'a field made optional breaks implementations only', revise: (d) => unrequire(schema(d, 'CreateSpaceRequest'), 'title') },
  { id: 'request-field-added-required', change: 'required field `slug` added to `CreateSpaceRequest`', consumer: 'space-creator', expected: 'breaks', why: 'it does not send `slug`', revise: (d) => (schema(d, 'CreateSpaceRequest').properties.slug = { type: 'string' }, schema(d, 'CreateSpaceRequest').required.push('slug')) },
  { id: 'request-field-removed-unsent', change: '`CreateSpaceRequest.emoji` removed', consumer: 'space-creator', expected: 'untouched', why: 'it never sends `emoji`', revise: (d) => delete schema(d, 'CreateSpaceRequest').properties.emoji },
  { id: 'request-type-changed', change: '`CreateSpaceRequest.title` from string to integer', consumer: 'space-creator', expected: 'breaks', why: 'it sends `title` as a string', revise: (d) => void (schema(d, 'CreateSpaceRequest').properties.title = { type: 'integer' }) },
  { id: 'request-max-length-lowered', change: 'maximum length of `CreateSpaceRequest.title` lowered from 255 to 5', consumer: 'space-creator', expected: 'breaks', why: 'it sends `title`, whose values a record does not keep: a title it sends may be too long (its test sent `Handbook`, 8 characters)', revise: (d) => void (schema(d, 'CreateSpaceRequest').properties.title.maxLength = 5) },
  // What a record's facts tell: the least and most of what was sent, against a tighter bound.
  { id: 'request-max-length-lowered-within', change: 'maximum length of `CreateSpaceRequest.title` lowered from 255 to 100', consumer: 'space-creator', expected: 'untouched', why: 'the longest title it sent has 8 characters, within the new maximum', revise: (d) => void (schema(d, 'CreateSpaceRequest').properties.title.maxLength = 100) },
  { id: 'request-min-length-raised-above', change: 'minimum length of `CreateSpaceRequest.title` raised to 20', consumer: 'space-creator', expected: 'breaks', why: 'the shortest title it sent has 8 characters', revise: (d) => void (schema(d, 'CreateSpaceRequest').properties.title.minLength = 20) },
  { id: 'query-maximum-lowered-within', change: 'maximum of query parameter `limit` lowered from 100 to 50', consumer: 'space-lister', expected: 'untouched', why: 'the most it sent is 10', revise: (d) => void (param(d, '/spaces', 'get', 'limit').schema.maximum = 50) },
  { id: 'query-maximum-lowered-below', change: 'maximum of query parameter `limit` lowered from 100 to 5', consumer: 'space-lister', expected: 'breaks', why: 'it sent 10', revise: (d) => void (param(d, '/spaces', 'get', 'limit').schema.maximum = 5) },
  { id: 'request-type-changed-unsent', change: '`CreateSpaceRequest.emoji` from string to integer', consumer: 'space-creator', expected: 'untouched', why: 'it never sends `emoji`', revise: (d) => void (schema(d, 'CreateSpaceRequest').properties.emoji = { type: 'integer' }) },
  { id: 'request-max-length-lowered-to-sent', change: 'maximum length of `CreateSpaceRequest.title` lowered from 255 to 8', consumer: 'space-creator', expected: 'untouched', why: 'the longest title it sent has 8 characters, still accepted', revise: (d) => void (schema(d, 'CreateSpaceRequest').properties.title.maxLength = 8) },
  { id: 'request-max-length-lowered-below-sent', change: 'maximum length of `CreateSpaceRequest.title` lowered from 255 to 7', consumer: 'space-creator', expected: 'breaks', why: 'it sent a title of 8 characters', revise: (d) => void (schema(d, 'CreateSpaceRequest').properties.title.maxLength = 7) },
  { id: 'request-maximum-lowered-below-most', change: 'maximum of `UpdateSpaceRequest.priority` lowered from 10 to 5', consumer: 'space-tagger', expected: 'breaks', why: 'the most it sent is 7', revise: (d) => void (schema(d, 'UpdateSpaceRequest').properties.priority.maximum = 5) },
  { id: 'request-maximum-lowered-above-most', change: 'maximum of `UpdateSpaceRequest.priority` lowered from 10 to 8', consumer: 'space-tagger', expected: 'untouched', why: 'the most it sent is 7, within the new maximum', revise: (d) => void (schema(d, 'UpdateSpaceRequest').properties.priority.maximum = 8) },
  { id: 'request-min-items-raised-above', change: 'minItems of `UpdateSpaceRequest.labels` raised to 5', consumer: 'space-tagger', expected: 'breaks', why: 'it sent three labels', revise: (d) => void (schema(d, 'UpdateSpaceRequest').properties.labels.minItems = 5) },
  { id: 'request-min-items-raised-within', change: 'minItems of `UpdateSpaceRequest.labels` raised to 2', consumer: 'space-tagger', expected: 'untouched', why: 'it sent three labels, still enough', revise: (d) => void (schema(d, 'UpdateSpaceRequest').properties.labels.minItems = 2) },
  { id: 'request-item-max-length-lowered-below', change: 'maximum length of each of `UpdateSpaceRequest.labels` lowered from 40 to 4', consumer: 'space-tagger', expected: 'breaks', why: 'it sent labels of up to 5 characters', revise: (d) => void (schema(d, 'UpdateSpaceRequest').properties.labels.items.maxLength = 4) },
  { id: 'path-parameter-renamed-update', change: 'path parameter `spaceId` of /spaces/{spaceId} renamed `id`', consumer: 'space-tagger', expected: 'warns', why: 'the URL of its PATCH is the same; typed source that names `spaceId` no longer compiles', revise: (d) => renamePathParameter(d) },
  { id: 'path-parameter-renamed-organization', change: 'path parameter `organizationId` of /orgs/{organizationId} renamed `org`', consumer: 'org-reader', expected: 'warns', why: 'the URL is the same; typed source that names `organizationId` no longer compiles', revise: (d) => renameOrganizationParameter(d) },
  { id: 'path-parameter-renamed-delete', change: 'path parameter `spaceId` of /spaces/{spaceId} renamed `id`', consumer: 'space-cleaner', expected: 'warns', why: 'the URL of its DELETE is the same; typed source that names `spaceId` no longer compiles', revise: (d) => renamePathParameter(d) },
  // Response fields, types, formats, bounds.
  { id: 'response-type-changed', change: '`Space.revision` from integer to string', consumer: 'space-viewer', expected: 'breaks', why: 'it received `revision`, and its code may read it as a number', wrongBefore: 1, revise: (d) => void (schema(d, 'Space').properties.revision = { type: 'string' }) },
  { id: 'response-read-made-optional', change: '`Space.title` no longer required', consumer: 'title-reader', expected: 'breaks', why: 'its code reads `title`, which may now be absent', wrongBefore: 2, revise: (d) => unrequire(schema(d, 'Space'), 'title') },
  { id: 'response-unread-made-optional', change: '`Space.status` no longer required', consumer: 'title-reader', expected: 'untouched', why: 'it received `status` but its code reads only `title`', revise: (d) => unrequire(schema(d, 'Space'), 'status') },
  { id: 'response-made-required', change: '`Space.description` made required', consumer: 'space-viewer', expected: 'untouched', why: 'an answer that must hold more breaks implementations only', revise: (d) => schema(d, 'Space').required.push('description') },
  { id: 'response-field-removed', change: '`Space.title` removed', consumer: 'space-viewer', expected: 'breaks', why: 'it received `title`', revise: (d) => (delete schema(d, 'Space').properties.title, unrequire(schema(d, 'Space'), 'title')) },
  { id: 'response-unread-removed', change: '`Space.description` removed', consumer: 'title-reader', expected: 'untouched', why: 'its code reads only `title`', revise: (d) => delete schema(d, 'Space').properties.description },
  { id: 'response-became-nullable', change: '`Space.title` may be null', consumer: 'title-reader', expected: 'breaks', why: 'its code reads `title`, which may now be null', revise: (d) => void (schema(d, 'Space').properties.title = { type: ['string', 'null'] }) },
  { id: 'response-format-changed', change: 'format of `Space.createdAt` from date-time to date', consumer: 'space-viewer', expected: 'breaks', why: 'it received `createdAt`, now in another format', revise: (d) => void (schema(d, 'Space').properties.createdAt.format = 'date') },
  { id: 'response-maximum-removed', change: 'maximum of `Space.revision` removed', consumer: 'space-viewer', expected: 'breaks', why: 'it received `revision`, which may now exceed what it handled', revise: (d) => delete schema(d, 'Space').properties.revision.maximum },
  { id: 'response-enum-value-removed', change: 'value `archived` removed from `Space.status`', consumer: 'space-viewer', expected: 'warns', why: 'it can only receive fewer values; typed source comparing against `archived` no longer compiles', wrongBefore: 5, revise: (d) => void (schema(d, 'Space').properties.status.enum = ['draft', 'live']) },
  { id: 'response-enum-value-added', change: 'value `nonprofit` added to `Organization.type`', consumer: 'org-reader', expected: 'warns', why: 'its code reads `type`, and may switch over its values', revise: (d) => schema(d, 'Organization').properties.type.enum.push('nonprofit') },
  // Components used in several places, composed schemas.
  { id: 'shared-component-read', change: '`User.displayName` removed (in `Space.owner` and `Organization.owner`)', consumer: 'org-reader', expected: 'breaks', why: 'its code reads `/owner/displayName` of an organization', revise: (d) => (delete schema(d, 'User').properties.displayName, unrequire(schema(d, 'User'), 'displayName')) },
  { id: 'shared-component-unread', change: '`User.displayName` removed (in `Space.owner` and `Organization.owner`)', consumer: 'title-lister', expected: 'untouched', why: 'it received spaces with their owner, but its code reads only the titles', revise: (d) => (delete schema(d, 'User').properties.displayName, unrequire(schema(d, 'User'), 'displayName')) },
  { id: 'shared-component-received', change: '`User.displayName` removed (in `Space.owner` and `Organization.owner`)', consumer: 'space-lister', expected: 'breaks', why: 'it received `/items/*/owner/displayName`', revise: (d) => (delete schema(d, 'User').properties.displayName, unrequire(schema(d, 'User'), 'displayName')) },
  { id: 'allof-member-read', change: '`PlanBase.name` (an allOf member of `Plan`) from string to integer', consumer: 'plan-reader', expected: 'breaks', why: 'its code reads `/plan/name`', revise: (d) => void (schema(d, 'PlanBase').properties.name = { type: 'integer' }) },
  { id: 'allof-member-unread', change: '`PlanBase.name` (an allOf member of `Plan`) from string to integer', consumer: 'org-reader', expected: 'untouched', why: 'its code never reads the plan', revise: (d) => void (schema(d, 'PlanBase').properties.name = { type: 'integer' }) },
  { id: 'request-tag-removed-other', change: 'the `slack` alternative of `IntegrationRequest` (and its tag) no longer accepted', consumer: 'hook-maker', expected: 'untouched', why: 'it only ever sent `webhook`', revise: (d) => void (schema(d, 'IntegrationRequest').oneOf = [ref('WebhookRequest')]) },
  { id: 'request-tag-removed-sent', change: 'the `webhook` alternative of `IntegrationRequest` (and its tag) no longer accepted', consumer: 'hook-maker', expected: 'breaks', why: 'it sent `webhook`', revise: (d) => void (schema(d, 'IntegrationRequest').oneOf = [ref('SlackRequest')]) },
  { id: 'response-tag-added', change: 'alternative `Teams` (tag `teams`) added to the answer `Integration`', consumer: 'hook-maker', expected: 'breaks', why: 'it reads the integration answered, whose tags were exhaustive: it may now receive one it cannot dispatch', revise: (d) => addTeams(d) },
  { id: 'response-alternative-added-read', change: '`Organization.owner` may now also be a `Team`, which has no `displayName`', consumer: 'org-reader', expected: 'breaks', why: 'its code reads `/owner/displayName`, which a team lacks', revise: (d) => ownerMayBeTeam(d) },
  { id: 'response-alternative-gained-read', change: 'the oneOf of `Space.cover` gains `EmojiCover`, which has no `url`', consumer: 'cover-reader', expected: 'breaks', why: 'its code reads `/cover/url`, which an emoji cover lacks', revise: (d) => coverMayBeEmoji(d) },
  { id: 'response-alternative-gained-unread', change: 'the oneOf of `Space.cover` gains `EmojiCover`, which has no `url`', consumer: 'title-reader', expected: 'untouched', why: 'its code reads only `title`', revise: (d) => coverMayBeEmoji(d) },
  { id: 'response-alternative-added-unread', change: '`Organization.owner` may now also be a `Team`, which has no `displayName`', consumer: 'plan-reader', expected: 'untouched', why: 'its code reads only the plan', revise: (d) => ownerMayBeTeam(d) },
  { id: 'response-nested-made-optional', change: '`Space.owner` no longer required', consumer: 'space-viewer', expected: 'breaks', why: 'it received `/owner` and what is in it, which may now be absent', revise: (d) => unrequire(schema(d, 'Space'), 'owner') },
  { id: 'response-answer-alternative-added', change: 'getSpace may now answer a `SpaceStub`, which has no `title`', consumer: 'title-reader', expected: 'breaks', why: 'its code reads `/title`, which a stub lacks', revise: (d) => answerMayBeStub(d) },
  { id: 'request-variant-removed-other', change: 'the id-list alternative of `CreateSiteRequest.spaces` (an anyOf of an id list or `"new"`) removed', consumer: 'site-maker', expected: 'untouched', why: 'it only ever sent `"new"`, still accepted', revise: (d) => void (schema(d, 'CreateSiteRequest').properties.spaces.anyOf = [{ type: 'string', enum: ['new'] }]) },
  { id: 'request-variant-removed-sent', change: 'the `"new"` alternative of `CreateSiteRequest.spaces` removed', consumer: 'site-maker', expected: 'breaks', why: 'it sent `"new"`, no longer accepted', revise: (d) => void (schema(d, 'CreateSiteRequest').properties.spaces.anyOf = [{ type: 'array', items: { type: 'string' } }]) },
  // Statuses and media types.
  { id: 'success-status-changed', change: 'createSpace answers 200 instead of 201', consumer: 'space-creator', expected: 'breaks', why: 'it received 201', revise: (d) => (op(d, '/spaces', 'post').responses = { '200': op(d, '/spaces', 'post').responses['201'] }) },
  { id: 'status-removed-received', change: 'getSpace no longer declares 404', consumer: 'space-prober', expected: 'warns', why: 'it received 404: it can only receive less; typed source comparing against 404 no longer compiles', revise: (d) => delete op(d, '/spaces/{spaceId}', 'get').responses['404'] },
  { id: 'status-added', change: 'updateSpace declares a new 409', consumer: 'space-locker', expected: 'warns', why: 'it calls updateSpace, and may switch over the statuses', revise: (d) => (op(d, '/spaces/{spaceId}', 'patch').responses['409'] = { description: 'Conflict.', content: json(ref('Error')) }) },
  { id: 'media-type-removed-received', change: 'getSpaceContent no longer answers `text/markdown`', consumer: 'markdown-reader', expected: 'breaks', why: 'it received `text/markdown`', revise: (d) => delete op(d, '/spaces/{spaceId}/content', 'get').responses['200'].content['text/markdown'] },
  { id: 'media-type-removed-other', change: 'getSpaceContent no longer answers `text/markdown`', consumer: 'content-reader', expected: 'untouched', why: 'it received JSON only', revise: (d) => delete op(d, '/spaces/{spaceId}/content', 'get').responses['200'].content['text/markdown'] },
  { id: 'request-body-removed', change: 'updateSpace no longer takes a body', consumer: 'space-locker', expected: 'breaks', why: 'it sends one', revise: (d) => delete op(d, '/spaces/{spaceId}', 'patch').requestBody },
  { id: 'dialect-changed', change: 'the schemas read as JSON Schema 2019-09 (`jsonSchemaDialect`)', consumer: 'title-reader', expected: 'warns', why: 'the requests and answers are the same; what validates or generates code from the schemas reads them otherwise', revise: (d) => void (d.jsonSchemaDialect = 'https://json-schema.org/draft/2019-09/schema') },
  { id: 'response-header-removed', change: 'the `Location` header of createSpace’s 201 removed', consumer: 'space-creator', expected: 'breaks', why: 'it received the 201 that carried it, and a record does not keep which headers the code reads', revise: (d) => delete op(d, '/spaces', 'post').responses['201'].headers },
  // Security, operations.
  { id: 'security-replaced', change: 'getSpace authenticated by an API key instead of a bearer token', consumer: 'space-viewer', expected: 'breaks', why: 'it authenticated with a bearer token, now refused', wrongBefore: 1, revise: (d) => replaceSecurity(d) },
  { id: 'security-alternative-added', change: 'getSpace also accepts an API key', consumer: 'space-viewer', expected: 'untouched', why: 'its bearer token is still accepted', revise: (d) => ((d.components.securitySchemes.ApiKey = { type: 'apiKey', in: 'header', name: 'X-Api-Key' }), (op(d, '/spaces/{spaceId}', 'get').security = [{ BearerAuth: [] }, { ApiKey: [] }])) },
  { id: 'operation-removed-called', change: 'deleteSpace removed', consumer: 'space-cleaner', expected: 'breaks', why: 'it calls deleteSpace', revise: (d) => delete d.paths['/spaces/{spaceId}'].delete },
  { id: 'operation-removed-uncalled', change: 'deleteSpace removed', consumer: 'title-reader', expected: 'untouched', why: 'it never calls deleteSpace', revise: (d) => delete d.paths['/spaces/{spaceId}'].delete },
  { id: 'operation-id-changed', change: 'getSpace’s operation id now `readSpace`', consumer: 'title-reader', expected: 'warns', why: 'the request and answer are the same; typed source naming `getSpace` no longer compiles', revise: (d) => void (op(d, '/spaces/{spaceId}', 'get').operationId = 'readSpace') },
  { id: 'operation-deprecated', change: 'deleteSpace deprecated', consumer: 'space-cleaner', expected: 'warns', why: 'it still works, and may go in a later major version', revise: (d) => void (d.paths['/spaces/{spaceId}'].delete.deprecated = true) },
];

function renamePathParameter(d: Doc): void {
  const item = d.paths['/spaces/{spaceId}'];
  delete d.paths['/spaces/{spaceId}'];
  const renamed = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };
  for (const method of ['get', 'patch', 'delete']) item[method].parameters = [renamed];
  d.paths['/spaces/{id}'] = item;
}

function renameOrganizationParameter(d: Doc): void {
  const item = d.paths['/orgs/{organizationId}'];
  delete d.paths['/orgs/{organizationId}'];
  item.get.parameters = [{ name: 'org', in: 'path', required: true, schema: { type: 'string' } }];
  d.paths['/orgs/{org}'] = item;
}

function coverMayBeEmoji(d: Doc): void {
  d.components.schemas.EmojiCover = { type: 'object', required: ['emoji'], properties: { emoji: { type: 'string' } } };
  schema(d, 'Space').properties.cover.oneOf.push(ref('EmojiCover'));
}

function answerMayBeStub(d: Doc): void {
  d.components.schemas.SpaceStub = { type: 'object', required: ['id', 'stub'], properties: { id: { type: 'string' }, stub: { type: 'boolean', const: true } } };
  op(d, '/spaces/{spaceId}', 'get').responses['200'].content['application/json'].schema = { oneOf: [ref('Space'), ref('SpaceStub')] };
}

function addTeams(d: Doc): void {
  d.components.schemas.Teams = { type: 'object', required: ['id', 'kind', 'team'], properties: { id: { type: 'string' }, kind: { type: 'string', const: 'teams' }, team: { type: 'string' } } };
  schema(d, 'Integration').oneOf.push(ref('Teams'));
}

function ownerMayBeTeam(d: Doc): void {
  d.components.schemas.Team = { type: 'object', required: ['id', 'members'], properties: { id: { type: 'string' }, members: { type: 'integer' } } };
  schema(d, 'Organization').properties.owner = { oneOf: [ref('User'), ref('Team')] };
}

function replaceSecurity(d: Doc): void {
  d.components.securitySchemes.ApiKey = { type: 'apiKey', in: 'header', name: 'X-Api-Key' };
  op(d, '/spaces/{spaceId}', 'get').security = [{ ApiKey: [] }];
}

/** The revision of a case: the base contract, changed. */
export function revisionOf(corpusCase: CorpusCase): Json {
  const document = baseContract();
  corpusCase.revise(document);
  return document;
}

/** The path of an operation in the base contract, and its method. */
function placeOf(base: Json, operationId: string): { template: string; method: string } {
  for (const [template, item] of Object.entries(base.paths as Record<string, Record<string, { operationId?: string }>>)) {
    for (const [method, operation] of Object.entries(item)) if (operation.operationId === operationId) return { template, method };
  }
  throw new Error(`no operation ${operationId}`);
}

/** A consumer's usage record, made against the base contract by the recorders' code, named `name`. */
export function recordOf(consumer: ConsumerName, name: string = consumer): UsageRecord {
  const base = baseContract() as OpenApiDocument;
  const contract = loadContract(base);
  const exchanges: CorpusExchange[] = CONSUMERS[consumer];
  const record = emptyUsage({ name, version: '1.0.0' }, contractIdentity(contract), exchanges.some((exchange) => exchange.read) ? 'client' : 'proxy');
  for (const exchange of exchanges) {
    const operation = contract.operations.get(exchange.operationId)!;
    const usage = usageOf(contract, {
      operation,
      parameters: [
        ...Object.entries(exchange.path).map(([key, value]) => ({ in: 'path' as const, name: key, value })),
        ...Object.entries(exchange.query ?? {}).map(([key, value]) => ({ in: 'query' as const, name: key, value: [value] })),
      ],
      ...(exchange.body !== undefined ? { request: { mediaType: 'application/json', body: exchange.body } } : {}),
      status: exchange.status,
      ...(exchange.mediaType ? { response: { mediaType: exchange.mediaType, body: exchange.answer } } : {}),
      // Every consumer sends the bearer token the contract requires, as its pact says.
      security: authenticatedBy(contract, operation, { headers: { authorization: 'Bearer token' } }),
      responseHeaders: Object.keys(exchange.headers ?? {}),
    });
    if (exchange.read) for (const answer of Object.values(usage.responses)) answer.read = [...exchange.read].sort();
    mergeOperationUsage((record.operations[exchange.operationId] ??= emptyOperationUsage()), usage);
  }
  return record;
}

/** `value` with only the fields at `read` (JSON pointers, `*` for every item): what the consumer's code depends on. */
function only(value: unknown, read: readonly string[], at = ''): unknown {
  if (Array.isArray(value)) return value.map((item) => only(item, read, `${at}/*`));
  if (value === null || typeof value !== 'object') return value;
  const kept: Json = {};
  for (const [key, item] of Object.entries(value as Json)) {
    const pointer = `${at}/${key}`;
    if (read.some((each) => each === pointer || each.startsWith(`${pointer}/`))) kept[key] = only(item, read, pointer);
  }
  return kept;
}

/** The Pact specifications the corpus writes its pacts in. */
export const PACT_SPECIFICATIONS = [2, 3, 4] as const;
export type PactSpecification = (typeof PACT_SPECIFICATIONS)[number];

/** Headers as a specification writes them: a value each before 4, a list of values in 4. */
const pactHeaders = (headers: Record<string, string>, specification: PactSpecification) => (specification >= 4 ? Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])) : headers);

/** A body as a specification writes it: the value itself before 4, `{content, contentType, encoded}` in 4. */
const pactBody = (body: unknown, mediaType: string, specification: PactSpecification) => (specification >= 4 ? { content: body, contentType: mediaType, encoded: false } : body);

/**
 * The pact of a consumer, in Pact specification 2 (the default), 3 or 4: an interaction per exchange its record
 * holds, the answers cut to the fields its code read where the record knows them, whole otherwise; requests with the
 * bearer token the contract requires. The query is a string in 2, a map of lists in 3 and 4; 4 types its interactions
 * (`Synchronous/HTTP`), lists its headers' values and wraps its bodies.
 */
export function pactOf(consumer: ConsumerName, specification: PactSpecification = 2): Json {
  const base = baseContract();
  const exchanges: CorpusExchange[] = CONSUMERS[consumer];
  return {
    consumer: { name: consumer },
    provider: { name: 'corpus' },
    interactions: exchanges.map((exchange, index) => {
      const { template, method } = placeOf(base, exchange.operationId);
      const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(exchange.path[name]!));
      const query = specification >= 3 ? Object.fromEntries(Object.entries(exchange.query ?? {}).map(([name, value]) => [name, [value]])) : new URLSearchParams(exchange.query ?? {}).toString();
      const answer = exchange.answer === undefined ? undefined : exchange.read ? only(exchange.answer, exchange.read) : exchange.answer;
      return {
        ...(specification >= 4 ? { type: 'Synchronous/HTTP' } : {}),
        description: `${exchange.operationId} ${index + 1}`,
        request: {
          method: method.toUpperCase(),
          path,
          ...(Object.keys(exchange.query ?? {}).length > 0 ? { query } : {}),
          headers: pactHeaders({ Authorization: 'Bearer token', ...(exchange.body !== undefined ? { 'Content-Type': 'application/json' } : {}) }, specification),
          ...(exchange.body !== undefined ? { body: pactBody(exchange.body, 'application/json', specification) } : {}),
        },
        response: {
          status: exchange.status,
          headers: pactHeaders({ ...(exchange.mediaType ? { 'Content-Type': exchange.mediaType } : {}), ...(exchange.headers ?? {}) }, specification),
          ...(answer !== undefined ? { body: pactBody(answer, exchange.mediaType!, specification) } : {}),
        },
      };
    }),
    metadata: { pactSpecification: { version: `${specification}.0.0` } },
  };
}
