// The bad-input test, derived from the contract through the conformance runner's one generator
// (conformance/runner/property/generate.ts): for every operation, on the real ids of a scenario run, each value just past a
// limit of a path or query parameter or body field, the spellings `Infinity`, `1e400`, `0x10`, `-0`, empty and
// over-long of integer query parameters, a wrong type, a value outside an enum, a missing required field and an
// unknown property answer 400 naming the field, never 5xx, and change nothing (read back before and after).
import { expect, test } from 'vitest';
import { loadContract } from '../../conformance/contract/contract.ts';
import { invalidVariants } from '../../conformance/runner/property/generate.ts';
import { runConformance } from '../../conformance/runner/runner.ts';
import { RUNNER_TOKEN, runnerServer } from '../support/runner.ts';
import { timeout } from '../support/timeouts.ts';

const TOKEN = RUNNER_TOKEN;
const contract = loadContract();

const server = runnerServer();

test('every invalid input of every operation is a 400 naming the field, never a 5xx, and changes nothing', { timeout: timeout(180_000) }, async () => {
  const report = await runConformance({
    baseUrl: server.url,
    token: TOKEN,
    property: {
      exhaustive: true,
      seed: 13,
      examples: 1,
      checks: ['no-5xx', 'status-declared', 'error-envelope', 'invalid-refused', 'invalid-named', 'invalid-unchanged'],
    },
  });
  expect(report.property!.results.filter((result) => !result.ok)).toEqual([]);
  expect(report.violations).toEqual([]);
  // Coverage by count, from the contract: every operation has invalid inputs, and was sent every one of them.
  const expected = Object.fromEntries([...contract.operations.values()].map((operation) => [operation.operationId, invalidVariants(contract, operation).length]));
  expect(Object.values(expected).filter((count) => count === 0)).toEqual([]);
  expect(Object.keys(report.property!.invalidRequests!)).toHaveLength(contract.operations.size);
  expect(report.property!.invalidRequests).toEqual(expected);
});
