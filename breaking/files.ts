// Where the commands find things in a repository, and reading them: releases, documents, declarations.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CORE_SCHEMA, load } from 'js-yaml';
import { compareVersions, parseDeclarations, parseVersion, type Declaration, type DeclarationPlace, type Version } from './gate.ts';
import { isObject } from '../compare/pointer.ts';

/** The repository these commands belong to (they run on the copy they are in). */
export const repoRoot = path.resolve(fileURLToPath(import.meta.url), '../..');

export function locations(root = repoRoot) {
  return {
    root,
    document: path.join(root, 'generated/openapi.yaml'),
    schemaTypes: path.join(root, 'generated/schema.d.ts'),
    releases: path.join(root, 'generated/releases'),
    declarations: path.join(root, 'spec/breaking-changes.yaml'),
    main: path.join(root, 'spec/main.tsp'),
    changelog: path.join(root, 'CHANGELOG.md'),
    packageJson: path.join(root, 'package.json'),
    packageLock: path.join(root, 'package-lock.json'),
    /** The conformance runner's package (docs-platform-conformance), versioned with the contract too. */
    runnerPackageJson: path.join(root, 'conformance/package.json'),
  };
}

export interface Release {
  version: string;
  parsed: Version;
  dir: string;
  document: string;
  declarations: string;
}

/** The recorded releases, oldest first: `generated/releases/<MAJOR.MINOR.PATCH>/openapi.yaml`. */
export function listReleases(root = repoRoot): Release[] {
  const dir = locations(root).releases;
  if (!existsSync(dir)) return [];
  const releases: Release[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const parsed = parseVersion(entry.name);
    if (!entry.isDirectory() || !parsed) continue;
    const releaseDir = path.join(dir, entry.name);
    const document = path.join(releaseDir, 'openapi.yaml');
    if (!existsSync(document)) continue;
    releases.push({ version: entry.name, parsed, dir: releaseDir, document, declarations: path.join(releaseDir, 'breaking-changes.yaml') });
  }
  return releases.sort((a, b) => compareVersions(a.parsed, b.parsed));
}

/**
 * An OpenAPI document, read with js-yaml and YAML 1.2's core schema (what `yaml` reads): several times faster on a
 * document the contract's size, the same objects (test/contract/yaml-documents.test.ts); every command reads two or more.
 */
export function readDocument(file: string): Record<string, unknown> {
  const value: unknown = load(readFileSync(file, 'utf8'), { schema: CORE_SCHEMA });
  if (!isObject(value)) throw new Error(`${file} is not an OpenAPI document`);
  return value;
}

/**
 * The value of a YAML (or JSON) text as `readDocument` reads it, remembered by the SHA-256 of the text as JSON in
 * `node_modules/.cache/breaking-documents/` (a release never changes, the contract seldom does): reading it back is
 * far faster than parsing the YAML (breaking/README.md, "How fast it answers"). Only documents of 50 kB or more are
 * remembered (a smaller one parses quickly), not one that JSON cannot hold exactly (`.inf`, `.nan`); the newest 16 are kept;
 * `BREAKING_NO_CACHE=1` turns the cache off.
 */
export function parseYaml(text: string, root = repoRoot): unknown {
  const modules = path.join(root, 'node_modules');
  // Small documents parse fast: only large ones (the contract, its releases) are worth a file.
  const useCache = text.length >= 50_000 && process.env.BREAKING_NO_CACHE !== '1' && existsSync(modules);
  const dir = path.join(modules, '.cache', 'breaking-documents');
  const file = path.join(dir, `${createHash('sha256').update(CACHE_FORMAT).update(text).digest('hex')}.json`);
  if (useCache) {
    try {
      return JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      // Not remembered yet (or unreadable): parsed below.
    }
  }
  const value: unknown = load(text, { schema: CORE_SCHEMA });
  if (useCache) {
    try {
      let exact = true;
      const json = JSON.stringify(value, (_key, entry: unknown) => {
        if (typeof entry === 'number' && !Number.isFinite(entry)) exact = false;
        return entry;
      });
      if (exact && json !== undefined) {
        mkdirSync(dir, { recursive: true });
        const temporary = `${file}.${process.pid}.tmp`;
        writeFileSync(temporary, json);
        renameSync(temporary, file);
        pruneCache(dir, 16);
      }
    } catch {
      // A cache that cannot be written only costs the parse next time.
    }
  }
  return value;
}

/** What the cached values depend on besides the text: the parser and how it is called. */
const CACHE_FORMAT = 'js-yaml 5 CORE_SCHEMA\n';

function pruneCache(dir: string, keep: number): void {
  const entries = readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => ({ name, time: statSync(path.join(dir, name)).mtimeMs }))
    .sort((a, b) => b.time - a.time);
  for (const entry of entries.slice(keep)) rmSync(path.join(dir, entry.name), { force: true });
}

export function versionOf(document: Record<string, unknown>): string | undefined {
  return isObject(document.info) && typeof document.info.version === 'string' ? document.info.version : undefined;
}

/**
 * The declarations of a file; a missing file, or one of comments only, declares nothing. Read with js-yaml and YAML
 * 1.2's core schema, as documents are (what `yaml` reads, in a fraction of the time on the first read of a process).
 */
export function readDeclarations(file: string): { declarations: Declaration[]; problems: string[] } {
  if (!existsSync(file)) return { declarations: [], problems: [] };
  let value: unknown;
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
    value = text.split('\n').every((line) => /^\s*(#.*)?$/.test(line)) ? null : load(text, { schema: CORE_SCHEMA });
  } catch (error) {
    return { declarations: [], problems: [`not valid YAML: ${error instanceof Error ? error.message : error}`] };
  }
  return parseDeclarations(value, declarationLines(text));
}

/**
 * Where a declaration's problem is in the file's text: the line of its field (`line 40 (entry 3)`), else of the entry,
 * for a list written in block style (`- rule: …` at the start of a line); `entry 3` otherwise.
 */
function declarationLines(text: string): DeclarationPlace {
  const lines = text.split('\n');
  const starts = lines.flatMap((line, index) => (/^-(\s|$)/.test(line) ? [index] : []));
  return (index, field) => {
    const start = starts[index];
    if (start === undefined) return `entry ${index + 1}`;
    const end = starts[index + 1] ?? lines.length;
    const escaped = field?.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const at = escaped === undefined ? -1 : lines.slice(start, end).findIndex((line) => new RegExp(`^(-\\s+|\\s+)["']?${escaped}["']?\\s*:`).test(line));
    return `line ${start + Math.max(at, 0) + 1} (entry ${index + 1})`;
  };
}

/** Empties a declarations file, keeping its leading comment (the format's explanation). */
export function emptyDeclarations(file: string): void {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const header: string[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('#') && line.trim() !== '') break;
    header.push(line);
  }
  while (header.length > 0 && header.at(-1)!.trim() === '') header.pop();
  writeFileSync(file, `${header.length > 0 ? `${header.join('\n')}\n` : ''}[]\n`);
}

export function relative(file: string, root = repoRoot): string {
  return path.relative(root, file) || '.';
}
