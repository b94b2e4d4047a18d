// npm run publish-release -- <version> [--tag <dist-tag>] [--registry <url>]: publishes release <version> of the three
// packages, built from its tagged commit, to the registry npm is configured with. It refuses unless the work tree is
// that commit, and when the registry has <version> of any; it publishes the client first, and a failure midway prints
// the commands that finish it. The steps, and why a command of its own: release/README.md ("Publishing").
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { npmName, pack, PACKAGE_NAMES, sizeText, type Packed } from './pack.ts';
import { listReleases, locations } from '../breaking/files.ts';
import { parseVersion } from '../breaking/gate.ts';

const USAGE = `Usage: npm run publish-release -- <version> [--tag <dist-tag>] [--registry <url>]

Publishes release <version> of docs-platform-contract, docs-platform-conformance and docs-platform-server, built
from the commit tagged v<version> (checked out, nothing changed), to the registry npm is configured with (.npmrc,
npm_config_registry, or --registry), with the dist-tag latest (or --tag). Refused, publishing nothing, when the
registry has <version> of any of them. Run it after the release's commit and tag are reviewed and pushed.

  --tag <dist-tag>    the dist-tag the three get (default: latest)
  --registry <url>    the registry to publish to, instead of npm's configured one

See release/README.md.
`;

function usage(message: string): never {
  process.stderr.write(`publish-release: ${message}\n\n${USAGE}`);
  process.exit(2);
}

function refuse(message: string): never {
  process.stderr.write(`publish-release: refused: ${message}\n`);
  process.exit(1);
}

