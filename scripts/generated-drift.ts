// Regenerates into a scratch directory and compares the result with the committed generated/.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const FIX = 'Run `npm run generate` and commit generated/.';

/** Runs `tsx scripts/generate.ts --out <outDir>`; throws with the generator's output when it fails. */
export function generateInto(outDir: string): void {
  const run = spawnSync(path.join(repoRoot, 'node_modules/.bin/tsx'), ['scripts/generate.ts', '--out', outDir], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  if (run.status !== 0) {
    throw new Error(
      `Generation failed, so generated/ cannot be checked: fix spec/ until \`npm run generate\` succeeds.\n\n` +
        `${run.stdout ?? ''}${run.stderr ?? ''}${run.error ?? ''}`,
    );
  }
}

/** One message per stale, missing or unexpected file of `committedDir` (shown as `label`). */
export function compareGenerated(freshDir: string, committedDir: string, label = 'generated'): string[] {
  const fresh = listFiles(freshDir);
  // generated/releases/ holds the released documents (npm run release), not what spec/ compiles to now.
  const committed = listFiles(committedDir).filter((file) => !file.startsWith(`releases${path.sep}`));
  const problems: string[] = [];

  for (const file of fresh) {
    const shown = `${label}/${file}`;
    if (!committed.includes(file)) {
      problems.push(`${shown} is missing: generation produces it. ${FIX}`);
      continue;
    }
    const expected = readFileSync(path.join(freshDir, file), 'utf8');
    const actual = readFileSync(path.join(committedDir, file), 'utf8');
    if (expected !== actual) {
      const hint = firstDifference(expected, actual);
      problems.push(`${shown} is stale: it differs from what spec/ compiles to. ${FIX}\n${hint}`);
    }
  }
  for (const file of committed.filter((file) => !fresh.includes(file))) {
    problems.push(`${label}/${file} is not produced by generation: delete it (generated/ holds emitted files only).`);
  }
  return problems;
}

function listFiles(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

function firstDifference(expected: string, actual: string): string {
  const expectedLines = expected.split('\n');
  const actualLines = actual.split('\n');
  const line = expectedLines.findIndex((text, index) => text !== actualLines[index]);
  const at = line === -1 ? expectedLines.length : line;
  const show = (text: string | undefined) => (text === undefined ? '(end of file)' : JSON.stringify(text.slice(0, 160)));
  return [
    `    first difference at line ${at + 1}:`,
    `      spec/ gives: ${show(expectedLines[at])}`,
    `      committed:   ${show(actualLines[at])}`,
  ].join('\n');
}
