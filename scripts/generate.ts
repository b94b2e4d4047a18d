// Regenerates generated/ from spec/: TypeSpec emits openapi.yaml, openapi-typescript turns it into schema.d.ts.
//   npm run generate                      writes generated/
//   tsx scripts/generate.ts --out <dir>   writes the same files into <dir> (the drift check uses this)
//   GENERATE_OPENAPI_ONLY=1               openapi.yaml only (docs/development.md, "Generating")
// The compiler runs in this process through its API (`contractCompiler`), which `npm run dev` keeps loaded.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { compile, type CompilerHost, type Diagnostic, formatDiagnostic, NodeHost, type Program, resolveCompilerOptions, type SourceFile } from '@typespec/compiler';
import { CORE_SCHEMA, load } from 'js-yaml';

const repoRoot = path.resolve(fileURLToPath(import.meta.url), '../..');

export interface ContractCompilation {
  /** generated/openapi.yaml as spec/ compiles to it now; absent when the compilation failed. */
  openapi?: string;
  /** The compiler's diagnostics, one per line as `tsp compile` prints them (paths relative to the repository). */
  diagnostics: string;
}

/**
 * The JSON Schema dialect the document's schemas are written in: OpenAPI 3.1's base dialect (JSON Schema 2020-12 with
 * OpenAPI's vocabulary: `discriminator`, `xml`, `externalDocs`, `example`). OpenAPI 3.1 makes it the default, but tools
 * do not all apply the default: Prism reads the schemas of a 3.1 document that does not declare its dialect as
 * draft-07, which has no `unevaluatedProperties`, the keyword that closes the contract's objects, and so lets an
 * unknown field through. Declared, it is read as written. Changing it is a change of the contract that the
 * breaking-change gate judges (`schema-dialect-…`, breaking/README.md).
 */
export const SCHEMA_DIALECT = 'https://spec.openapis.org/oas/3.1/dialect/base';

/**
 * The emitted document with `jsonSchemaDialect: SCHEMA_DIALECT` after its `openapi:` line (where the specification
 * lists it); written into the text, so that the rest of the emitter's text stays as it wrote it.
 */
export function declareSchemaDialect(openapi: string): string {
  const first = /^openapi: 3\.1\.\d+\n/.exec(openapi);
  if (!first) throw new Error('the emitted document does not start with `openapi: 3.1.x`: jsonSchemaDialect is OpenAPI 3.1\'s');
  const declared = /^jsonSchemaDialect: (.*)$/m.exec(openapi);
  if (declared) {
    if (declared[1] !== SCHEMA_DIALECT) throw new Error(`the emitter declared jsonSchemaDialect ${declared[1]}, not ${SCHEMA_DIALECT}`);
    return openapi;
  }
  return `${first[0]}jsonSchemaDialect: ${SCHEMA_DIALECT}\n${openapi.slice(first[0].length)}`;
}

/**
 * A compiler of spec/main.tsp with the options of tspconfig.yaml, the OpenAPI emitter writing into the folder it is
 * given. Warnings count as errors (tspconfig.yaml's `warn-as-error`), so any diagnostic means no document. Each call
 * hands the compiler the previous program and the files it read, parsed: a file whose text did not change is not
 * parsed again (what the TypeSpec language server does between keystrokes).
 */
export function contractCompiler(root = repoRoot): (stagingDir: string) => Promise<ContractCompilation> {
  const compile = typespecCompiler(root);
  return async (stagingDir) => {
    const kept = keptContract(root);
    if (kept.openapi !== undefined) {
      writeFileSync(path.join(stagingDir, 'openapi.yaml'), kept.openapi);
      return { openapi: kept.openapi, diagnostics: '' };
    }
    const compiled = await compile(stagingDir);
    if (compiled.openapi !== undefined) kept.keep(compiled.openapi);
    return compiled;
  };
}

/**
 * Where compiled contracts are kept: DOCS_CONTRACT_CACHE, or a folder of the machine's temporary one. A contract is
 * kept by a hash of what it is compiled from (spec/, tspconfig.yaml, spec-rules/, the lockfile, which pins the
 * compiler and its emitters, and this script), so that a revision of the contract is compiled once, by whichever of
 * `npm run generate`, `npm run check` and `npm run dev`, in the repository or a copy of it, needs it first; only a
 * compilation without a diagnostic is kept. DOCS_CONTRACT_CACHE=off compiles every time.
 */
const contractCache = () => process.env.DOCS_CONTRACT_CACHE || path.join(tmpdir(), 'docs-platform-contracts');
/** How many compiled contracts (and generated types) are kept; the least recently used go first. */
const KEPT_CONTRACTS = 40;

/** A hash of the files under `folders` (relative to `root`; files too), by path and content, node_modules left out. */
export function filesHash(root: string, entries: string[]): string {
  const hash = createHash('sha256');
  for (const entry of entries) {
    const full = path.join(root, entry);
    if (!existsSync(full)) continue;
    const files = statSync(full).isDirectory()
      ? (readdirSync(full, { recursive: true, encoding: 'utf8' }) as string[])
          .filter((file) => !file.split(path.sep).includes('node_modules') && statSync(path.join(full, file)).isFile())
          .map((file) => path.join(entry, file))
      : [entry];
    for (const file of files.sort()) hash.update(`${file.split(path.sep).join('/')}\0`).update(readFileSync(path.join(root, file))).update('\0');
  }
  return hash.digest('hex');
}

