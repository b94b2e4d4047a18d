// Builds the server package, `docs-platform-server`, in dist/server-package/, which `npm run pack:server` then packs
// (release/pack.ts): the compiled server and its command, the test harness (`docs-platform-server/testing`), the
// contract and what the server reads at run time; no TypeSpec, test tooling or sources. Its layout, and what is
// bundled and what stays a dependency and why: docs/packages.md ("The server package"). To bundle a dependency after
// all (or unbundle one), move it between VENDORED and DEPENDENCIES below; `npm run size:server` shows the effect.
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile, type Plugin } from 'esbuild';
import type { Link, Root } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import { releasedNotes } from '../release/notes.ts';
import { CONTRACT_JSON_PATH, CONTRACT_PATH, contractHash, parseContractYaml } from '../server/http/contract.ts';
import { thirdPartyLicenses } from './build-conformance.ts';
import { writePackageDeclarations } from './declarations.ts';
import { BANNER, BUNDLE_URL, checkContractSchema, checkOneByteSource, EXTERNAL, sourceAddresses } from './build-server.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SERVER_PACKAGE = path.join(root, 'dist/server-package');
export const SERVER_PACKAGE_NAME = 'docs-platform-server';
const at = (file: string) => path.join(SERVER_PACKAGE, file);

/** Packages bundled each into vendor/<name>.cjs, loaded on first use. */
const VENDORED = ['postgres', 'isomorphic-git', 'turndown', 'turndown-plugin-gfm'];
/** Packages the package depends on (installed by npm into the consumer's project). */
export const DEPENDENCIES = ['better-sqlite3', 'pdfkit'];
/** The files of swagger-ui-dist the /docs page serves (server/http/docs-page.ts), and its licenses. */
const SWAGGER_UI_FILES = ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'favicon-16x16.png', 'LICENSE', 'NOTICE', 'swagger-ui-bundle.js.LICENSE.txt'];

interface Manifest {
  name: string;
  version: string;
  license: string;
  engines: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: { typescript: string };
}

const readManifest = (): Manifest => JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as Manifest;

/** The package's package.json: versioned with the client package (the root package.json, set by `npm run release`). */
export function serverManifest(): Record<string, unknown> {
  const manifest = readManifest();
  const pinned = (name: string) => {
    const version = manifest.devDependencies[name] ?? manifest.dependencies[name];
    if (!version) throw new Error(`build-server-package: ${name} is not a dependency of package.json`);
    return version;
  };
  return {
    name: SERVER_PACKAGE_NAME,
    version: manifest.version,
    description:
      'The reference server of the Documentation Platform Management API: the docs-platform-server command, and a harness that starts it, seeded and resettable, for test suites.',
    type: 'module',
    bin: { [SERVER_PACKAGE_NAME]: './dist/server/main.js' },
    exports: {
      './testing': { types: './dist/testing/index.d.ts', default: './dist/testing/index.js' },
      './package.json': './package.json',
    },
    license: manifest.license,
    files: ['dist/', 'generated/', 'server/', 'vendor/', 'THIRD-PARTY-LICENSES.md', 'CHANGELOG.md'],
    engines: manifest.engines,
    dependencies: Object.fromEntries(DEPENDENCIES.map((name) => [name, pinned(name)])),
    // The client package, and the TypeScript the declarations hold on (the client's range: docs/packages.md, "TypeScript").
    peerDependencies: { [manifest.name]: sameMajor(manifest.version), typescript: manifest.peerDependencies.typescript },
    peerDependenciesMeta: { [manifest.name]: { optional: true }, typescript: { optional: true } },
  };
}

/** The range of the versions with the major of `version`: `^1.0.0` for 1.4.2. */
export const sameMajor = (version: string): string => `^${version.split('.')[0]}.0.0`;

/** Requires of vendored packages go to their file under vendor/ (relative to dist/server/, where the bundle is). */
const vendored: Plugin = {
  name: 'vendored',
  setup(builder) {
    const names = new RegExp(`^(${VENDORED.map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`);
    builder.onResolve({ filter: names }, ({ path: name }) => ({ path: `../../vendor/${name}.cjs`, external: true }));
  },
};

/** The harness finds the package's server and the client package (locations.package.ts), not the repository's. */
const packageLocations: Plugin = {
  name: 'package-locations',
  setup(builder) {
    builder.onResolve({ filter: /\/locations\.ts$/ }, ({ path: file, resolveDir }) => ({
      path: path.join(resolveDir, file.replace(/locations\.ts$/, 'locations.package.ts')),
    }));
  },
};

const common = { absWorkingDir: root, bundle: true, platform: 'node', target: 'node20', logLevel: 'warning', metafile: true, legalComments: 'none' } as const;
/** For an ES module bundle of CommonJS packages, which call require() for Node's modules. */
const ESM_REQUIRE = ["import { createRequire as __createRequire } from 'node:module';", 'const require = __createRequire(import.meta.url);'].join('\n');

