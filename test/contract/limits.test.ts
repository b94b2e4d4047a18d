// The contract bounds everything a client sends, so that no request can make the server store, parse or answer an
// unbounded amount of data: a field added without a bound fails here, named.
import { describe, expect, test } from 'vitest';
import { findUnboundedInputs } from '../support/limits.ts';
import { readOpenApi, type OpenApiDocument } from '../support/openapi.ts';
import { openapiPath } from '../support/repo.ts';

describe('what a client sends', () => {
  test('is bounded: maxLength on strings, maxItems on arrays, maxProperties on maps, a range on numbers', () => {
    const offenders = findUnboundedInputs(readOpenApi(openapiPath));
    if (offenders.length > 0) {
      expect.fail(
        `These request fields and parameters have no bound; add one in spec/ (@maxLength, @maxItems, ` +
          `@JsonSchema.maxProperties, @minValue/@maxValue) and list it in spec/README.md:\n` +
          offenders.map((line) => `  - ${line}`).join('\n'),
      );
    }
  });
});

describe('the bounds check', () => {
  const document = (schemas: Record<string, unknown>, operation: Record<string, unknown>): OpenApiDocument =>
    ({ openapi: '3.1.0', paths: { '/x/{id}': { post: { operationId: 'makeX', ...operation } } }, components: { schemas } }) as never;

  test('names each unbounded field of a body, of a parameter and inside a map, once', () => {
    const found = findUnboundedInputs(
      document(
        {
          X: {
            type: 'object',
            properties: {
              title: { type: 'string' },
              tags: { type: 'array', items: { type: 'string', maxLength: 10 } },
              count: { type: 'integer', minimum: 0 },
              labels: { type: 'object', unevaluatedProperties: { type: 'string' } },
              self: { $ref: '#/components/schemas/X' },
              id: { type: 'string', readOnly: true },
              kind: { type: 'string', enum: ['a', 'b'] },
              note: { anyOf: [{ type: 'string' }, { type: 'null' }], maxLength: 5 },
            },
            unevaluatedProperties: { not: {} },
          },
        },
        {
          parameters: [
            { name: 'id', in: 'path', schema: { type: 'string' } },
            { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 10 } },
          ],
          requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/X' } } } },
        },
      ),
    );
    expect(found).toEqual([
      'X.count: needs maximum',
      'X.labels: needs maxProperties (unevaluatedProperties allows more entries)',
      'X.labels{}: needs maxLength',
      'X.tags: needs maxItems',
      'X.title: needs maxLength',
      'makeX path.id: needs maxLength',
    ]);
  });

  test('finds nothing in a bounded body', () => {
    const found = findUnboundedInputs(
      document(
        { Y: { type: 'object', properties: { a: { type: 'string', maxLength: 3 }, free: {} }, maxProperties: 2 } },
        { requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Y' } } } } },
      ),
    );
    expect(found).toEqual([]);
  });
});