let parsed: { values: { tag?: string; registry?: string; help?: boolean }; positionals: string[] };
try {
  parsed = parseArgs({
    options: { tag: { type: 'string' }, registry: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
  });
} catch (error) {
  usage(error instanceof Error ? error.message : String(error));
}
if (parsed.values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (parsed.positionals.length !== 1) usage('give exactly one version');
const version = parsed.positionals[0]!;
if (!parseVersion(version)) usage(`${version} is not a version of the form MAJOR.MINOR.PATCH`);
const distTag = parsed.values.tag ?? 'latest';
if (distTag === '' || parseVersion(distTag)) usage(`--tag ${distTag} is not a dist-tag (a name, not a version)`);
const registryArgs = parsed.values.registry ? ['--registry', parsed.values.registry] : [];
const tag = `v${version}`;
const where = locations();

// 1. The tagged commit, checked out as committed, with the dependencies its lockfile names.
const git = (...args: string[]) => spawnSync('git', args, { cwd: where.root, encoding: 'utf8' });
const top = git('rev-parse', '--show-toplevel');
if (top.status !== 0 || realpathSync(top.stdout.trim()) !== realpathSync(where.root)) refuse(`${where.root} is not the top of a git work tree`);
const tagged = git('rev-parse', '--quiet', '--verify', `refs/tags/${tag}^{commit}`);
if (tagged.status !== 0) refuse(`there is no tag ${tag}: a release is published after npm run release -- ${version} made it`);
if (git('rev-parse', 'HEAD').stdout.trim() !== tagged.stdout.trim()) {
  refuse(`the work tree is not the commit tagged ${tag}, which the packages are built from: check it out first (git checkout ${tag})`);
}
const status = git('status', '--porcelain', '--untracked-files=all');
const unclean = status.stdout.split('\n').filter(Boolean);
if (status.status !== 0 || unclean.length > 0) {
  const shown = unclean.slice(0, 10).map((line) => `  ${line}`).join('\n') + (unclean.length > 10 ? `\n  … and ${unclean.length - 10} more` : '');
  refuse(`the work tree has changes to the commit tagged ${tag} (git status), which the packages would be built with:\n${shown}`);
}
if (!listReleases(where.root).some((release) => release.version === version)) refuse(`release ${version} is not recorded in generated/releases/`);
for (const file of [where.packageJson, where.runnerPackageJson]) {
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as { version?: string };
  if (manifest.version !== version) refuse(`${path.relative(where.root, file)} says version ${manifest.version}, not ${version}`);
}
const stale = notAsLocked(where.root);
if (stale.length > 0) {
  refuse(
    `node_modules does not hold what package-lock.json locks, which the packages are built with:\n${stale.slice(0, 10).map((line) => `  ${line}`).join('\n')}` +
      `${stale.length > 10 ? `\n  … and ${stale.length - 10} more` : ''}\nRun npm ci first.`,
  );
}

// 2. The registry: none of the three may have the version yet.
const npm = (args: string[], capture = true) =>
  spawnSync('npm', [...args, ...registryArgs], { cwd: where.root, encoding: 'utf8', stdio: capture ? 'pipe' : ['inherit', 'inherit', 'inherit'] });
const registry = npm(['config', 'get', 'registry']).stdout.trim();
const names = PACKAGE_NAMES.map(npmName);
const present: string[] = [];
for (const name of names) {
  const view = npm(['view', name, 'versions', '--json']);
  if (view.status !== 0) {
    // A name the registry has never seen is one with no version yet.
    if (/\bE404\b/.test(`${view.stdout}${view.stderr}`)) continue;
    refuse(`could not read the versions of ${name} from ${registry}: npm view failed:\n${view.stdout}${view.stderr}`);
  }
  const versions = JSON.parse(view.stdout || '[]') as string | string[];
  if ((Array.isArray(versions) ? versions : [versions]).includes(version)) present.push(name);
}
if (present.length > 0) {
  const missing = names.filter((name) => !present.includes(name));
  refuse(
    `${registry} has ${present.map((name) => `${name}@${version}`).join(', ')} already: a version is published once, ` +
      `so release a new version. Nothing was published.` +
      (missing.length > 0
        ? `\n${missing.map((name) => `${name}@${version}`).join(', ')} ${missing.length === 1 ? 'is' : 'are'} not there: a publication that stopped midway printed the npm publish commands that finish it.`
        : ''),
  );
}

// 3. The tarballs, built from this tree.
const destination = path.join(where.root, '.tmp/publish', version);
rmSync(destination, { recursive: true, force: true });
mkdirSync(destination, { recursive: true });
const tarballs: Packed[] = [];
for (const name of PACKAGE_NAMES) {
  let packed: Packed;
  try {
    packed = pack(name, destination);
  } catch (error) {
    refuse(`packing ${npmName(name)} failed, so nothing was published:\n${error instanceof Error ? error.message : String(error)}`);
  }
  if (!packed.filename.endsWith(`-${version}.tgz`)) refuse(`${packed.filename} is not version ${version}`);
  process.stdout.write(`pack: ${packed.file}: ${sizeText(packed)}, ${packed.entryCount} files\n`);
  tarballs.push(packed);
}

// 4. Each published, the client first; a failure after the first says what was published and how to finish.
const publishArgs = (packed: Packed) => ['publish', packed.file, '--tag', distTag];
const command = (packed: Packed) => ['npm', ...publishArgs(packed), ...registryArgs].join(' ');
for (const [index, packed] of tarballs.entries()) {
  const published = npm(publishArgs(packed), false);
  if (published.status !== 0) {
    const done = names.slice(0, index).map((name) => `${name}@${version}`);
    const rest = tarballs.slice(index);
    process.stderr.write(
      `publish-release: npm publish of ${names[index]}@${version} to ${registry} failed (above). ` +
        (done.length === 0
          ? `Nothing was published.\n`
          : `Published: ${done.join(', ')}; not published: ${names.slice(index).map((name) => `${name}@${version}`).join(', ')}.\n` +
            `Finish the release with the tarballs built from ${tag}, once the cause is fixed:\n${rest.map((tarball) => `  ${command(tarball)}\n`).join('')}`),
    );
    process.exit(1);
  }
}
rmSync(destination, { recursive: true, force: true });
const major = version.split('.')[0];
process.stdout.write(
  `publish-release: published ${names.map((name) => `${name}@${version}`).join(', ')} to ${registry} with the dist-tag ${distTag}.\n` +
    (distTag === 'latest'
      ? `Consumers take it with npm update, or install it with npm install ${names.map((name) => `${name}@^${major}`).join(' ')}\n`
      : `Consumers install it with npm install ${names.map((name) => `${name}@${distTag}`).join(' ')}; npm update takes it once latest names it:\n` +
        names.map((name) => `  npm dist-tag add ${name}@${version} latest${registryArgs.map((arg) => ` ${arg}`).join('')}\n`).join('')),
);

/** Packages package-lock.json locks that node_modules does not hold at that version (optional ones absent aside). */
function notAsLocked(root: string): string[] {
  const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string; link?: boolean; optional?: boolean }>;
  };
  const problems: string[] = [];
  for (const [folder, entry] of Object.entries(lock.packages)) {
    if (!folder.startsWith('node_modules/') || entry.link || !entry.version) continue;
    const manifest = path.join(root, folder, 'package.json');
    if (!existsSync(manifest)) {
      if (!entry.optional) problems.push(`${folder}: missing (locked at ${entry.version})`);
      continue;
    }
    const installed = (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version;
    if (installed !== entry.version) problems.push(`${folder}: ${installed} installed, ${entry.version} locked`);
  }
  return problems;
}