export async function buildServerPackage(): Promise<void> {
  rmSync(SERVER_PACKAGE, { recursive: true, force: true });
  mkdirSync(SERVER_PACKAGE, { recursive: true });
  const metafiles: Metafile[] = [];
  const collect = <T extends { metafile: Metafile }>(result: T) => (metafiles.push(result.metafile), result);

  // The server, as build-server.ts bundles it for `npm start`, from the entry that also exports the harness's
  // in-process server; no source map (the sources are not in the package).
  const server = collect(
    await build({
      ...common,
      entryPoints: ['server/testing/package-entry.ts'],
      outfile: at('dist/server/server.cjs'),
      external: DEPENDENCIES,
      format: 'cjs',
      banner: { js: BANNER },
      define: { 'import.meta.url': BUNDLE_URL },
      supported: { 'dynamic-import': false },
      plugins: [vendored, sourceAddresses],
      minifyWhitespace: true,
      write: false,
    }),
  );
  const unknown = EXTERNAL.filter((name) => ![...VENDORED, ...DEPENDENCIES, 'swagger-ui-dist'].includes(name));
  if (unknown.length > 0) throw new Error(`build-server-package: decide whether to bundle or depend on ${unknown.join(', ')} (VENDORED or DEPENDENCIES)`);
  for (const output of server.outputFiles) {
    checkOneByteSource(output.text, 'the server package bundle');
    mkdirSync(path.dirname(output.path), { recursive: true });
    writeFileSync(output.path, output.contents);
  }
  // The launcher: `npm start`'s entry, with a shebang.
  collect(await build({ ...common, entryPoints: ['server/start/launch.ts'], outfile: at('dist/server/main.js'), format: 'esm', banner: { js: '#!/usr/bin/env node' } }));
  chmodSync(at('dist/server/main.js'), 0o755);
  for (const name of VENDORED) {
    collect(await build({ ...common, entryPoints: [name], outfile: at(`vendor/${name}.cjs`), format: 'cjs', minifyWhitespace: true }));
  }
  collect(
    await build({
      ...common,
      entryPoints: ['server/domain/openapi-validator.worker.js'],
      outfile: at('server/domain/openapi-validator.worker.js'),
      format: 'esm',
      banner: { js: ESM_REQUIRE },
      minifyWhitespace: true,
    }),
  );
  collect(
    await build({
      ...common,
      entryPoints: ['server/testing/index.ts'],
      outfile: at('dist/testing/index.js'),
      format: 'esm',
      plugins: [packageLocations],
    }),
  );
  writeDeclarations();

  // The contract, as YAML and as the JSON start-up reads (build-server.ts).
  const contract = readFileSync(CONTRACT_PATH, 'utf8');
  const document = parseContractYaml(contract) as { openapi?: unknown };
  checkContractSchema(document);
  copy(CONTRACT_PATH);
  mkdirSync(path.dirname(at(path.relative(root, CONTRACT_JSON_PATH))), { recursive: true });
  writeFileSync(at(path.relative(root, CONTRACT_JSON_PATH)), JSON.stringify({ sha256: contractHash(contract), document }));
  for (const engine of ['sqlite', 'postgres']) {
    const folder = `server/store/${engine}/migrations`;
    for (const file of readdirSync(path.join(root, folder))) copy(path.join(root, folder, file));
  }
  const reference = ['server/README.md', ...SERVER_PAGES()];
  for (const page of reference) copy(path.join(root, page));
  const swaggerUi = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  for (const file of SWAGGER_UI_FILES) copy(path.join(swaggerUi, file), `vendor/swagger-ui-dist/${file}`);

  writeFileSync(at('package.json'), `${JSON.stringify(serverManifest(), null, 2)}\n`);
  writeFileSync(at('README.md'), packageReadme());
  for (const page of ['README.md', ...reference]) writeFileSync(at(page), linksInPackage(page, readFileSync(at(page), 'utf8')));
  copyFileSync(path.join(root, 'LICENSE'), at('LICENSE'));
  writeFileSync(at('CHANGELOG.md'), releasedNotes(readFileSync(path.join(root, 'CHANGELOG.md'), 'utf8')));
  writeFileSync(
    at('THIRD-PARTY-LICENSES.md'),
    thirdPartyLicenses(metafiles, 'dist/, server/ and vendor/ bundle these npm packages; vendor/swagger-ui-dist/ holds files of swagger-ui-dist, with its licenses.'),
  );
}

/** The pages of the server's reference, server/docs/*.md, from the repository's root. */
export const SERVER_PAGES = (): string[] =>
  readdirSync(path.join(root, 'server/docs'))
    .filter((file) => file.endsWith('.md'))
    .sort()
    .map((file) => `server/docs/${file}`);

/**
 * The Markdown `text` of the package's file `file` (a path in the package, which has the repository's layout) with
 * each relative link to a file the package does not hold made plain: its text, then the file's path in the
 * repository, as `docs/performance.md (in the repository)` or `limits (\`spec/README.md\` in the repository)`.
 * Links between the files the package holds stay links.
 */
