// The server the tests start as a process: the compiled one `npm start` runs (dist/server/main.js, scripts/build-server.ts),
// built from the sources once at the start of the run (a vitest global setup), so that every process the run starts is
// the code under test. A start of the compiled server costs about a third of a start through tsx, which transpiles
// the sources on each start; the tests start some thirty.
import path from 'node:path';
import { buildServer, startCommandWords } from '../../scripts/build-server.ts';
import { repoRoot } from './repo.ts';

export default async function setup(): Promise<void> {
  await buildServer();
}

/**
 * The arguments of node that start the compiled server as `npm start` does (its node options, then its entry), with
 * `imports` loaded before it (`--import`: modules of the tests, through tsx).
 */
export function serverArguments(imports: string[] = []): string[] {
  const [, ...words] = startCommandWords();
  const entry = path.join(repoRoot, words.pop()!);
  const before = imports.length > 0 ? ['--import', 'tsx', ...imports.flatMap((module) => ['--import', module])] : [];
  return [...words, ...before, entry];
}
