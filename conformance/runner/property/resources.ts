// Path parameters for an operation, all naming resources that are alive: those of the run, or resources the phase
// makes itself, under the same parents, with the create that makes them (deleted when the phase ends).
import fc from 'fast-check';
import type { Operation } from '../../contract/contract.ts';
import { minimal, requestArbitrary } from './generate.ts';
import { keyField, pathNames } from '../ids.ts';
import type { PropertyRun } from './run.ts';
import { makers } from './shapes.ts';

/**
 * Path parameters for an operation, all alive: those it was called with, else each parameter from that call while
 * it lives, and a missing one made by the create that makes it under the same parents (a space comment for a reply
 * to one); undefined when none could be made.
 */
export async function ensure(run: PropertyRun, operation: Operation, depth: number): Promise<Record<string, string> | undefined> {
  const { ids } = run.session;
  if (depth > 4) return undefined;
  if (ids.hasKnownPath(operation)) return ids.pathsFor(operation)[0];
  const own = new Set(pathNames(operation.path));
  const recorded = ids.recordedPath(operation.operationId) ?? {};
  const values: Record<string, string> = {};
  for (const name of pathNames(operation.path)) {
    const previous = recorded[name];
    if (previous !== undefined && ids.isAlive(name, previous)) {
      values[name] = previous;
      continue;
    }
    const key = await make(run, name, own, values);
    if (key !== undefined) {
      values[name] = key;
      continue;
    }
    values[name] = ids.values(name)?.[0] ?? 'docs-conformance-missing';
  }
  return values;
}

/**
 * Makes a new resource named by path parameter `name` under `parents` with the create that makes it (its DELETE,
 * when there is one, cleans it up when the phase ends): the body the scenario had accepted, else generated ones.
 * Returns its key, or undefined when no create makes it or every body was refused.
 */
export async function make(run: PropertyRun, name: string, own: Set<string>, parents: Record<string, string>): Promise<string | undefined> {
  const { contract, session } = run;
  const maker = makers(contract)
    .filter((candidate) => candidate.parameter === name && run.usable(candidate.create) && (!candidate.remove || run.usable(candidate.remove)) && pathNames(candidate.create.path).every((parent) => own.has(parent) && parent in parents))
    .sort((a, b) => Number(!a.remove) - Number(!b.remove))[0];
  if (!maker) return undefined;
  const path = run.pick(maker.create, parents);
  const accepted = session.ids.acceptedBody(maker.create.operationId);
  const generated = fc.sample(requestArbitrary(contract, maker.create, [path], { ids: run.ids }), { numRuns: run.settings.examples, seed: run.seedFor(maker.create.operationId, 'make') });
  const bodies = [...(accepted ? [accepted] : []), ...generated.map((request) => minimal(contract, maker.create, request).body)];
  for (const body of bodies) {
    const answer = await session.exchange(maker.create.operationId, { path, query: {}, ...(body !== undefined ? { body } : {}) });
    const key = (answer?.json as Record<string, unknown> | undefined)?.[keyField(name)];
    if (!answer || answer.status >= 300 || typeof key !== 'string') continue;
    session.ids.add(name, key);
    const remove = maker.remove;
    if (remove) {
      const itemPath = { ...path, [name]: key };
      run.created.push(() => session.exchange(remove.operationId, { path: run.pick(remove, itemPath), query: {} }));
    }
    return key;
  }
  return undefined;
}
