// Makes the three packages' tarballs and prints one line for each (file, size, unpacked size and file count, the
// sizes as docs/packages.md's size table gives them), not npm's notices:
//   npm run pack:client | pack:conformance | pack:server   [-- --pack-destination DIR] [-- --update-sizes]
// The client and the runner are staged in .tmp/pack/<name>/, the server package is built whole; `npm pack` packs each.
// What a tarball holds, and why its package.json has no `scripts` or `private`: release/README.md ("Packing").
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { releasedNotes } from './notes.ts';
import { packedVersion, prereleaseLine, stampVersion } from './prerelease.ts';
import { SERVER_PACKAGE_NAME } from '../server/http/version.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SIZE_TABLE = path.join(root, 'docs/packages.md');

export type PackageName = 'client' | 'conformance' | 'server';

/** The packages in the order a release publishes them: the client first, which the server names as its optional peer. */
export const PACKAGE_NAMES: readonly PackageName[] = ['client', 'conformance', 'server'];

interface PackageLayout {
  /** Its name on the registry. */
  npmName: () => string;
  /** The folder holding its package.json. */
  source: string;
  /** The script that builds its files. */
  build: string;
  /** Its README and built files, relative to `source`. */
  files: string[];
  /** package.json fields the tarball leaves out. */
  omit: string[];
  /** Packed from `source` as its build leaves it, without staging (the build makes the whole package). */
  built?: boolean;
}

const PACKAGES: Record<PackageName, PackageLayout> = {
  client: {
    npmName: () => manifestName(path.join(root, 'package.json')),
    source: root,
    build: 'scripts/build-client.ts',
    files: ['README.md', 'dist/client', 'dist/generated/schema.d.ts'],
    omit: ['scripts', 'private', 'devDependencies', 'overrides', 'allowScripts'],
  },
  conformance: {
    npmName: () => manifestName(path.join(root, 'conformance/package.json')),
    source: path.join(root, 'conformance'),
    build: 'scripts/build-conformance.ts',
    files: ['README.md', 'dist'],
    omit: ['scripts', 'private'],
  },
  server: {
    npmName: () => SERVER_PACKAGE_NAME,
    source: path.join(root, 'dist/server-package'),
    build: 'scripts/build-server-package.ts',
    files: [],
    omit: [],
    built: true,
  },
};

const manifestName = (file: string) => (JSON.parse(readFileSync(file, 'utf8')) as { name: string }).name;

/** A package's name on the registry: `docs-platform-contract`, `docs-platform-conformance`, `docs-platform-server`. */
export const npmName = (name: PackageName): string => PACKAGES[name].npmName();

export interface Packed {
  /** The tarball's file name, such as docs-platform-contract-1.0.0.tgz. */
  filename: string;
  /** Its path. */
  file: string;
  /** Bytes of the tarball, and of its files unpacked. */
  size: number;
  unpackedSize: number;
  entryCount: number;
}

/** Bytes as the size table gives them: two significant digits, in kB or MB (1 kB = 1000 bytes, as npm counts). */
export function formatSize(bytes: number): string {
  const [value, unit] = bytes >= 1_000_000 ? [bytes / 1_000_000, 'MB'] : [bytes / 1000, 'kB'];
  return `${Number(value.toPrecision(2))} ${unit}`;
}

/** The size of a packed tarball, as its row of docs/packages.md's size table gives it. */
export const sizeText = (packed: Packed): string => `${formatSize(packed.size)} (${formatSize(packed.unpackedSize)} unpacked)`;

/**
 * The Node versions every package supports: the root package.json's `engines` (Node 22 from 22.12, 24, 26 and
 * later), which each tarball's manifest carries whatever its own package.json says (the server package's takes it
 * too: scripts/build-server-package.ts). The commands check the same versions when they start
 * (server/start/runtime-check.ts, conformance/cli.ts).
 */
export function rootEngines(): Record<string, string> {
  const { engines } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines?: Record<string, string> };
  if (!engines?.node) throw new Error('pack: package.json has no engines.node');
  return engines;
}

/** The repository's license (an SPDX identifier, the root package.json's `license`), which every package carries. */
export function rootLicense(): string {
  const { license } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { license?: string };
  if (!license) throw new Error('pack: package.json has no license');
  return license;
}

/**
 * Builds, stages (unless its build makes the whole package) and packs one package into `destination`; as `version`
 * when given (a pre-release: `stampVersion`), else as its package.json says.
 */
