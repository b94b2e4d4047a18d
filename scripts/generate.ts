// Regenerates generated/ from spec/: TypeSpec emits openapi.yaml, openapi-typescript turns it into schema.d.ts.
//   npm run generate                      writes generated/
//   tsx scripts/generate.ts --out <dir>   writes the same files into <dir> (the drift check uses this)
//   GENERATE_OPENAPI_ONLY=1               compiles and writes openapi.yaml only: schema.d.ts is neither made nor
//                                         written (the one in the output directory stays as it was, so it may be
//                                         out of date). For runs that read the document only, and pass through
//                                         commands that regenerate: test/breaking.test.ts sets it for the release
//                                         and generate commands it runs in its copy of the repository (openapi-
//                                         typescript is about 40% of a generate).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CORE_SCHEMA, load } from 'js-yaml';

const repoRoot = path.resolve(fileURLToPath(import.meta.url), '../..');
const { values } = parseArgs({ options: { out: { type: 'string' } } });
const outDir = values.out ? path.resolve(values.out) : path.join(repoRoot, 'generated');
const openapiOnly = process.env.GENERATE_OPENAPI_ONLY === '1';

// Build in a scratch directory first, so that a failing step leaves the output directory untouched.
const stagingDir = mkdtempSync(path.join(tmpdir(), 'generate-'));
try {
  const tsp = spawnSync(
    path.join(repoRoot, 'node_modules/.bin/tsp'),
    ['compile', 'spec/main.tsp', '--option', `@typespec/openapi3.emitter-output-dir=${stagingDir}`],
    { cwd: repoRoot, encoding: 'utf8' },
  );
  if (tsp.status !== 0) {
    process.stderr.write(`${tsp.stdout ?? ''}${tsp.stderr ?? ''}${tsp.error ? `${tsp.error}\n` : ''}`);
    throw new Error('`tsp compile spec/main.tsp` failed (output above); nothing was written.');
  }

  if (!openapiOnly) {
    // Loaded only here: openapi-typescript takes a while to load.
    const { generateTypes } = await import('./openapi-types.ts');
    const openapi = readFileSync(path.join(stagingDir, 'openapi.yaml'), 'utf8');
    writeFileSync(path.join(stagingDir, 'schema.d.ts'), await generateTypes(load(openapi, { schema: CORE_SCHEMA }) as Parameters<typeof generateTypes>[0]));
  }

  mkdirSync(outDir, { recursive: true });
  cpSync(stagingDir, outDir, { recursive: true });
  console.log(
    openapiOnly
      ? `generate: wrote openapi.yaml to ${outDir} (GENERATE_OPENAPI_ONLY=1: schema.d.ts left as it was)`
      : `generate: wrote openapi.yaml and schema.d.ts to ${outDir}`,
  );
} catch (error) {
  console.error(`generate: ${error instanceof Error ? error.message : error}`);
  process.exitCode = 1;
} finally {
  rmSync(stagingDir, { recursive: true, force: true });
}
