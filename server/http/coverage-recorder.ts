// The server's side of contract coverage (coverage.ts): the declared responses of each operation, from the contract
// the server serves, and those it answered, written as a record of its own into the coverage folder when the server
// stops and when its process exits.
import type { OpenApiDocument } from './contract.ts';
import { recordWriter } from './record-file.ts';
import type { Coverage } from '../../conformance/contract/coverage-format.ts';

export interface AnswerRecorder {
  /** Called when a request routed to an operation has been answered. */
  answered(operationId: string, status: number, contentType: string | undefined): void;
  /** Writes the record (again, with what was answered since), when anything was answered. */
  write(): void;
}

/** The responses each operation declares: a status, and its media type where the status declares several. */
function declaredResponses(contract: OpenApiDocument): Map<string, Map<string, string[]>> {
  const declared = new Map<string, Map<string, string[]>>();
  for (const item of Object.values(contract.paths)) {
    for (const operation of Object.values(item) as { operationId?: string; responses?: Record<string, { content?: Record<string, unknown> }> }[]) {
      if (typeof operation?.operationId !== 'string') continue;
      declared.set(operation.operationId, new Map(Object.entries(operation.responses ?? {}).map(([status, response]) => [status, Object.keys(response.content ?? {})])));
    }
  }
  return declared;
}

export function answerRecorder(contract: OpenApiDocument, records: string): AnswerRecorder {
  const declared = declaredResponses(contract);
  const seen = new Map<string, Set<string>>();
  let changed = false;
  const write = recordWriter(records, () => {
    if (!changed) return undefined;
    changed = false;
    const coverage: Coverage = { operations: {} };
    for (const [operationId, responses] of declared) {
      const keys = [...responses].flatMap(([status, types]) => (types.length > 1 ? types.map((type) => `${status} ${type}`) : [status]));
      coverage.operations[operationId] = { declared: keys, seen: keys.filter((key) => seen.get(operationId)?.has(key)) };
    }
    return JSON.stringify(coverage);
  });
  return {
    answered(operationId, status, contentType) {
      const responses = declared.get(operationId);
      if (!responses) return;
      const key = [String(status), `${String(status)[0]}XX`, 'default'].find((candidate) => responses.has(candidate));
      if (key === undefined) return;
      const types = responses.get(key)!;
      const type = contentType?.split(';')[0]!.trim().toLowerCase();
      const recorded = types.length > 1 && type && types.includes(type) ? `${key} ${type}` : types.length > 1 ? undefined : key;
      if (recorded === undefined) return;
      let keys = seen.get(operationId);
      if (!keys) seen.set(operationId, (keys = new Set()));
      if (!keys.has(recorded)) {
        keys.add(recorded);
        changed = true;
      }
    },
    write,
  };
}
