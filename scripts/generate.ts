// Regenerates generated/ from spec/: TypeSpec emits openapi.yaml (openapi.stamp: from what), openapi-typescript makes schema.d.ts.
//   npm run generate                      writes generated/
//   tsx scripts/generate.ts --out <dir>   writes the same files into <dir> (the drift check uses this)
//   GENERATE_OPENAPI_ONLY=1               openapi.yaml only (docs/development.md, "Generating"); the compiler runs
// in this process through its API (`contractCompiler`), which `npm run dev` keeps loaded.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { compile, type CompilerHost, createSourceFile, type Diagnostic, formatDiagnostic, NodeHost, type Program, resolveCompilerOptions, type SourceFile } from '@typespec/compiler';
import { CORE_SCHEMA, load } from 'js-yaml';
import { SCHEMA_DIALECT } from '../breaking/dialect.js';
import { STAMP_FILE, stampOf } from '../breaking/stamp.ts';

const repoRoot = path.resolve(fileURLToPath(import.meta.url), '../..');

export interface ContractCompilation {
  /** generated/openapi.yaml as spec/ compiles to it now; absent when the compilation failed. */
  openapi?: string;
  /** The compiler's diagnostics, one per line as `tsp compile` prints them (paths relative to the repository). */
  diagnostics: string;
  /**
   * The information the contract's rules give beside their diagnostics (their `trace` lines: breaks the declarations
   * accept, warnings that touch a known consumer), one a line, `spec/members.tsp:59: …`; a deprecation a known
   * consumer still uses starts with `deprecation: ` (`deprecation: spec/organizations.tsp:326: …`).
   */
  notes: string[];
  /** generated/openapi.stamp for the sources compiled (breaking/stamp.ts). */
  stamp: string;
}

// The document's finishing (its dialect and deprecations' paragraphs) is the compile's own: spec-rules/emit.js.
export { SCHEMA_DIALECT };

/**
 * A compiler of spec/main.tsp with the options of tspconfig.yaml, the OpenAPI emitter writing into the folder it is
 * given. Warnings count as errors (tspconfig.yaml's `warn-as-error`), so any diagnostic means no document. Each call
 * hands the compiler the previous program and the files it read, parsed: a file whose text did not change is not
 * parsed again (what the TypeSpec language server does between keystrokes).
 *
 * Each call takes one snapshot of the contract's inputs (`snapshotInputs`): the compiler reads spec/ and
 * tspconfig.yaml from it, not from the disk, so the document it makes is the one of the bytes its cache key was
 * hashed from, however the files change during the compile. The code the compile runs (spec-rules/, the compiler
 * and its emitters as the lockfile pins them, this script) is loaded once per process: its part of the key is the
 * one on disk when the compiler was made, and a compile run after that part changed on disk is neither served from
 * nor kept in the cache (the process runs code other than what a fresh one would load).
 */
export function contractCompiler(root = repoRoot): (stagingDir: string) => Promise<ContractCompilation> {
  const loadedCode = codeInputs(root);
  const compile = typespecCompiler(root);
  return async (stagingDir) => {
    const inputs = snapshotInputs(root, loadedCode);
    const cached = loadedCode === codeInputs(root);
    const entry = cached ? cacheEntry(`${inputs.key}.openapi.yaml`) : undefined;
    const notes = cached ? cacheEntry(`${inputs.key}.notes`) : undefined;
    const stamp = stampOf(root, new Map([...inputs.files].map(([file, content]) => [path.relative(root, file), content])));
    if (entry?.text !== undefined) {
      writeFileSync(path.join(stagingDir, 'openapi.yaml'), entry.text);
      // Notes are information only (a break that fails is a diagnostic, and a compile with one is never kept).
      return { openapi: entry.text, diagnostics: '', notes: notes?.text ? notes.text.split('\n') : [], stamp };
    }
    const compiled = { ...(await compile(stagingDir, inputs)), stamp };
    if (compiled.openapi !== undefined) {
      entry?.keep(compiled.openapi);
      notes?.keep(compiled.notes.join('\n'));
    }
    return compiled;
  };
}