/** What the contract of `root` is compiled from, hashed. */
export const contractInputs = (root: string) =>
  filesHash(root, ['spec', 'tspconfig.yaml', 'spec-rules', 'package-lock.json']) + createHash('sha256').update(readFileSync(fileURLToPath(import.meta.url))).digest('hex').slice(0, 16);

/** The cache's entry `name`: its text when kept (and marked used), and how to keep a text under it. */
function cacheEntry(name: string): { text?: string; keep(text: string): void } {
  const folder = contractCache();
  if (folder === 'off') return { keep: () => undefined };
  const file = path.join(folder, name);
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8');
    const now = new Date();
    utimesSync(file, now, now);
  } catch {
    // not kept
  }
  return {
    text,
    keep(kept) {
      try {
        mkdirSync(folder, { recursive: true });
        const temporary = `${file}.${process.pid}.${Date.now()}`;
        writeFileSync(temporary, kept);
        renameSync(temporary, file);
        const entries = readdirSync(folder).map((entry) => ({ entry, used: statSync(path.join(folder, entry)).mtimeMs })).sort((a, b) => b.used - a.used);
        for (const { entry } of entries.slice(KEPT_CONTRACTS)) rmSync(path.join(folder, entry), { force: true });
      } catch {
        // a cache that cannot be written is no cache: the next run compiles again
      }
    },
  };
}

/** The compiled contract of `root` as kept, if it is, and how to keep it once compiled. */
function keptContract(root: string): { openapi?: string; keep(openapi: string): void } {
  const entry = cacheEntry(`${contractInputs(root)}.openapi.yaml`);
  return { openapi: entry.text, keep: entry.keep };
}

/** The TypeSpec compiler of `root`'s contract, kept loaded: each call compiles spec/ now (contractCompiler's, without the cache). */
function typespecCompiler(root: string): (stagingDir: string) => Promise<ContractCompilation> {
  const entrypoint = path.join(root, 'spec/main.tsp');
  const sources = new Map<string, SourceFile>();
  const host: CompilerHost = {
    ...NodeHost,
    // The parse of a file is kept for its SourceFile object: the same object for the same text.
    parseCache: new WeakMap(),
    async readFile(file) {
      const read = await NodeHost.readFile(file);
      const known = sources.get(file);
      if (known?.text === read.text) return known;
      sources.set(file, read);
      return read;
    },
  };
  let program: Program | undefined;
  const format = (diagnostics: readonly Diagnostic[]) => diagnostics.map((diagnostic) => formatDiagnostic(diagnostic, { pathRelativeTo: root })).join('\n');
  return async (stagingDir) => {
    const [options, configDiagnostics] = await resolveCompilerOptions(host, {
      entrypoint,
      cwd: root,
      env: process.env,
      overrides: { options: { '@typespec/openapi3': { 'emitter-output-dir': stagingDir } } },
    });
    if (configDiagnostics.length > 0) return { diagnostics: format(configDiagnostics) };
    // A program with errors is handed on too: only its parsed files are reused.
    program = await compile(host, entrypoint, options, program);
    if (program.hasError() || program.diagnostics.length > 0) return { diagnostics: format(program.diagnostics) };
    const openapi = declareSchemaDialect(readFileSync(path.join(stagingDir, 'openapi.yaml'), 'utf8'));
    // The staging folder is what generate copies into generated/.
    writeFileSync(path.join(stagingDir, 'openapi.yaml'), openapi);
    return { openapi, diagnostics: '' };
  };
}

/** generated/schema.d.ts for the text of generated/openapi.yaml; kept as compiled contracts are (contractCompiler). */
export async function schemaTypes(openapi: string): Promise<string> {
  const maker = path.join(path.dirname(fileURLToPath(import.meta.url)), 'openapi-types.ts');
  const entry = cacheEntry(`${createHash('sha256').update(openapi).update(readFileSync(maker)).update(readFileSync(path.join(repoRoot, 'package-lock.json'))).digest('hex')}.schema.d.ts`);
  if (entry.text !== undefined) return entry.text;
  // Loaded only here: openapi-typescript takes a while to load.
  const { generateTypes } = await import('./openapi-types.ts');
  const types = await generateTypes(load(openapi, { schema: CORE_SCHEMA }) as Parameters<typeof generateTypes>[0]);
  entry.keep(types);
  return types;
}

async function main() {
  const { values } = parseArgs({ options: { out: { type: 'string' } } });
  const outDir = values.out ? path.resolve(values.out) : path.join(repoRoot, 'generated');
  const openapiOnly = process.env.GENERATE_OPENAPI_ONLY === '1';

  // Build in a scratch directory first, so that a failing step leaves the output directory untouched.
  const stagingDir = mkdtempSync(path.join(tmpdir(), 'generate-'));
  try {
    const compiled = await contractCompiler()(stagingDir);
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
