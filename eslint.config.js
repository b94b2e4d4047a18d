// Lint rules that the type checker cannot state, on every folder of the repository (`npm run lint`, part of
// `npm run check`):
// - every promise is awaited or handled. The server is asynchronous end to end (its store's API is), and so are the
//   tools around it (the conformance runner, the gate, the scripts, the tests): a call whose promise is dropped would
//   run outside the transaction or the step it was written for, or fail unseen;
// - no function over 150 lines and no module over 800 (FUNCTION_SIZE and MODULE_SIZE below);
// - the server's layers (LAYERS below): a module imports from its own layer and from the layers its layer names, all
//   below it. server/docs/code.md's table of the layers is checked against LAYERS, and the repository's folders
//   against REPOSITORY_LAYERS (test/tooling/layers.test.ts).
import tseslint from 'typescript-eslint';

/**
 * The server's layers, from the outside in: each is one or more folders under server/ (every folder below them
 * included), and imports only from the layers it names, all of them below it. server/main.ts, the command's entry, is
 * the one module outside a folder. Type-only imports count: a layer that names another's types depends on it.
 */
export const LAYERS = [
  {
    name: 'testing',
    role: "the test harness (`docs-platform-server/testing`): starts the server in process or as a child, its coverage report and usage record",
    folders: ['testing'],
    modules: [],
    imports: ['start', 'handlers', 'speed', 'http', 'domain', 'content', 'jobs', 'auth', 'context', 'store', 'common', 'net'],
  },
  {
    name: 'start',
    role: 'the process: the command and its flags, start-up and shutdown, the Express app put together, seeding, the background job kinds, the harness\'s side of its IPC channel',
    folders: ['start'],
    modules: ['main.ts'],
    imports: ['handlers', 'speed', 'http', 'domain', 'content', 'jobs', 'auth', 'context', 'store', 'common', 'net'],
  },
  {
    name: 'handlers',
    role: "HTTP shapes only: an operation's parameters and body in, its status and body out, through the domain",
    folders: ['handlers'],
    modules: [],
    imports: ['http', 'domain', 'content', 'jobs', 'auth', 'context', 'common', 'net'],
  },
  {
    name: 'speed',
    role: 'the speed mechanisms over Express and the validator: the HTTP server, the JSON writer, the validator fast path, writes sent together',
    folders: ['speed'],
    modules: [],
    imports: ['http', 'context', 'store', 'common', 'net'],
  },
  {
    name: 'http',
    role: 'the contract and HTTP: routes and their rules, the handler types, validation, errors, pagination, the list-page cache, example answers, /health and /docs',
    folders: ['http'],
    modules: [],
    imports: ['domain', 'content', 'jobs', 'auth', 'context', 'store', 'common', 'net'],
  },
  {
    name: 'domain',
    role: 'the rules: permissions, the effects of each operation, and what they present',
    folders: ['domain'],
    modules: [],
    imports: ['content', 'jobs', 'auth', 'context', 'store', 'common', 'net'],
  },
  {
    name: 'content',
    role: "a space's content as documents: the model, Markdown, edits, merges, search, imports, Git files, PDF",
    folders: ['content'],
    modules: [],
    imports: ['jobs', 'auth', 'context', 'store', 'common', 'net'],
  },
  {
    name: 'jobs',
    role: 'the background job runner: queued work that survives restarts',
    folders: ['jobs'],
    modules: [],
    imports: ['auth', 'context', 'store', 'common', 'net'],
  },
  {
    name: 'auth',
    role: 'who the caller is (tokens) and what their roles allow',
    folders: ['auth'],
    modules: [],
    imports: ['context', 'store', 'common', 'net'],
  },
  {
    name: 'context',
    role: 'what a request and a job share: the store and its handle for one unit of work, the configuration, the clock, the log',
    folders: ['context'],
    modules: [],
    imports: ['store', 'common', 'net'],
  },
  {
    name: 'store',
    role: 'SQL: the two engines, their migrations, one module per table group, and the parsers of stored values',
    folders: ['store'],
    modules: [],
    imports: ['common', 'net'],
  },
  {
    name: 'common',
    role: 'what every layer may use: errors, ids, the clock, text, JSON limits, contract types, paging cursors, configuration, deep freeze',
    folders: ['common'],
    modules: [],
    imports: ['net'],
  },
  {
    name: 'net',
    role: 'outbound requests: every request the server makes to another host',
    folders: ['net'],
    modules: [],
    imports: [],
  },
];

/**
 * The repository's folders as layers, from the outside in, as LAYERS are server/'s: a folder's code imports only from
 * the folders its entry names (test/tooling/layers.test.ts reads every import).
 */
export const REPOSITORY_LAYERS = [
  { folder: 'test', role: 'the tests and what they share (test/support/)', imports: ['bench', 'scripts', 'release', 'breaking', 'server', 'conformance', 'compare', 'client', 'spec-rules', 'generated'] },
  { folder: 'bench', role: 'the benchmarks (`npm run bench`) and timing tools', imports: ['scripts', 'release', 'breaking', 'server', 'conformance', 'compare', 'client', 'generated'] },
  { folder: 'scripts', role: 'build, generate, check, scaffold and the development loop', imports: ['release', 'breaking', 'server', 'conformance', 'compare', 'client', 'spec-rules', 'generated'] },
  { folder: 'release', role: 'releases: release notes, the changelog, the release command, packing, publishing, the upgrade check and its fixtures', imports: ['breaking', 'server', 'conformance', 'compare', 'client', 'generated'] },
  { folder: 'spec-rules', role: "the contract's TypeSpec linter rules (breaking-change runs the gate's code, bundled)", imports: ['breaking'] },
  { folder: 'breaking', role: 'the breaking-change gate (it judges consumers by their usage records with conformance\'s judgement)', imports: ['conformance', 'compare', 'generated'] },
  { folder: 'server', role: 'the reference server and its test harness', imports: ['conformance', 'client', 'generated'] },
  { folder: 'conformance', role: 'the conformance runner, its proxy, usage records and can-i-deploy (which judges a change with the comparison)', imports: ['compare', 'client', 'generated'] },
  { folder: 'compare', role: 'the comparison of two OpenAPI documents and its rules, shared by the gate and can-i-deploy', imports: [] },
  { folder: 'client', role: 'the typed client', imports: ['generated'] },
  { folder: 'generated', role: 'what `npm run generate` writes from spec/', imports: [] },
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
const FOLDERS = ['server', 'client', 'conformance', 'compare', 'breaking', 'release', 'bench', 'scripts', 'spec-rules', 'test'];
const CODE = [`{${FOLDERS.join(',')}}/**/*.{ts,mts,cts,js,mjs}`, 'vitest.config.ts', 'vitest.quick.config.ts'];

/**
 * The sizes a function and a module may reach, every line counted (comments, blank lines, and a function's nested
 * functions with it): past them a function holds parts that cannot be read or tested alone, and a module several
 * concerns. A data table (a list of rules, of fixtures) is read entry by entry and may be given its own limit here,
 * with its reason; none needs one now (compare/rules.ts, the gate's rule table, is within the limit).
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
  { ignores: ['generated/**', '**/dist/**', 'coverage/**', 'data/**', '.tmp/**', '.data/**', '.stryker-tmp/**', '.mutation/**', '**/node_modules/**'] },
  {
    files: CODE,
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true },
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
