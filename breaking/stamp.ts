// generated/openapi.stamp: what generated/openapi.yaml was compiled from (a hash of spec/'s sources and tspconfig.yaml,
// and the versions of the TypeSpec packages that compiled them). `npm run generate` and `npm run dev` write it with the
// document; breaking/current.ts compares it with spec/ as it is now, to know whether generated/ is what spec/ compiles to.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** Where the stamp is, relative to the repository. */
export const STAMP_FILE = 'generated/openapi.stamp';

/** The packages whose code makes the document from spec/. */
const COMPILER_PACKAGES = ['@typespec/compiler', '@typespec/http', '@typespec/openapi', '@typespec/openapi3', '@typespec/json-schema'];

/**
 * Whether a file of spec/ shapes the document: not the declarations (the gate reads them, the emitter does not) and
 * not the prose beside the sources, so that declaring a break or editing spec/README.md leaves generated/ current.
 */
const shapesDocument = (file: string) => file !== path.join('spec', 'breaking-changes.yaml') && !file.endsWith('.md');

/** The sources the document is compiled from, by path relative to `root` (sorted): spec/'s and tspconfig.yaml. */
export function stampSources(root: string): string[] {
  const spec = path.join(root, 'spec');
  const files = existsSync(spec)
    ? (readdirSync(spec, { recursive: true, encoding: 'utf8' }) as string[]).map((file) => path.join('spec', file)).filter((file) => statSync(path.join(root, file)).isFile())
    : [];
  return [...files.filter(shapesDocument), ...(existsSync(path.join(root, 'tspconfig.yaml')) ? ['tspconfig.yaml'] : [])].sort();
}

/** The version of an installed package, or `absent`. */
function installed(root: string, name: string): string {
  try {
    return (JSON.parse(readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'absent';
  }
}

/**
 * The stamp of the sources `files` holds (path relative to `root` → bytes; a compile's snapshot, or the disk; other
 * files are left out): the text generated/openapi.stamp holds.
 */
export function stampOf(root: string, files: ReadonlyMap<string, Buffer>): string {
  const hash = createHash('sha256');
  const sources = [...files.keys()].filter((file) => file === 'tspconfig.yaml' || (file.startsWith(`spec${path.sep}`) && shapesDocument(file))).sort();
  for (const file of sources) hash.update(`${file.split(path.sep).join('/')}\0`).update(files.get(file)!).update('\0');
  return [
    "# What generated/openapi.yaml was compiled from: spec/'s sources (without breaking-changes.yaml and *.md) and",
    '# tspconfig.yaml, hashed, and the compiler. Written by npm run generate and npm run dev; read by breaking/current.ts.',
    `sources: ${hash.digest('hex')}`,
    `compiler: ${COMPILER_PACKAGES.map((name) => `${name} ${installed(root, name)}`).join(', ')}`,
    '',
  ].join('\n');
}

/** The stamp of spec/ as it is on disk now. */
export const currentStamp = (root: string) => stampOf(root, new Map(stampSources(root).map((file) => [file, readFileSync(path.join(root, file))])));

/** The stamp generated/ was written with, if any. */
export function writtenStamp(root: string): string | undefined {
  try {
    return readFileSync(path.join(root, STAMP_FILE), 'utf8');
  } catch {
    return undefined;
  }
}
