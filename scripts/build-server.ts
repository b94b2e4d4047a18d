// Builds what `npm start` runs: server/main.ts and everything it imports, bundled by esbuild into one CommonJS file,
// dist/server/server.cjs, the packages left as imports of node_modules (npm runs it in `prepare`), and the contract
// as JSON beside it, checked as the validator checks it at start-up. Why compiled and CommonJS, why no character
// above U+00FF, and how each file's `import.meta.url` stays true: docs/development.md ("The server's build").
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { OpenAPISchemaValidator } from 'express-openapi-validator/dist/framework/openapi.schema.validator.js';
import { CONTRACT_JSON_PATH, CONTRACT_PATH, contractHash, parseContractYaml } from '../server/http/contract.ts';
import { packingTheClient } from './npm-lifecycle.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** What `npm start` runs (built from server/start/launch.ts). */
export const SERVER_ENTRY = path.join(root, 'dist/server/main.js');
const outDir = path.dirname(SERVER_ENTRY);
/** The bundle of the server, which SERVER_ENTRY loads. */
export const SERVER_BUNDLE = path.join(outDir, 'server.cjs');

/** The address of the bundle, for the bundled code's `import.meta.url` (a CommonJS file has none). */
export const BUNDLE_URL = '__bundleUrl';

export const sourceAddresses: Plugin = {
  name: 'source-addresses',
  setup(builder) {
    builder.onLoad({ filter: /\.ts$/ }, async ({ path: file }) => {
      const source = await readFile(file, 'utf8');
      const relative = path.relative(outDir, file).split(path.sep).join('/');
      const address = `new URL(${JSON.stringify(relative)}, ${BUNDLE_URL}).href`;
      return { contents: source.replaceAll('import.meta.url', address), loader: 'ts' };
    });
  },
};

/**
 * Packages left in node_modules: better-sqlite3 (a native addon), and what the server loads on first use (`import()`
 * where needed: PDF export, Git repositories, HTML conversion), whose code a start should not even parse.
 */
export const EXTERNAL = ['better-sqlite3', 'postgres', 'pdfkit', 'isomorphic-git', 'turndown', 'turndown-plugin-gfm', 'swagger-ui-dist'];

export const BANNER = `var ${BUNDLE_URL} = require('node:url').pathToFileURL(__filename).href;`;

/** Throws, listing what is wrong, when express-openapi-validator's start-up check (`validateApiSpec`) refuses `document`. */
export function checkContractSchema(document: object & { openapi?: unknown }): void {
  const validator = new OpenAPISchemaValidator({ version: String(document.openapi), validateApiSpec: true });
  const errors = validator.validate(document as never).errors ?? [];
  if (errors.length > 0) {
    const lines = errors.slice(0, 10).map((error) => `  ${error.instancePath || '/'}: ${error.message}`);
    throw new Error(`the contract is not a valid OpenAPI ${String(document.openapi)} document:\n${lines.join('\n')}`);
  }
}

/** Throws, naming the first few, when `source` holds characters above U+00FF (see the top of this file). */
export function checkOneByteSource(source: string, name: string): void {
  const found: string[] = [];
  for (const match of source.matchAll(/[^\u0000-\u00ff]/gu)) {
    if (found.length === 5) break;
    const at = match.index!;
    const line = source.slice(0, at).split('\n').length;
    found.push(`  line ${line}: ${JSON.stringify(source.slice(Math.max(0, at - 30), at + 10))}`);
  }
  if (found.length > 0) {
    throw new Error(
      `${name} holds characters above U+00FF, which make V8 keep its source at two bytes a character; ` +
        `write them as escapes (\\u2019) in the source:\n${found.join('\n')}`,
    );
  }
}

/**
 * Builds dist/server/server.cjs and dist/server/main.js (with their source maps), replacing the files at once so that
 * a running start never reads half a file.
 */
export async function buildServer(): Promise<void> {
  const common = { absWorkingDir: root, bundle: true, platform: 'node', target: 'node20', sourcemap: 'linked', sourcesContent: false, write: false, logLevel: 'warning' } as const;
  const server = await build({
    ...common,
    entryPoints: ['server/main.ts'],
    outfile: SERVER_BUNDLE,
    // Packages are bundled too (resolving and loading their hundreds of files was a large part of a start), but for
    // those that must stay files of node_modules: a native addon, and packages loaded on first use only.
    external: [...EXTERNAL],
    format: 'cjs',
    banner: { js: BANNER },
    // Packages' own `import.meta.url` is the bundle's, as it was in an ES module bundle.
    define: { 'import.meta.url': BUNDLE_URL },
    // `import()` of the packages loaded on first use becomes `require` (each has a CommonJS entry with the same
    // exports): everything the bundle loads goes through Node's CommonJS loader, as the bundle itself does.
    supported: { 'dynamic-import': false },
    plugins: [sourceAddresses],
    minifyWhitespace: true,
  });
  for (const output of server.outputFiles) if (output.path.endsWith('.cjs')) checkOneByteSource(output.text, path.relative(root, output.path));
  const launcher = await build({ ...common, entryPoints: ['server/start/launch.ts'], outfile: SERVER_ENTRY, format: 'esm' });
  mkdirSync(outDir, { recursive: true });
  const contract = readFileSync(CONTRACT_PATH, 'utf8');
  const document = parseContractYaml(contract) as { openapi?: unknown };
  checkContractSchema(document);
  const outputs = [
    ...[...server.outputFiles, ...launcher.outputFiles].map((output) => ({ path: output.path, contents: output.contents as Uint8Array | string })),
    // The contract as JSON, for a start-up that does not parse YAML (server/http/contract.ts).
    { path: CONTRACT_JSON_PATH, contents: JSON.stringify({ sha256: contractHash(contract), document }) },
  ];
  for (const output of outputs) {
    const temporary = `${output.path}.${process.pid}.tmp`;
    writeFileSync(temporary, output.contents);
    renameSync(temporary, output.path);
  }
}

/**
 * The words of `npm start`'s command after `exec` (`exec node <options> dist/server/main.js` in package.json). The
 * `exec` makes the shell npm runs scripts with (`sh -c`) become node, so the signals npm forwards reach the server.
 */
export function startCommandWords(): string[] {
  const start = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const words = start.split(/\s+/);
  if (words[0] !== 'exec' || words[1] !== 'node' || words.at(-1) !== 'dist/server/main.js' || words.slice(2, -1).some((word) => !word.startsWith('--'))) {
    throw new Error(`package.json's start script is not "exec node [--options] dist/server/main.js": ${start}`);
  }
  return words.slice(1);
}

/** The node options of `npm start`. */
export const startNodeOptions = (): string[] => startCommandWords().slice(1, -1);

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (packingTheClient()) {
    console.log(`build-server: skipped: npm ${process.env.npm_command} makes the client package, which holds no server`);
  } else {
    await buildServer();
    console.log(`build-server: ${path.relative(root, SERVER_ENTRY)}`);
  }
}
