// The checks `invalid-refused`, `invalid-unchanged` and `invalid-named`: a request breaking one rule of the contract
// (invalidVariants, generate.ts) is refused with a 4xx (a 400 naming the field, for `invalid-named`), and the resource
// it would change reads the same afterwards.
import fc from 'fast-check';
import type { Operation } from '../../contract/contract.ts';
import { type CheckId, CheckFailure } from './checks.ts';
import { withoutVolatile } from './exceptions.ts';
import { type GeneratedRequest, invalidVariants, minimal } from './generate.ts';
import { pathNames } from '../ids.ts';
import { ALWAYS, type PropertyRun } from './run.ts';
import { readBackOf } from './shapes.ts';

type Variant = ReturnType<typeof invalidVariants>[number];

/**
 * Sends the operation's invalid variants on valid requests (`valid`): sampled by a property, or with `exhaustive`
 * every variant once on one request. Returns how many invalid requests were sent with `exhaustive`.
 */
export async function checkInvalidValues(run: PropertyRun, operation: Operation, valid: fc.Arbitrary<GeneratedRequest>, exhaustive: boolean): Promise<number | undefined> {
  const { contract } = run;
  const variants = invalidVariants(contract, operation);
  if (variants.length === 0 || !(run.enabled('invalid-refused') || run.enabled('invalid-unchanged'))) return undefined;
  const candidate = operation.method === 'get' ? undefined : readBackOf(contract, operation);
  const readBack = run.usable(candidate) ? candidate : undefined;
  const refuse = ([base, variant]: [GeneratedRequest, Variant]) => refused(run, operation, variant.apply(base), base, readBack);
  const judges: CheckId[] = ['invalid-refused', 'invalid-named', ...(readBack ? (['invalid-unchanged'] as CheckId[]) : []), ...ALWAYS];
  if (!exhaustive) {
    await run.check(operation, 'invalid', fc.tuple(valid, fc.constantFrom(...variants)), refuse, judges);
    return undefined;
  }
  const base = minimal(contract, operation, fc.sample(valid, { numRuns: 1, seed: run.seedFor(operation.operationId, 'exhaustive') })[0]!);
  for (const variant of variants) await run.recorded(operation.operationId, () => refuse([base, variant]));
  for (const id of judges) run.pass(operation.operationId, id);
  return variants.length;
}

/** Sends an invalid request (made from `base`): a 4xx, the same reading of `readBack` before and after, a 400 naming the field. */
async function refused(run: PropertyRun, operation: Operation, request: GeneratedRequest, base: GeneratedRequest, readBack: Operation | undefined): Promise<void> {
  const before = readBack ? await snapshot(run, readBack, base.path) : undefined;
  const { answer, exchange } = await run.judged(operation, request);
  const { where, rule } = request.invalid!;
  if (answer.status < 400) throw new CheckFailure('invalid-refused', `${where} ${rule}: accepted with ${answer.status}`, exchange);
  if (readBack && before !== undefined) {
    const after = await snapshot(run, readBack, base.path);
    if (after !== before) throw new CheckFailure('invalid-unchanged', `${where} ${rule}: refused with ${answer.status}, but ${readBack.operationId} reads differently afterwards`, exchange);
  }
  if (run.enabled('invalid-named')) {
    const message = (answer.json as { error?: { message?: unknown } } | undefined)?.error?.message;
    const field = where.split('.').at(-1)!;
    if (answer.status !== 400 || typeof message !== 'string' || !message.includes(field)) {
      throw new CheckFailure('invalid-named', `${where} ${rule}: answered ${answer.status} ${JSON.stringify(message)}, not a 400 naming ${field}`, exchange);
    }
  }
}

/** What `readBack` answers on these path parameters, volatile fields left out (undefined when not a 200). */
async function snapshot(run: PropertyRun, readBack: Operation, pathValues: Record<string, string>): Promise<string | undefined> {
  const names = pathNames(readBack.path);
  const values = Object.fromEntries(names.map((name) => [name, pathValues[name]!]));
  const answer = await run.session.exchange(readBack.operationId, { path: values, query: {} });
  if (!answer || answer.status !== 200) return undefined;
  return JSON.stringify(withoutVolatile(answer.json));
}
