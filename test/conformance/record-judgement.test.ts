// A usage record judged against a contract alone (conformance/judgement/record-judgement.ts), where the consumer corpus
// (test/contract/consumer-corpus.test.ts) does not reach: a version-1 record judged with what it holds, a use that
// never carried credentials, a default relied on by a consumer that also sends the parameter, a record matched by
// method and path where the operation id changed.
import { describe, expect, test } from 'vitest';
import { loadContract, type OpenApiDocument } from '../../conformance/contract/contract.ts';
import { judgeRecord } from '../../conformance/judgement/record-judgement.ts';
import type { UsageRecord } from '../../conformance/records/usage-format.ts';
import { baseContract, recordOf } from '../support/consumer-corpus.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = any;
const contractOf = (change: (document: Doc) => void) => {
  const document = baseContract() as Doc;
  change(document);
  return loadContract(document as OpenApiDocument);
};
const whats = (record: UsageRecord, change: (document: Doc) => void) => judgeRecord(record, contractOf(change)).breaks.map((hit) => `${hit.operationId}: ${hit.what}`);

/** `record` as version 1 of the format wrote it: no facts, method, path, security, defaults, promises or headers. */
function versionOne(record: UsageRecord): UsageRecord {
  const old = structuredClone(record);
  old.version = 1;
  for (const usage of Object.values(old.operations)) {
    for (const key of ['method', 'path', 'security', 'defaults'] as const) delete usage[key];
    for (const used of [...Object.values(usage.parameters), ...Object.values(usage.body)]) for (const key of ['types', 'lengths', 'numbers', 'sizes'] as const) delete used[key];
    for (const answer of Object.values(usage.responses)) for (const key of ['facts', 'promised', 'headers', 'requiredHeaders'] as const) delete answer[key];
  }
  return old;
}

describe('a record judged against a contract alone', () => {
  test('a version-1 record: judged by what it holds, and the judgement says what it could not judge', () => {
    const old = versionOne(recordOf('space-creator'));
    const shorter = (d: Doc) => void (d.components.schemas.CreateSpaceRequest.properties.title.maxLength = 5);
    // Its lengths are not kept: a tighter maximum length is not told; version 2 tells it.
    expect(whats(old, shorter)).toEqual([]);
    expect(whats(recordOf('space-creator'), shorter)).toEqual(['createSpace: request field /title refuses what it sends: it sent strings of up to 8 characters, and it accepts at most 5']);
    // What it holds is judged: a required field it does not send.
    expect(whats(old, (d) => d.components.schemas.CreateSpaceRequest.required.push('emoji'))).toEqual(['createSpace: the contract requires request field /emoji, and it does not send it']);
    expect(judgeRecord(old, contractOf(() => undefined)).notes).toEqual([expect.stringContaining("space-creator's record is of version 1 of the format, which keeps no types, lengths or ranges")]);
    expect(judgeRecord(recordOf('space-creator'), contractOf(() => undefined)).notes).toEqual([]);
  });

  test('operations by method and path template: a new operation id is the same operation, a new path is not', () => {
    expect(whats(recordOf('title-reader'), (d) => void (d.paths['/spaces/{spaceId}'].get.operationId = 'readSpace'))).toEqual([]);
    // A version-1 record names its operations by id alone.
    expect(whats(versionOne(recordOf('title-reader')), (d) => void (d.paths['/spaces/{spaceId}'].get.operationId = 'readSpace'))).toEqual(['getSpace: it is no operation of the contract']);
    expect(
      whats(recordOf('space-cleaner'), (d) => {
        d.paths['/space/{spaceId}'] = { delete: d.paths['/spaces/{spaceId}'].delete };
        delete d.paths['/spaces/{spaceId}'].delete;
      }),
    ).toEqual(['deleteSpace: DELETE /spaces/{spaceId} is no operation of the contract']);
  });

  test('security: a scheme it authenticated with still accepted passes, one replaced breaks; a use without credentials tells nothing', () => {
    const replaced = (d: Doc) => {
      d.components.securitySchemes.ApiKey = { type: 'apiKey', in: 'header', name: 'X-Api-Key' };
      d.security = [{ ApiKey: [] }];
    };
    expect(whats(recordOf('space-cleaner'), replaced)).toEqual(['deleteSpace: it authenticated with BearerAuth, and the operation requires ApiKey']);
    const anonymous = recordOf('space-cleaner');
    anonymous.operations.deleteSpace!.security = [];
    expect(whats(anonymous, replaced)).toEqual([]);
  });

  test('a default it relied on changed breaks it, unless it also sends the parameter', () => {
    const fifty = (d: Doc) => void (d.paths['/spaces'].get.parameters[0].schema.default = 50);
    expect(whats(recordOf('title-lister'), fifty)).toEqual(['listSpaces: it leaves parameter query.limit out, relying on its default 20, where the contract declares 50']);
    const both = recordOf('title-lister');
    both.operations.listSpaces!.parameters['query.limit'] = { types: ['integer'], numbers: [10, 10] };
    expect(whats(both, fifty)).toEqual([]);
  });
});
