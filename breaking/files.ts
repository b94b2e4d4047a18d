// Where the commands find things in a repository, and reading them: releases, documents, declarations.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CORE_SCHEMA, load } from 'js-yaml';
import { parse } from 'yaml';
import { compareVersions, parseDeclarations, parseVersion, type Declaration, type Version } from './gate.ts';
import { isObject } from './pointer.ts';

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
 * An OpenAPI document, read with js-yaml and YAML 1.2's core schema (what `yaml` reads): 4 to 6 times faster on
 * the contract's 480 kB, the same objects (test/contract/yaml-documents.test.ts); every command reads two or more.
 */
export function readDocument(file: string): Record<string, unknown> {
  const value: unknown = load(readFileSync(file, 'utf8'), { schema: CORE_SCHEMA });
  if (!isObject(value)) throw new Error(`${file} is not an OpenAPI document`);
  return value;
}

export function versionOf(document: Record<string, unknown>): string | undefined {
  return isObject(document.info) && typeof document.info.version === 'string' ? document.info.version : undefined;
}

/** The declarations of a file; a missing file declares nothing. */
export function readDeclarations(file: string): { declarations: Declaration[]; problems: string[] } {
  if (!existsSync(file)) return { declarations: [], problems: [] };
  let value: unknown;
  try {
    value = parse(readFileSync(file, 'utf8'));
  } catch (error) {
    return { declarations: [], problems: [`not valid YAML: ${error instanceof Error ? error.message : error}`] };
  }
  return parseDeclarations(value);
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
