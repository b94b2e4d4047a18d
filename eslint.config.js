// Lint rules that the type checker cannot state, on every folder of the repository (`npm run lint`, part of
// `npm run check`):
// - every promise is awaited or handled. The server is asynchronous end to end (its store's API is), and so are the
//   tools around it (the conformance runner, the gate, the scripts, the tests): a call whose promise is dropped would
//   run outside the transaction or the step it was written for, or fail unseen;
// - no function over 150 lines and no module over 800 (FUNCTION_SIZE and MODULE_SIZE below);
// - the server's layers (LAYERS below): a module imports from its own layer and from the layers its layer names, no
//   other. server/docs/code.md's table of the layers is checked against LAYERS (test/tooling/layers.test.ts).
import tseslint from 'typescript-eslint';

/**
 * The server's layers, from the outside in. Each names its folders (under server/, with every folder below them), its
 * modules at server/'s top level, and the layers it may import from besides itself: the handlers reach the store only
 * through the domain. Type-only imports count: a layer that names another's types depends on it.
 */
export const LAYERS = [
  {
    name: 'app',
    role: 'the process and HTTP: configuration read, Express and its middleware, the contract and its validator, the speed mechanisms, the test harness',
    folders: ['http', 'speed', 'testing'],
    modules: ['app.ts', 'server.ts', 'main.ts', 'launch.ts', 'command-line.ts', 'runtime-check.ts', 'package.ts', 'version.ts', 'data-dir.ts', 'seed.ts', 'seed-schema.ts', 'seed-format.ts'],
    imports: ['handlers', 'domain', 'store', 'foundation'],
  },
  {
    name: 'handlers',
    role: "HTTP shapes only: an operation's parameters and body in, its status and body out, through the domain",
    folders: ['handlers'],
    modules: [],
    imports: ['domain', 'foundation'],
  },
  {
    name: 'domain',
    role: 'the rules: permissions, the effects of each operation, content, background jobs, and what they present',
    folders: ['domain', 'auth', 'content', 'jobs'],
    modules: ['context.ts', 'answers.ts'],
    imports: ['store', 'foundation'],
  },
  {
    name: 'store',
    role: 'SQL: the two engines, their migrations, and one module per table group',
    folders: ['store'],
    modules: [],
    imports: ['foundation'],
  },
  {
    name: 'foundation',
    role: 'what every layer may use: errors, text, JSON limits, the turn end, configuration, outbound requests',
    folders: ['net'],
    modules: ['errors.ts', 'text.ts', 'json-limits.ts', 'turn-end.ts', 'config.ts'],
    imports: [],
  },
];

/** `no-restricted-imports` for the files of `layer` at `depth` folders below server/: every layer it may not import from. */
function layerRule(layer, depth) {
  const up = depth === 0 ? './' : '../'.repeat(depth);
  const closed = LAYERS.filter((other) => other !== layer && !layer.imports.includes(other.name));
  const group = closed.flatMap((other) => [...other.folders.map((folder) => `${up}${folder}/**`), ...other.modules.map((module) => `${up}${module}`)]);
  const names = closed.map((other) => other.name).join(', ');
  return ['error', { patterns: [{ group, message: `the ${layer.name} layer does not import from ${names} (eslint.config.js, LAYERS)` }] }];
}

/** One config per layer and depth: the files of a layer's folders (one and two levels below server/) and its top-level modules. */
const layerConfigs = LAYERS.filter((layer) => layer.imports.length < LAYERS.length - 1).flatMap((layer) => {
  const configs = [];
  if (layer.folders.length > 0) {
    configs.push({ files: layer.folders.map((folder) => `server/${folder}/*.ts`), rules: { 'no-restricted-imports': layerRule(layer, 1) } });
    configs.push({ files: layer.folders.map((folder) => `server/${folder}/*/*.ts`), rules: { 'no-restricted-imports': layerRule(layer, 2) } });
  }
  if (layer.modules.length > 0) configs.push({ files: layer.modules.map((module) => `server/${module}`), rules: { 'no-restricted-imports': layerRule(layer, 0) } });
  return configs;
});

/** The folders linted: all of the repository's code but what is generated (generated/) or built (dist/, conformance/dist/). */
const FOLDERS = ['server', 'client', 'conformance', 'breaking', 'scripts', 'spec-rules', 'test'];
const CODE = [`{${FOLDERS.join(',')}}/**/*.{ts,mts,cts,js,mjs}`, 'vitest.config.ts', 'vitest.quick.config.ts'];

/**
 * The sizes a function and a module may reach, every line counted (comments, blank lines, and a function's nested
 * functions with it): past them a function holds parts that cannot be read or tested alone, and a module several
 * concerns. A data table (a list of rules, of fixtures) is read entry by entry and may be given its own limit here,
 * with its reason; none needs one now (breaking/rules.ts, the gate's rule table, is within the limit).
 *
 * Test files are held too: a file over the limit is split by what its cases prove, what the parts share (a server
 * and its fixture, helpers) in a module of test/support/ that each part calls; a file whose cases share a set-up too
 * costly to repeat (packages published and installed) keeps it, and moves out what is not its cases' own (helpers,
 * the texts of the files it writes).
 */
const FUNCTION_SIZE = { 'max-lines-per-function': ['error', { max: 150 }] };
const MODULE_SIZE = { 'max-lines': ['error', { max: 800 }] };

export default tseslint.config(
  // What is generated or built, and what runs leave behind (.gitignore's folders).
  { ignores: ['generated/**', '**/dist/**', 'coverage/**', 'data/**', '.tmp/**', '.data/**', '**/node_modules/**'] },
  {
    files: CODE,
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    // The code names other rules of typescript-eslint in places (for editors that run its full set): not reported here.
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  { files: CODE, rules: FUNCTION_SIZE },
  { files: CODE, rules: MODULE_SIZE },
  ...layerConfigs,
);
