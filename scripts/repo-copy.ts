// A copy of the repository as a commit would hold it (tracked files, and new ones git does not ignore), with the
// repository's node_modules linked in: where the save benchmark and the tests run `npm run dev` and edit spec/ and
// server/ without touching the working copy; and the environment for commands run in it.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export function copyRepository(destination: string): void {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file && existsSync(path.join(root, file)));
  for (const file of files) cpSync(path.join(root, file), path.join(destination, file));
  symlinkSync(path.join(root, 'node_modules'), path.join(destination, 'node_modules'), 'dir');
}

/**
 * The environment of a command run in a copy: this process's, without npm's own variables (set under `npm run` and
 * `npm test`, they point a nested npm at this repository), vitest's, and the settings `npm test` gives its suites
 * (OPERATION_COVERAGE would fail a nested vitest run on the operations it leaves out).
 */
export function copyEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !/^(npm_|VITEST)|^(GENERATED_CHECKED|OPERATION_COVERAGE|TEST_ENGINE)$/i.test(name)));
}
