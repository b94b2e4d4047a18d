// The server package's size and what it makes a consumer install: `npm run size:server` builds the package
// (build-server-package.ts), and prints its tarball's size (packed and unpacked, files) and the packages npm installs
// for it (its dependencies and theirs, as package-lock.json resolves them, with their size on disk), against budgets;
// above a budget, it fails. test/tooling/server-package.test.ts checks the packed tarball against the same budgets.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildServerPackage, DEPENDENCIES, SERVER_PACKAGE } from './build-server-package.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The tarball, packed (gzip) and unpacked. */
export const PACKED_BUDGET_BYTES = 2 * 1024 * 1024;
/** Packages npm installs for the server package (better-sqlite3 and pdfkit with theirs: 56 now). */
export const DEPENDENCY_BUDGET = 60;

export interface TarballSize {
  packed: number;
  unpacked: number;
  files: number;
}

/** What `npm pack` would make of `folder`, without making it. */
export function tarballSize(folder = SERVER_PACKAGE): TarballSize {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  const [report] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json'], { cwd: folder, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })) as {
    size: number;
    unpackedSize: number;
    entryCount: number;
  }[];
  return { packed: report!.size, unpacked: report!.unpackedSize, files: report!.entryCount };
}

/**
 * The packages npm installs for `dependencies` (names to versions), and theirs, as package-lock.json resolves them
 * here (a consumer's npm may pick later versions within their ranges), optional ones included.
 */
export function installedPackages(dependencies: readonly string[] = DEPENDENCIES): Map<string, string> {
  const lock = (JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string; dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> }> }).packages;
  const found = new Map<string, string>();
  const visit = (name: string, from: string) => {
    // npm's lookup: node_modules of the requiring package, then of each folder above it.
    let key: string | undefined;
    for (let folder = from; ; folder = folder.replace(/\/?node_modules\/(@[^/]+\/)?[^/]+$/, '')) {
      const candidate = `${folder ? `${folder}/` : ''}node_modules/${name}`;
      if (lock[candidate]) {
        key = candidate;
        break;
      }
      if (!folder) break;
    }
    if (!key) throw new Error(`server-package-size: ${name} (needed by ${from || 'the package'}) is not in package-lock.json`);
    if (found.has(key)) return;
    found.set(key, lock[key]!.version);
    for (const dependency of Object.keys({ ...lock[key]!.dependencies, ...lock[key]!.optionalDependencies })) visit(dependency, key);
  };
  for (const name of dependencies) visit(name, '');
  return new Map([...found].map(([key, version]) => [key.replace(/^.*node_modules\//, ''), version]));
}

/** Bytes of the files under `folder`, leaving out `build/` (a native addon's compilation, which depends on how it was installed). */
function diskSize(folder: string): number {
  let total = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const file = path.join(folder, entry.name);
    if (entry.isDirectory()) total += entry.name === 'build' || entry.name === 'node_modules' ? 0 : diskSize(file);
    else total += statSync(file).size;
  }
  return total;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildServerPackage();
  const size = tarballSize();
  const installed = installedPackages();
  const installedBytes = [...installed.keys()].reduce((sum, name) => sum + diskSize(path.join(root, 'node_modules', name)), 0);
  console.log(`docs-platform-server tarball: ${mb(size.packed)} packed (budget ${mb(PACKED_BUDGET_BYTES)}), ${mb(size.unpacked)} unpacked, ${size.files} files`);
  console.log(
    `installs ${installed.size} packages (budget ${DEPENDENCY_BUDGET}) for its dependencies ${DEPENDENCIES.join(', ')}: ${mb(installedBytes)} on disk, without better-sqlite3's compiled addon`,
  );
  for (const name of DEPENDENCIES) {
    const own = installedPackages([name]);
    console.log(`  ${name}: ${own.size} packages (${[...own.keys()].filter((dependency) => dependency !== name).join(', ')})`);
  }
  if (size.packed > PACKED_BUDGET_BYTES || installed.size > DEPENDENCY_BUDGET) process.exitCode = 1;
}