/**
 * Where compiled contracts are kept: DOCS_CONTRACT_CACHE, or a folder of the machine's temporary one. A contract is
 * kept by a hash of what it is compiled from (spec/, tspconfig.yaml, spec-rules/, the lockfile, which pins the
 * compiler and its emitters, and this script), so that a revision of the contract is compiled once, by whichever of
 * `npm run generate`, `npm run check` and `npm run dev`, in the repository or a copy of it, needs it first; only a
 * compilation without a diagnostic is kept. Each entry starts with a line naming its key and the hash of the text
 * after it: an entry whose line does not match (damaged, cut short, or written under another name) is a miss, and is
 * compiled again. DOCS_CONTRACT_CACHE=off compiles every time.
 */
const contractCache = () => process.env.DOCS_CONTRACT_CACHE || path.join(tmpdir(), 'docs-platform-contracts');
/** How many compiled contracts (and generated types) are kept; the least recently used go first. */
const KEPT_CONTRACTS = 40;

/** The files under `entries` (relative to `root`; files too), by path relative to `root`, node_modules and builds (dist/) left out. */
function inputFiles(root: string, entries: string[]): string[] {
  const files: string[] = [];
  for (const entry of entries) {
    const full = path.join(root, entry);
    if (!existsSync(full)) continue;
    if (!statSync(full).isDirectory()) files.push(entry);
    else
      for (const file of readdirSync(full, { recursive: true, encoding: 'utf8' }) as string[])
        if (!file.split(path.sep).some((part) => part === 'node_modules' || part === 'dist') && statSync(path.join(full, file)).isFile()) files.push(path.join(entry, file));
  }
  return files.sort();
}

/** A hash of files by path and content, in the given order. */
function hashFiles(files: Iterable<[string, Buffer]>): string {
  const hash = createHash('sha256');
  for (const [file, content] of files) hash.update(`${file.split(path.sep).join('/')}\0`).update(content).update('\0');
  return hash.digest('hex');
}

/** A hash of the files under `entries` (relative to `root`; files too), by path and content, node_modules left out. */
function filesHash(root: string, entries: string[]): string {
  return hashFiles(inputFiles(root, entries).map((file) => [file, readFileSync(path.join(root, file))]));
}

/** The inputs of a compile that the compiler reads as files: spec/ and tspconfig.yaml. */
const READ_INPUTS = ['spec', 'tspconfig.yaml'];

/**
 * The inputs of a compile that run as code in the compiling process, hashed: the rules, the gate's code that the
 * breaking-change rule runs (compare/, breaking/, conformance/'s judgement), the compiler as the lockfile pins it.
 */
const codeInputs = (root: string) =>
  filesHash(root, ['spec-rules', 'compare', 'breaking', 'conformance', 'package-lock.json']) + createHash('sha256').update(readFileSync(fileURLToPath(import.meta.url))).digest('hex').slice(0, 16);

/** The rule whose findings depend on files outside spec/: the releases, and the consumers' records its options name. */
const BREAKING_RULE = 'docs-platform-spec-rules/breaking-change';

/**
 * What the breaking-change rule reads besides spec/ and tspconfig.yaml, hashed: generated/releases/ and the
 * consumers' records its `consumers` option names (a folder's files, a file); records at a URL are fetched
 * again by the rule every few minutes, so a key naming one holds for that long.
 */
