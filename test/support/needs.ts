// What a test file needs beyond the test's own process, declared in its header as one `// @needs <word> …` line: the
// words (NEEDS) and the reading of them. The quick tier (vitest.quick.config.ts) leaves out every file that declares
// a need: test/README.md, "The quick tier". `tsx test/support/needs.ts FOLDER…` prints the files that do (.ci/run).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The words a test file's `@needs` line may hold, each with what it means. */
export const NEEDS = {
  postgres: 'a PostgreSQL server (the run\'s, test/support/postgres-setup.ts, or one of its own)',
  processes: 'processes it starts: servers as processes, npm, tsc, the commands of a copy of the repository',
  mount: 'a file system it mounts (root)',
  tls: 'certificates made with openssl',
  browser: 'a browser (Chromium)',
  network: 'the network beyond 127.0.0.1',
  slow: 'a large share of the quick tier\'s time for what a change to a handler or a rule rarely breaks',
} as const;

export type Need = keyof typeof NEEDS;

const TAG = /^\/\/\s*@needs\b(.*)$/;

/** The header of a module: the `//` lines it starts with (after a `#!` line). */
function header(source: string): string[] {
  const lines = source.split('\n');
  const start = lines[0]?.startsWith('#!') ? 1 : 0;
  const end = lines.findIndex((line, at) => at >= start && !line.startsWith('//'));
  return lines.slice(start, end < 0 ? lines.length : end);
}

/** Whether a line is a `@needs` declaration (which a header's line count leaves out: test/tooling/module-headers). */
export const isNeedsLine = (line: string): boolean => TAG.test(line);

/**
 * The needs a test file declares in its header, in the order written; throws on a word NEEDS does not have (a typo
 * would put the file back in the quick tier) and on a `@needs` line below the header (where it would be missed).
 */
export function fileNeeds(source: string, file = 'the file'): Need[] {
  const needs: Need[] = [];
  for (const line of header(source)) {
    const words = TAG.exec(line)?.[1]?.trim().split(/\s+/).filter(Boolean);
    if (!words) continue;
    if (words.length === 0) throw new Error(`${file}: an empty @needs line: name what it needs (${Object.keys(NEEDS).join(', ')})`);
    for (const word of words) {
      if (!(word in NEEDS)) throw new Error(`${file}: @needs ${word} is not one of ${Object.keys(NEEDS).join(', ')} (test/support/needs.ts)`);
      needs.push(word as Need);
    }
  }
  const below = source.split('\n').slice(header(source).length).findIndex((line) => /^\s*\/\/\s*@needs\b/.test(line));
  if (below >= 0) throw new Error(`${file}: its @needs line is below its header: put it among the leading // lines`);
  return needs;
}

/** The `.test.ts` files under `folders` (relative to `root`, `/`-separated) that declare a need, with their needs. */
export function filesWithNeeds(root: string, folders: readonly string[]): Map<string, Need[]> {
  const found = new Map<string, Need[]>();
  for (const folder of folders) {
    const files = (readdirSync(path.join(root, folder), { recursive: true, encoding: 'utf8' }) as string[])
      .map((file) => `${folder}/${file.split(path.sep).join('/')}`)
      .filter((file) => file.endsWith('.test.ts'))
      .sort();
    for (const file of files) {
      const needs = fileNeeds(readFileSync(path.join(root, file), 'utf8'), file);
      if (needs.length > 0) found.set(file, needs);
    }
  }
  return found;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  for (const file of filesWithNeeds(root, process.argv.slice(2)).keys()) console.log(file);
}
