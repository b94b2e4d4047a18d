// Builds what `npm start` runs: server/main.ts and everything it imports, bundled by esbuild into one ES module,
// dist/server/main.js, with the packages left as imports of node_modules (npm runs it as part of `prepare`, so
// `npm ci` leaves a startable server). Running compiled JavaScript spares every start the run-time TypeScript
// transpilation of tsx (seconds); tsx stays for development and the tests.
//
// It also writes the contract as JSON (dist/server/openapi.json), which start-up reads instead of parsing the YAML
// as long as the YAML has not changed since (server/http/contract.ts). The contract is first checked against the
// OpenAPI schema as express-openapi-validator checks it at start-up (`validateApiSpec`); the build fails on a
// document the validator would refuse, and a start from the copy skips the check (server/app.ts).
//
// Files the server reads beside its sources (the migrations, generated/openapi.yaml, the OpenAPI validator's worker)
// are found from `import.meta.url`, which in a bundle is the bundle's address. Each source file's `import.meta.url`
// is therefore replaced by its own address in the source tree, computed from the bundle's: every such path resolves
// as it does under tsx, whatever file computes it.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { OpenAPISchemaValidator } from 'express-openapi-validator/dist/framework/openapi.schema.validator.js';
import { CONTRACT_JSON_PATH, CONTRACT_PATH, contractHash, parseContractYaml } from '../server/http/contract.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SERVER_ENTRY = path.join(root, 'dist/server/main.js');
const outDir = path.dirname(SERVER_ENTRY);

const sourceAddresses: Plugin = {
  name: 'source-addresses',
  setup(builder) {
    builder.onLoad({ filter: /\.ts$/ }, async ({ path: file }) => {
      const source = await readFile(file, 'utf8');
      const relative = path.relative(outDir, file).split(path.sep).join('/');
      const address = `new URL(${JSON.stringify(relative)}, import.meta.url).href`;
      return { contents: source.replaceAll('import.meta.url', address), loader: 'ts' };
    });
  },
};

/**
 * Packages left in node_modules: better-sqlite3 (a native addon), and what the server loads on first use (`import()`
 * where needed: PDF export, Git repositories, HTML conversion), whose code a start should not even parse.
 */
const EXTERNAL = ['better-sqlite3', 'pdfkit', 'isomorphic-git', 'turndown', 'turndown-plugin-gfm', 'swagger-ui-dist'];

/** CommonJS packages in an ES module bundle call `require` (of node: modules, of JSON): give them Node's. */
const REQUIRE_SHIM = "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);";

/** Throws, listing what is wrong, when express-openapi-validator's start-up check (`validateApiSpec`) refuses `document`. */
export function checkContractSchema(document: object & { openapi?: unknown }): void {
  const validator = new OpenAPISchemaValidator({ version: String(document.openapi), validateApiSpec: true });
  const errors = validator.validate(document as never).errors ?? [];
  if (errors.length > 0) {
    const lines = errors.slice(0, 10).map((error) => `  ${error.instancePath || '/'}: ${error.message}`);
    throw new Error(`the contract is not a valid OpenAPI ${String(document.openapi)} document:\n${lines.join('\n')}`);
  }
}

/** Builds dist/server/main.js (and its source map), replacing the files at once so that a running start never reads half a file. */
export async function buildServer(): Promise<void> {
  const result = await build({
    absWorkingDir: root,
    entryPoints: ['server/main.ts'],
    outfile: SERVER_ENTRY,
    bundle: true,
    // Packages are bundled too (module resolution and loading of some 400 files was a fifth of a start), but for
    // those that must stay files of node_modules: a native addon, and packages loaded on first use only.
    external: [...EXTERNAL],
    banner: { js: REQUIRE_SHIM },
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    sourcesContent: false,
    plugins: [sourceAddresses],
    write: false,
    logLevel: 'warning',
  });
  mkdirSync(outDir, { recursive: true });
  const contract = readFileSync(CONTRACT_PATH, 'utf8');
  const document = parseContractYaml(contract) as { openapi?: unknown };
  checkContractSchema(document);
  const outputs = [
    ...result.outputFiles.map((output) => ({ path: output.path, contents: output.contents as Uint8Array | string })),
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
 * Whether this run is the `prepare` of `npm pack` or `npm publish`: they make the client package, which holds no
 * server (package.json's `files`), so the build is skipped there (about 1 s of the 7 `npm pack` took).
 * `npm ci`, `npm install` and `npm run build:server` build it.
 */
const packingTheClient = () =>
  process.env.npm_lifecycle_event === 'prepare' && (process.env.npm_command === 'pack' || process.env.npm_command === 'publish');

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (packingTheClient()) {
    console.log(`build-server: skipped: npm ${process.env.npm_command} makes the client package, which holds no server`);
  } else {
    await buildServer();
    console.log(`build-server: ${path.relative(root, SERVER_ENTRY)}`);
  }
}
