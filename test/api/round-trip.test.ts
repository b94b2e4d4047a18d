// The round-trip test, derived from the contract through the conformance runner's one generator: for every
// create, update and put operation, a request carrying every writable field that the response schema also has
// (values generated from the schema, the real ids of a scenario run) comes back as sent, in the answer and read
// back, except as conformance/exceptions.json says (each exception with its reason). A field added to a request and
// its response but dropped by the server fails it.
import { expect, test } from 'vitest';
import { loadContract } from '../../conformance/contract/contract.ts';
import { roundTripFields } from '../../conformance/runner/property/shapes.ts';
import { runConformance } from '../../conformance/runner/runner.ts';
import { RUNNER_TOKEN, runnerServer } from '../support/runner.ts';
import { timeout } from '../support/timeouts.ts';

const TOKEN = RUNNER_TOKEN;
const contract = loadContract();

const server = runnerServer();

test('every field written by a create, update or put comes back as written', { timeout: timeout(180_000) }, async () => {
  const report = await runConformance({
    baseUrl: server.url,
    token: TOKEN,
    property: { roundTripAll: true, seed: 5, examples: 4, checks: ['round-trip', 'no-5xx', 'status-declared', 'response-conforms', 'error-envelope'] },
  });
  expect(report.property!.results.filter((result) => !result.ok)).toEqual([]);
  // Coverage by count, from the contract: every operation that writes a field its answer has, round-tripped.
  const writers = [...contract.operations.values()].filter((operation) => operation.method !== 'get' && roundTripFields(contract, operation).length > 0);
  expect(writers.length).toBeGreaterThan(10);
  // Every one of them: a resource the run can no longer write to (deleted, merged) is made again by its create.
  const missing = writers.filter((operation) => !(operation.operationId in report.property!.roundTripped!)).map((operation) => operation.operationId);
  expect(missing).toEqual([]);
  expect(Object.keys(report.property!.roundTripped!).length).toBe(writers.length);
});