function ruleInputs(root: string, config: Buffer | undefined): string {
  let consumers: unknown;
  try {
    const parsed = load(config?.toString('utf8') ?? '', { schema: CORE_SCHEMA }) as { linter?: { enable?: Record<string, { consumers?: unknown }> } } | undefined;
    consumers = parsed?.linter?.enable?.[BREAKING_RULE]?.consumers;
  } catch {
    // tspconfig.yaml that does not parse: the compile says so.
  }
  const sources = Array.isArray(consumers) ? consumers.filter((source): source is string => typeof source === 'string') : [];
  const local = sources.filter((source) => !/^https?:\/\//.test(source)).map((source) => path.relative(root, path.resolve(root, source)));
  const remote = local.length < sources.length ? `@${Math.floor(Date.now() / 300_000)}` : '';
  return createHash('sha256').update(filesHash(root, ['generated/releases', ...local])).update(remote).digest('hex').slice(0, 16);
}

/** The contract's inputs as read once: the bytes of spec/ and tspconfig.yaml by absolute path, and their key. */
interface InputSnapshot {
  key: string;
  files: Map<string, Buffer>;
  folders: Set<string>;
}

function snapshotInputs(root: string, code = codeInputs(root)): InputSnapshot {
  const files = new Map<string, Buffer>();
  const read: [string, Buffer][] = [];
  for (const file of inputFiles(root, READ_INPUTS)) {
    const content = readFileSync(path.join(root, file));
    read.push([file, content]);
    files.set(path.join(root, file), content);
  }
  const folders = new Set<string>();
  for (const file of files.keys()) for (let folder = path.dirname(file); folder.startsWith(path.join(root, 'spec')); folder = path.dirname(folder)) folders.add(folder);
  folders.add(path.join(root, 'spec'));
  // filesHash's key for the same bytes, so that a copy's key is the repository's.
  return { key: hashFiles(read) + code + ruleInputs(root, files.get(path.join(root, 'tspconfig.yaml'))), files, folders };
}

/** What the contract of `root` is compiled from, hashed: the key of its compiled contract in the cache. */
export const contractInputs = (root: string) => snapshotInputs(root).key;

/** The first line of a cache entry: its name and the hash of its text. */
const entryHeader = (name: string, text: string) => `docs-platform-contract-cache ${name} ${createHash('sha256').update(text).digest('hex')}\n`;

/** The file of the cache's entry `name` holding `text`. */
export const cacheEntryText = (name: string, text: string) => entryHeader(name, text) + text;

/** The text kept under the cache's entry `name`, when it is there and whole. */
export const keptText = (name: string) => cacheEntry(name).text;

/** The cache's entry `name`: its text when kept and whole (and marked used), and how to keep a text under it. */
function cacheEntry(name: string): { text?: string; keep(text: string): void } {
  const folder = contractCache();
  if (folder === 'off') return { keep: () => undefined };
  const file = path.join(folder, name);
  let text: string | undefined;
  try {
    const kept = readFileSync(file, 'utf8');
    const end = kept.indexOf('\n') + 1;
    if (end > 0 && kept.slice(0, end) === entryHeader(name, kept.slice(end))) {
      text = kept.slice(end);
      const now = new Date();
      utimesSync(file, now, now);
    }
  } catch {
    // not kept
  }
  return {
    text,
    keep(kept) {
      try {
        mkdirSync(folder, { recursive: true });
        const temporary = `${file}.${process.pid}.${Date.now()}`;
        writeFileSync(temporary, cacheEntryText(name, kept));
        renameSync(temporary, file);
        const entries = readdirSync(folder).map((entry) => ({ entry, used: statSync(path.join(folder, entry)).mtimeMs })).sort((a, b) => b.used - a.used);
        for (const { entry } of entries.slice(KEPT_CONTRACTS)) rmSync(path.join(folder, entry), { force: true });
      } catch {
        // a cache that cannot be written is no cache: the next run compiles again
      }
    },
  };
}

/** An error as the file system gives it for a path that is not there. */
const notFound = (file: string) => Object.assign(new Error(`ENOENT: no such file or directory, '${file}'`), { code: 'ENOENT', path: file });

/**
 * A compiler host that reads the snapshot's files from the snapshot (and says that nothing else is there under
 * spec/), and everything else (the compiler's and the libraries' own files) from the disk.
 */
function snapshotHost(base: CompilerHost, root: string, current: () => InputSnapshot): CompilerHost {
  const spec = path.join(root, 'spec');
  const inScope = (file: string) => {
    const full = path.resolve(file);
    return full === path.join(root, 'tspconfig.yaml') || full === spec || full.startsWith(spec + path.sep) ? full : undefined;
  };
  return {
    ...base,
    async readFile(file) {
      const full = inScope(file);
      if (full === undefined) return base.readFile(file);
      const content = current().files.get(full);
      if (content === undefined) throw notFound(file);
      const bom = content.length >= 3 && content[0] === 0xef && content[1] === 0xbb && content[2] === 0xbf;
      // Text in another encoding: the host's own reading says why it is refused.
      if (content.length >= 2 && ((content[0] === 0xfe && content[1] === 0xff) || (content[0] === 0xff && content[1] === 0xfe))) return base.readFile(file);
      return createSourceFile(content.toString('utf8', bom ? 3 : 0), file);
    },
    async stat(file) {
      const full = inScope(file);
      if (full === undefined) return base.stat(file);
      const snapshot = current();
      if (snapshot.files.has(full)) return { isFile: () => true, isDirectory: () => false };
      if (snapshot.folders.has(full)) return { isFile: () => false, isDirectory: () => true };
      throw notFound(file);
    },
    async readDir(folder) {
      const full = inScope(folder);
      if (full === undefined) return base.readDir(folder);
      const snapshot = current();
      if (!snapshot.folders.has(full)) throw notFound(folder);
      const names = new Set<string>();
      for (const entry of [...snapshot.files.keys(), ...snapshot.folders]) if (path.dirname(entry) === full) names.add(path.basename(entry));
      return [...names].sort();
    },
    async realpath(file) {
      return inScope(file) ?? base.realpath(file);
    },
  };
}

/** The TypeSpec compiler of `root`'s contract, kept loaded: each call compiles the snapshot it is given (contractCompiler's, without the cache). */
function typespecCompiler(root: string): (stagingDir: string, inputs: InputSnapshot) => Promise<Omit<ContractCompilation, 'stamp'>> {
  const entrypoint = path.join(root, 'spec/main.tsp');
  const sources = new Map<string, SourceFile>();
  let inputs: InputSnapshot | undefined;
  const snapshot = snapshotHost(NodeHost, root, () => {
    if (!inputs) throw new Error('the contract compiler read a file outside a compile');
    return inputs;
  });
  /** The trace lines of the contract's rules in the compile in progress (tspconfig.yaml's `trace`): its notes. */
  let notes: string[] = [];
  const host: CompilerHost = {
    ...snapshot,
    logSink: {
      ...NodeHost.logSink,
      log(log) {
        if (log.level === 'trace' && log.code === 'docs-platform-spec-rules.deprecation') notes.push(`deprecation: ${log.message}`);
        else if (log.level === 'trace' && log.code?.startsWith('docs-platform-spec-rules.')) notes.push(log.message);
        else NodeHost.logSink.log(log);
      },
    },
    // The parse of a file is kept for its SourceFile object: the same object for the same text.
    parseCache: new WeakMap(),
    async readFile(file) {
      const read = await snapshot.readFile(file);
      const known = sources.get(file);
      if (known?.text === read.text) return known;
      sources.set(file, read);
      return read;
    },
  };
  let program: Program | undefined;
  const format = (diagnostics: readonly Diagnostic[]) => diagnostics.map((diagnostic) => formatDiagnostic(diagnostic, { pathRelativeTo: root })).join('\n');
  // One compile at a time: the host reads the snapshot of the compile in progress.
  let previous: Promise<unknown> = Promise.resolve();
  return (stagingDir, snapshotted) => {
    const run = previous.then(async (): Promise<Omit<ContractCompilation, 'stamp'>> => {
      inputs = snapshotted;
      notes = [];
      try {
        const [options, configDiagnostics] = await resolveCompilerOptions(host, {
          entrypoint,
          cwd: root,
          env: process.env,
          overrides: { options: { '@typespec/openapi3': { 'emitter-output-dir': stagingDir } } },
        });
        if (configDiagnostics.length > 0) return { diagnostics: format(configDiagnostics), notes: [] };
        // A program with errors is handed on too: only its parsed files are reused.
        program = await compile(host, entrypoint, options, program);
        if (program.hasError() || program.diagnostics.length > 0) return { diagnostics: format(program.diagnostics), notes };
        // Finished by the contract's own emitter after @typespec/openapi3 (spec-rules/emit.js), as `tsp compile` finishes it.
        const openapi = readFileSync(path.join(stagingDir, 'openapi.yaml'), 'utf8');
        return { openapi, diagnostics: '', notes };
      } finally {
        inputs = undefined;
      }
    });
    previous = run.catch(() => undefined);
    return run;
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
    writeFileSync(path.join(stagingDir, path.basename(STAMP_FILE)), compiled.stamp);
    if (!openapiOnly) writeFileSync(path.join(stagingDir, 'schema.d.ts'), await schemaTypes(compiled.openapi));
    mkdirSync(outDir, { recursive: true });
    cpSync(stagingDir, outDir, { recursive: true });
    console.log(
      openapiOnly
        ? `generate: wrote openapi.yaml (and its stamp) to ${outDir} (GENERATE_OPENAPI_ONLY=1: schema.d.ts left as it was)`
        : `generate: wrote openapi.yaml, its stamp and schema.d.ts to ${outDir}`,
    );
  } catch (error) {
    console.error(`generate: ${error instanceof Error ? error.message : error}`);
    process.exitCode = 1;
  } finally {
    rmSync(stagingDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
