// A copy of the repository as a commit would hold it (tracked files, and new ones git does not ignore), with the
// repository's node_modules linked in and its check caches carried over: where the save benchmark and the tests run
// `npm run dev`, `npm run check` and the like, editing spec/ and server/ without touching the working copy; and the
// environment for commands run in it. Why the caches: docs/development.md, "Copies of the repository".
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The caches of `npm run check` (scripts/check.ts) and `npm run dev` a copy starts from, in .tmp/ as there. */
export const CHECK_CACHES = { eslint: '.tmp/eslintcache', typescript: '.tmp/check-native.tsbuildinfo' };

export function copyRepository(destination: string, from = root): void {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: from, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file && existsSync(path.join(from, file)));
  for (const file of files) cpSync(path.join(from, file), path.join(destination, file));
  symlinkSync(path.join(from, 'node_modules'), path.join(destination, 'node_modules'), 'dir');
  carryCaches(from, destination);
}

/**
 * The repository's ESLint cache and TypeScript build info, written for the copy: a file the copy holds unchanged is
 * not linted or type-checked again. ESLint's cache names files by absolute path and tells a change by content
 * (`--cache-strategy content`, as check.ts runs it); TypeScript's build info names them relative to itself and tells a
 * change by a hash of the text. Either cache missing or unreadable: the copy starts without it, as a clone does.
 */
export function carryCaches(from: string, destination: string): void {
  mkdirSync(path.join(destination, '.tmp'), { recursive: true });
  const eslint = path.join(from, CHECK_CACHES.eslint);
  if (existsSync(eslint)) {
    // Its paths are strings of the cache's JSON: each of the repository's files becomes the copy's.
    const quoted = (folder: string) => JSON.stringify(`${folder}${path.sep}`).slice(0, -1);
    writeFileSync(path.join(destination, CHECK_CACHES.eslint), readFileSync(eslint, 'utf8').replaceAll(quoted(from), quoted(destination)));
  }
  const typescript = path.join(from, CHECK_CACHES.typescript);
  if (existsSync(typescript)) {
    try {
      const info = JSON.parse(readFileSync(typescript, 'utf8')) as Record<string, unknown>;
      const [before, after] = [path.dirname(typescript), path.join(destination, path.dirname(CHECK_CACHES.typescript))];
      // A file of the repository is the copy's file at the same place; any other (node_modules through the copy's
      // link is the repository's, by its real path) stays where it is, named from the copy.
      const moved = (name: string) => {
        if (!name.includes('/')) return name; // TypeScript's own libraries, named bare
        const absolute = path.resolve(before, name);
        const relative = path.relative(from, absolute);
        const target = relative.startsWith('..') || path.isAbsolute(relative) || relative.startsWith(`node_modules${path.sep}`) ? absolute : path.join(destination, relative);
        return path.relative(after, target);
      };
      for (const field of ['fileNames', 'packageJsons', 'missingPackageJsons']) {
        if (Array.isArray(info[field])) info[field] = (info[field] as unknown[]).map((name) => (typeof name === 'string' ? moved(name) : name));
      }
      writeFileSync(path.join(destination, CHECK_CACHES.typescript), JSON.stringify(info));
    } catch {
      // not build info this TypeScript wrote: the copy checks from scratch
    }
  }
}

/**
 * The environment of a command run in a copy: this process's, without npm's own variables (set under `npm run` and
 * `npm test`, they point a nested npm at this repository), vitest's, and the settings `npm test` gives its suites
 * (OPERATION_COVERAGE would fail a nested vitest run on the operations it leaves out).
 */
export function copyEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !/^(npm_|VITEST|TINYPOOL)|^(GENERATED_CHECKED|OPERATION_COVERAGE|TEST_ENGINE)$/i.test(name)));
}
