// Builds the runner's package (conformance/package.json, `docs-platform-conformance`): conformance/cli.ts and its npm
// dependencies bundled by esbuild into conformance/dist/docs-conformance.mjs, and the client's recording mode
// (`docs-platform-conformance/recording`) into dist/recording.mjs with its declarations, beside the contract, the
// runner's data files and the bundled packages' licenses: nothing but Node needed. npm runs it as the package's
// `prepare`. How, and why: docs/packages.md ("The runner package").
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions, type Metafile, type Plugin } from 'esbuild';
import { writePackageDeclarations } from './declarations.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CONFORMANCE_PACKAGE = path.join(root, 'conformance');
const outDir = path.join(CONFORMANCE_PACKAGE, 'dist');
export const CONFORMANCE_BIN = path.join(outDir, 'docs-conformance.mjs');
/** The client's recording mode, `docs-platform-conformance/recording` (conformance/package.json's `exports`). */
export const RECORDING_MODULE = path.join(outDir, 'recording.mjs');
/**
 * Files of the repository the bundle may read at run time, copied to the same path under dist/: the contract, the
 * releases' documents, and the data files of conformance/ (JSON other than package.json), whether a source reads or imports them.
 */
const assets = (): string[] => [
  'generated/openapi.yaml',
  // The recorded releases' documents: `can-i-deploy --contract <version>` reads them.
  ...readdirSync(path.join(root, 'generated/releases')).map((version) => `generated/releases/${version}/openapi.yaml`),
  ...readdirSync(CONFORMANCE_PACKAGE, { recursive: true, encoding: 'utf8' })
    .map((file) => file.split(path.sep).join('/'))
    .filter((file) => file.endsWith('.json') && file !== 'package.json' && !/^(dist|node_modules)\//.test(file))
    .map((file) => `conformance/${file}`),
];

const distAddresses: Plugin = {
  name: 'dist-addresses',
  setup(builder) {
    builder.onLoad({ filter: /\.ts$/ }, async ({ path: file }) => {
      const source = await readFile(file, 'utf8');
      if (!source.includes('import.meta.url')) return { contents: source, loader: 'ts' };
      const relative = path.relative(root, file).split(path.sep).join('/');
      if (relative.startsWith('..')) throw new Error(`${file} is outside the repository`);
      const address = `new URL(${JSON.stringify(`./${relative}`)}, import.meta.url).href`;
      return { contents: source.replaceAll('import.meta.url', address), loader: 'ts' };
    });
  },
};

/** CommonJS dependencies (ajv, isomorphic-git) call require() for Node's modules: the ES module's own. */
const ESM_REQUIRE = ["import { createRequire as __createRequire } from 'node:module';", 'const require = __createRequire(import.meta.url);'];

/** Builds conformance/dist/: the bundled command, the recording module and its declarations, and the files they read. */
export async function buildConformance(): Promise<void> {
  rmSync(outDir, { recursive: true, force: true });
  const common: BuildOptions & { metafile: true } = {
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // The packages' licenses go to THIRD-PARTY-LICENSES.md, whole.
    legalComments: 'none',
    metafile: true,
    plugins: [distAddresses],
    logLevel: 'warning',
  };
  const command = await build({ ...common, entryPoints: ['conformance/cli.ts'], outfile: CONFORMANCE_BIN, banner: { js: ['#!/usr/bin/env node', ...ESM_REQUIRE].join('\n') } });
  chmodSync(CONFORMANCE_BIN, 0o755);
  const recording = await build({ ...common, entryPoints: ['conformance/records/recording.ts'], outfile: RECORDING_MODULE, banner: { js: ESM_REQUIRE.join('\n') } });
  writeRecordingDeclarations();
  for (const asset of assets()) {
    mkdirSync(path.dirname(path.join(outDir, asset)), { recursive: true });
    copyFileSync(path.join(root, asset), path.join(outDir, asset));
  }
  writeFileSync(path.join(outDir, 'THIRD-PARTY-LICENSES.md'), thirdPartyLicenses([command.metafile, recording.metafile], 'dist/docs-conformance.mjs and dist/recording.mjs bundle these npm packages.'));
}

/**
 * dist/recording.d.ts and the usage record's types it names, dist/usage-format.d.ts, emitted by tsc from
 * conformance/records/recording.ts. They name nothing of Node's or of the client's package (a client is taken by its methods),
 * so that a consumer's project needs neither @types/node nor a version of the client in step to compile them.
 */
function writeRecordingDeclarations(): void {
  writePackageDeclarations({
    label: 'build-conformance',
    root,
    entry: path.join(root, 'conformance/records/recording.ts'),
    scratch: path.join(root, '.tmp/conformance-declarations'),
    files: [
      ['conformance/records/recording.d.ts', path.join(outDir, 'recording.d.ts')],
      ['conformance/records/usage-format.d.ts', path.join(outDir, 'usage-format.d.ts')],
    ],
    specifiers: { './usage-format.ts': './usage-format.js' },
    packages: false,
  });
}

/** Each npm package the bundles hold, with its version, its license and its license file; `what` heads the list. */
export function thirdPartyLicenses(metafiles: Metafile[], what = 'dist/docs-conformance.mjs bundles these npm packages.'): string {
  const folders = new Set<string>();
  for (const input of metafiles.flatMap((metafile) => Object.keys(metafile.inputs))) {
    const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match) folders.add(path.resolve(root, match[1]!));
  }
  const sections = [...folders]
    .map((folder) => {
      const manifest = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')) as { name: string; version: string; license?: string };
      const file = readdirSync(folder).find((name) => /^(licen[cs]e|copying)(\.|$)/i.test(name));
      const text = file ? readFileSync(path.join(folder, file), 'utf8').trim() : `(no license file; package.json says ${manifest.license ?? 'nothing'})`;
      return { title: `${manifest.name}@${manifest.version}`, body: `License: ${manifest.license ?? 'unknown'}\n\n${text}` };
    })
    .sort((a, b) => a.title.localeCompare(b.title));
  return [
    '# Third-party licenses',
    '',
    what,
    ...sections.flatMap(({ title, body }) => ['', `## ${title}`, '', '```text', body, '```']),
    '',
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildConformance();
  console.log(`build-conformance: ${path.relative(root, CONFORMANCE_BIN)}`);
}