export function linksInPackage(file: string, text: string): string {
  const links: Link[] = [];
  const visit = (node: Root | Root['children'][number]): void => {
    if (node.type === 'link') links.push(node);
    else if ('children' in node) for (const child of node.children) visit(child as Root['children'][number]);
  };
  visit(fromMarkdown(text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }));
  let result = text;
  for (const link of links.reverse()) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(link.url) || link.url.startsWith('//') || link.url.startsWith('#')) continue;
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURI(link.url.split('#', 1)[0]!)));
    if (existsSync(at(target))) continue;
    const [first, last] = [link.children[0], link.children.at(-1)];
    const label = first && last ? text.slice(first.position!.start.offset, last.position!.end.offset) : '';
    const plain = label.replaceAll('`', '') === target ? `${label} (in the repository)` : `${label} (\`${target}\` in the repository)`;
    result = result.slice(0, link.position!.start.offset) + plain + result.slice(link.position!.end.offset);
  }
  return result;
}

/** Copies a file of the repository to the same place in the package (or to `to`). */
function copy(file: string, to = path.relative(root, file)): void {
  mkdirSync(path.dirname(at(to)), { recursive: true });
  copyFileSync(file, at(to));
}

/**
 * The harness's declarations in dist/testing/ (index.d.ts, seed-format.d.ts, coverage.d.ts, coverage-format.d.ts,
 * usage.d.ts, usage-format.d.ts), emitted by tsc from server/testing/index.ts (what is marked @internal left out),
 * with the client's and the contract's types taken from the client package.
 */
function writeDeclarations(): void {
  writePackageDeclarations({
    label: 'build-server-package',
    root,
    entry: path.join(root, 'server/testing/index.ts'),
    scratch: path.join(root, '.tmp/declarations'),
    files: [
      ['server/testing/index.d.ts', at('dist/testing/index.d.ts')],
      ['server/start/seed-format.d.ts', at('dist/testing/seed-format.d.ts')],
      ['server/testing/coverage.d.ts', at('dist/testing/coverage.d.ts')],
      ['conformance/contract/coverage-format.d.ts', at('dist/testing/coverage-format.d.ts')],
      ['server/testing/usage.d.ts', at('dist/testing/usage.d.ts')],
      ['conformance/records/usage-format.d.ts', at('dist/testing/usage-format.d.ts')],
    ],
    specifiers: {
      '../../client/index.ts': 'docs-platform-contract',
      '../start/seed-format.ts': './seed-format.js',
      '../../generated/schema.d.ts': 'docs-platform-contract',
      './coverage.ts': './coverage.js',
      '../../conformance/contract/coverage-format.ts': './coverage-format.js',
      './usage.ts': './usage.js',
      '../../conformance/records/usage-format.ts': './usage-format.js',
    },
    packages: true,
  });
}

/**
 * What the package's README says after its install command, unless README.md's section says it already: deny
 * better-sqlite3's npm-inferred install script in the consumer's package.json (docs/packages.md, "Install scripts").
 * test/tooling/server-package.test.ts runs its `npm pkg set` line in the consumer's project before installing.
 */
export const ALLOW_SCRIPTS_NOTE = `First, before that install, deny better-sqlite3's install script in the project's package.json:

\`\`\`sh
npm pkg set allowScripts.better-sqlite3=false --json
\`\`\`

better-sqlite3, the server's SQLite driver, holds its compiled Node-API binaries (Linux, macOS and Windows, x64 and
arm64), one for every Node: nothing is compiled. It also holds its sources and a \`binding.gyp\`, for which npm gives it
an install script, \`node-gyp rebuild\`, and runs it whenever it installs from a lockfile (\`npm ci\`, \`npm install\`
in a new clone), its \`"gypfile": false\` notwithstanding (npm/cli#3341). That build makes nothing where a binary is
there, yet needs Python, make and Node's headers, which node-gyp downloads from nodejs.org (an install fails where
nodejs.org cannot be reached), and npm 11 lists it at every install among the install scripts not covered by
\`allowScripts\`. Denied, it does not run, and the install takes seconds.`;

/** The package's README: the section of README.md on developing and testing against the server. */
export function packageReadme(): string {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Develop and test against the server');
  if (start < 0) throw new Error('build-server-package: README.md has no section "## Develop and test against the server"');
  const end = readme.indexOf('\n## ', start + 1);
  let section = readme
    .slice(start + 1, end < 0 ? undefined : end)
    .replace(/^## .*/, `# ${SERVER_PACKAGE_NAME}`)
    .replace(/<!-- (readme|consumer)-test[^>]*-->\n/g, '')
    .trim();
  if (!section.includes('allowScripts')) {
    // After the block holding the install command.
    const install = /^```sh\n(?:.*\n)*?npm install .*\n(?:.*\n)*?```$/m.exec(section);
    if (!install) throw new Error('build-server-package: the section "Develop and test against the server" of README.md has no sh block with its npm install line');
    const after = install.index + install[0].length;
    section = `${section.slice(0, after)}\n\n${ALLOW_SCRIPTS_NOTE}${section.slice(after)}`;
  }
  return `${section}\n\nThe server's configuration, seed format and behaviour: [server/README.md](server/README.md) and its pages.\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildServerPackage();
  console.log(`build-server-package: ${path.relative(root, SERVER_PACKAGE)}`);
}
