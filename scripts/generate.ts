// Regenerates generated/ from spec/: TypeSpec emits openapi.yaml, openapi-typescript turns it into schema.d.ts.
//   npm run generate                      writes generated/
//   tsx scripts/generate.ts --out <dir>   writes the same files into <dir> (the drift check uses this)
//   GENERATE_OPENAPI_ONLY=1               compiles and writes openapi.yaml only: schema.d.ts is neither made nor
//                                         written (the one in the output directory stays as it was, so it may be
//                                         out of date). For runs that read the document only, and pass through
//                                         commands that regenerate: test/breaking.test.ts sets it for the release
//                                         and generate commands it runs in its copy of the repository (openapi-
//                                         typescript is about 40% of a generate).
// The TypeSpec compiler runs in this process through its API (`compileContract`), with the options `tsp compile`
// reads from tspconfig.yaml; `npm run dev` keeps it loaded and hands it the previous program, so that a save
// compiles in about a second instead of the four a `tsp compile` process takes.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { compile, formatDiagnostic, NodeHost, type Program, resolveCompilerOptions } from '@typespec/compiler';
import { CORE_SCHEMA, load } from 'js-yaml';

const repoRoot = path.resolve(fileURLToPath(import.meta.url), '../..');

export interface ContractCompilation {
  /** The program, to hand to the next compilation (it reuses the parsed files that did not change). */
  program?: Program;
  /** generated/openapi.yaml as spec/ compiles to it now; absent when the compilation failed. */
  openapi?: string;
  /** The compiler's diagnostics, one per line as `tsp compile` prints them (paths relative to the repository). */
  diagnostics: string;
}

/**
 * Compiles spec/main.tsp with the options of tspconfig.yaml, the OpenAPI emitter writing into `stagingDir`.
 * Warnings count as errors (tspconfig.yaml's `warn-as-error`), so any diagnostic means no document.
 */
export async function compileContract(stagingDir: string, oldProgram?: Program, root = repoRoot): Promise<ContractCompilation> {
  const entrypoint = path.join(root, 'spec/main.tsp');
  const [options, configDiagnostics] = await resolveCompilerOptions(NodeHost, {
    entrypoint,
    cwd: root,
    env: process.env,
    overrides: { options: { '@typespec/openapi3': { 'emitter-output-dir': stagingDir } } },
  });
  const format = (diagnostics: Program['diagnostics']) => diagnostics.map((diagnostic) => formatDiagnostic(diagnostic, { pathRelativeTo: root })).join('\n');
  if (configDiagnostics.length > 0) return { diagnostics: format(configDiagnostics) };
  const program = await compile(NodeHost, entrypoint, options, oldProgram);
  if (program.hasError() || program.diagnostics.length > 0) return { program, diagnostics: format(program.diagnostics) };
  return { program, openapi: readFileSync(path.join(stagingDir, 'openapi.yaml'), 'utf8'), diagnostics: '' };
}

/** generated/schema.d.ts for the text of generated/openapi.yaml. */
export async function schemaTypes(openapi: string): Promise<string> {
  // Loaded only here: openapi-typescript takes a while to load.
  const { generateTypes } = await import('./openapi-types.ts');
  return generateTypes(load(openapi, { schema: CORE_SCHEMA }) as Parameters<typeof generateTypes>[0]);
}

async function main() {
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  const outDir = values.out ? path.resolve(values.out) : path.join(repoRoot, 'generated');
  const openapiOnly = process.env.GENERATE_OPENAPI_ONLY === '1';

  // Build in a scratch directory first, so that a failing step leaves the output directory untouched.
  const stagingDir = mkdtempSync(path.join(tmpdir(), 'generate-'));
  try {
    const compiled = await compileContract(stagingDir);
    if (compiled.openapi === undefined) {
      process.stderr.write(`${compiled.diagnostics}\n`);
      throw new Error('compiling spec/main.tsp failed (diagnostics above); nothing was written.');
    }
    if (!openapiOnly) writeFileSync(path.join(stagingDir, 'schema.d.ts'), await schemaTypes(compiled.openapi));
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
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
