// The gate's commands compiled once, so that they start without a TypeScript loader: breaking/check.ts bundled by
// esbuild into dist/breaking-check.mjs, beside dist/breaking-check.json (the files it was built from, with size, time
// and SHA-256). `ensureBundle` builds it when it is missing or stale and returns its path. Plain JavaScript, so that it
// runs before anything is compiled; `node breaking/bundle.mjs` builds it. Why: breaking/README.md ("How fast it answers").
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = path.resolve(fileURLToPath(import.meta.url), '../..');

/** The commands bundled, and the gate as the contract's linter rule loads it (`live`): name → entry point. */
export const ENTRIES = { check: 'breaking/check.ts', live: 'breaking/live.ts' };

export function bundlePaths(name, at = root) {
  return { output: path.join(at, 'dist', `breaking-${name}.mjs`), manifest: path.join(at, 'dist', `breaking-${name}.json`) };
}

function hashOf(file) {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** Whether the bundle was built from the files as they are now. */
export function isFresh(name, at = root) {
  const { output, manifest } = bundlePaths(name, at);
  let recorded;
  try {
    recorded = JSON.parse(readFileSync(manifest, 'utf8'));
  } catch {
    return false;
  }
  if (recorded.entry !== ENTRIES[name] || !Array.isArray(recorded.inputs) || !existsSync(output)) return false;
  for (const input of recorded.inputs) {
    const file = path.join(at, input.path);
    let stats;
    try {
      stats = statSync(file);
    } catch {
      return false;
    }
    if (stats.size === input.size && stats.mtimeMs === input.mtimeMs) continue;
    if (stats.size !== input.size || hashOf(file) !== input.sha256) return false;
  }
  return true;
}

/** Builds the bundle (esbuild, loaded only then); written under temporary names, then renamed into place. */
export async function buildBundle(name, at = root) {
  const { build } = await import('esbuild');
  const { output, manifest } = bundlePaths(name, at);
  mkdirSync(path.dirname(output), { recursive: true });
  const temporary = `${output}.${process.pid}.tmp`;
  const result = await build({
    absWorkingDir: at,
    entryPoints: [ENTRIES[name]],
    outfile: temporary,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    metafile: true,
    logLevel: 'warning',
    legalComments: 'none',
    // The CommonJS dependencies (yaml) require Node's built-ins.
    banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  });
  const inputs = Object.keys(result.metafile.inputs)
    .filter((input) => !input.startsWith('<'))
    .sort()
    .map((input) => {
      const file = path.join(at, input);
      const stats = statSync(file);
      return { path: input, size: stats.size, mtimeMs: stats.mtimeMs, sha256: hashOf(file) };
    });
  renameSync(temporary, output);
  const record = `${manifest}.${process.pid}.tmp`;
  writeFileSync(record, `${JSON.stringify({ entry: ENTRIES[name], inputs }, null, 1)}\n`);
  renameSync(record, manifest);
  return output;
}

/** The bundle of `name`, built first when it is missing or stale. */
export async function ensureBundle(name, at = root) {
  if (isFresh(name, at)) return bundlePaths(name, at).output;
  return buildBundle(name, at);
}

/** Runs the bundle of `name` in this process (its `process.argv` is the command's). */
export async function runBundle(name, at = root) {
  const file = await ensureBundle(name, at);
  await import(pathToFileURL(file).href);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const name of Object.keys(ENTRIES)) {
    const file = await buildBundle(name);
    process.stdout.write(`${path.relative(root, file)}\n`);
  }
}