export function pack(name: PackageName, destination = process.cwd(), version?: string): Packed {
  const layout = PACKAGES[name];
  const built = spawnSync(path.join(root, 'node_modules/.bin/tsx'), [layout.build], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (built.status !== 0) throw new Error(`pack: ${layout.build} failed`);

  const stage = layout.built ? layout.source : stagePackage(layout);
  if (version !== undefined) stampVersion(stage, version, npmName('client'));

  mkdirSync(destination, { recursive: true });
  // npm's own variables (set when this runs as an npm script) must not reach the nested npm. With --json, npm prints
  // its report as JSON on stdout instead of its notices (a line per file) on stderr.
  const env = Object.fromEntries(Object.entries(process.env).filter(([variable]) => !/^npm_/i.test(variable)));
  const npm = spawnSync('npm', ['pack', stage, '--json', '--pack-destination', destination], { cwd: root, env, encoding: 'utf8' });
  if (npm.status !== 0) throw new Error(`pack: npm pack failed:\n${npm.stdout}${npm.stderr}`);
  const [result] = JSON.parse(npm.stdout) as { filename: string; size: number; unpackedSize: number; entryCount: number }[];
  return { ...result!, file: path.join(destination, result!.filename) };
}

/** Copies a package's files into .tmp/pack/<name>/ with its package.json as the tarball has it: the folder. */
function stagePackage(layout: PackageLayout): string {
  const manifest = JSON.parse(readFileSync(path.join(layout.source, 'package.json'), 'utf8')) as Record<string, unknown>;
  const stage = path.join(root, '.tmp/pack', String(manifest.name));
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  for (const file of layout.files) cpSync(path.join(layout.source, file), path.join(stage, file), { recursive: true });
  // Every package is under the repository's license (its LICENSE file and its `license` field) and carries the release
  // notes, CHANGELOG.md without what is not released yet (its `files` lists it).
  cpSync(path.join(root, 'LICENSE'), path.join(stage, 'LICENSE'));
  writeFileSync(path.join(stage, 'CHANGELOG.md'), releasedNotes(readFileSync(path.join(root, 'CHANGELOG.md'), 'utf8')));
  const staged = Object.fromEntries(
    Object.entries({ ...manifest, license: rootLicense(), engines: rootEngines() }).filter(([field]) => !layout.omit.includes(field)),
  );
  writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(staged, null, 2)}\n`);
  return stage;
}

/** Where the size table is in `page` (docs/packages.md): its section "Sizes", from its heading to the next one. */
export function sizesSection(page: string): { start: number; end: number } | undefined {
  const start = page.indexOf('\n## Sizes\n');
  if (start < 0) return undefined;
  const next = page.indexOf('\n## ', start + 1);
  return { start, end: next < 0 ? page.length : next };
}

/** `page` (docs/packages.md) with the size of `packed` in the row of its size table that names `packageName`. */
export function withTarballSize(page: string, packageName: string, packed: Packed): string {
  const section = sizesSection(page);
  const row = new RegExp(`^(\\| \`${packageName}\`.*\\| )([^|]*)( \\|)$`, 'm');
  const table = section && page.slice(section.start, section.end);
  if (!table || !row.test(table)) throw new Error(`pack: docs/packages.md has no row for \`${packageName}\` in its size table (its section "Sizes")`);
  const sized = table.replace(row, (_, start: string, _old: string, end: string) => `${start}${sizeText(packed)}${end}`);
  return `${page.slice(0, section.start)}${sized}${page.slice(section.end)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { 'pack-destination': { type: 'string' }, 'update-sizes': { type: 'boolean', default: false } },
  });
  const name = positionals[0] as PackageName;
  if (!(name in PACKAGES)) {
    console.error(`pack: name a package: ${Object.keys(PACKAGES).join(', ')}`);
    process.exit(2);
  }
  // The three packages are versioned as one, the client's (root package.json's) version: docs/packages.md, "Versions".
  const version = await packedVersion(root, (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version);
  if (version.unreleased) console.log(prereleaseLine(version));
  const packed = pack(name, values['pack-destination'] ? path.resolve(values['pack-destination']) : process.cwd(), version.unreleased ? version.version : undefined);
  const manifest = JSON.parse(readFileSync(path.join(PACKAGES[name].source, 'package.json'), 'utf8')) as { name: string };
  console.log(`pack: ${packed.file}: ${sizeText(packed)}, ${packed.entryCount} files`);
  if (values['update-sizes']) {
    writeFileSync(SIZE_TABLE, withTarballSize(readFileSync(SIZE_TABLE, 'utf8'), manifest.name, packed));
    console.log(`pack: docs/packages.md gives ${manifest.name} as ${sizeText(packed)}`);
  }
}
