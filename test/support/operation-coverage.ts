// Which operations of the contract the test suite exercises. Test servers record every answered operation into a
// folder of this run (test/support/server.ts); an answer from the contract (an operation not implemented yet) is not
// recorded (server/http/operation-route.ts). After the run, this writes coverage/operations.json, names the pending
// operations (server/handlers/pending.ts), and, when OPERATION_COVERAGE=check (as `npm test` sets it), fails naming
// every operation that no test answered with a success and that is not pending.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { pendingOperations } from '../../server/handlers/pending.ts';
import { contractOperations, loadContract } from '../../server/http/contract.ts';
import { repoRoot } from './repo.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    operationCoverageDir: string;
  }
}

export const REPORT_PATH = path.join(repoRoot, 'coverage', 'operations.json');

export default function setup(project: TestProject) {
  const dir = mkdtempSync(path.join(tmpdir(), 'operation-coverage-'));
  project.provide('operationCoverageDir', dir);

  return () => {
    const statuses = new Map<string, Map<number, number>>();
    for (const file of readdirSync(dir)) {
      for (const line of readFileSync(path.join(dir, file), 'utf8').split('\n')) {
        const [operationId, status] = line.split(' ');
        if (!operationId || !status) continue;
        const counts = statuses.get(operationId) ?? new Map<number, number>();
        counts.set(Number(status), (counts.get(Number(status)) ?? 0) + 1);
        statuses.set(operationId, counts);
      }
    }
    rmSync(dir, { recursive: true, force: true });

    const operations = contractOperations(loadContract()).map(({ operationId, method, path: template }) => {
      const seen = statuses.get(operationId) ?? new Map();
      const exercised = [...seen.keys()].some((status) => status >= 200 && status < 300);
      const pending = Object.hasOwn(pendingOperations, operationId);
      return { operationId, method: method.toUpperCase(), path: template, exercised, ...(pending ? { pending: true } : {}), statuses: Object.fromEntries(seen) };
    });
    const pending = operations.filter((operation) => operation.pending);
    const missing = operations.filter((operation) => !operation.exercised && !operation.pending);
    mkdirSync(path.dirname(REPORT_PATH), { recursive: true });
    writeFileSync(
      REPORT_PATH,
      `${JSON.stringify({ summary: { operations: operations.length, exercised: operations.filter((operation) => operation.exercised).length, pending: pending.length }, operations }, null, 2)}\n`,
    );
    console.log(
      `operation coverage: ${operations.filter((operation) => operation.exercised).length}/${operations.length} operations answered with a success by the tests${
        pending.length > 0 ? `; pending, answered from the contract (server/handlers/pending.ts): ${pending.map((operation) => operation.operationId).join(', ')}` : ''
      } (${path.relative(repoRoot, REPORT_PATH)})`,
    );
    if (process.env.OPERATION_COVERAGE === 'check' && missing.length > 0) {
      // vitest reports an error thrown here but still exits 0: set the exit code of the run explicitly.
      console.error(
        `\nNo test exercises these operations with a success answer; add tests for them:\n${missing
          .map((operation) => `  - ${operation.operationId} (${operation.method} ${operation.path})`)
          .join('\n')}`,
      );
      process.exitCode = 1;
    }
  };
}
