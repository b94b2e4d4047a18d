// The contract's rules (spec-rules/, the TypeSpec linter library tspconfig.yaml enables): each on a small contract
// that satisfies every rule and on one that breaks it, through the compiler's linter-rule tester
// (`@typespec/compiler/testing`); then the repository's tspconfig.yaml in a small project, as `npm run generate`
// (and so `npm run dev` and `npm run check`) compiles it and as the editor's language server reports it.
// @needs processes
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createLinterRuleTester, createTester } from '@typespec/compiler/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { contractCompiler } from '../../scripts/generate.ts';
import { $linter } from '../../spec-rules/index.js';
import { patternBounds } from '../../spec-rules/rules/path-parameter-bounded.js';
import { repoRoot } from '../support/repo.ts';

const LIBRARY = 'docs-platform-spec-rules';

const Tester = createTester(repoRoot, { libraries: ['@typespec/http', '@typespec/openapi'] })
  .importLibraries()
  .using('Http', 'OpenAPI');

/** The linter-rule tester of one rule of the library. */
async function ruleTester(name: string) {
  const rule = $linter.rules.find((candidate) => candidate.name === name);
  if (!rule) throw new Error(`no rule ${name} in spec-rules/`);
  return createLinterRuleTester(await Tester.createInstance(), rule, LIBRARY);
}

/**
 * A contract that every rule passes: a paged list, a read of a resource, an update with a body, each with its id, doc
 * comment, summary, example and errors, the way spec/ writes them.
 */
const VALID = `
@service(#{ title: "Teams" })
namespace Teams;

model ErrorEnvelope { code: int32; message: string; }
@error model BadRequestError { @statusCode statusCode: 400; @body body: ErrorEnvelope; }
@error model UnauthorizedError { @statusCode statusCode: 401; @body body: ErrorEnvelope; }
@error model ForbiddenError { @statusCode statusCode: 403; @body body: ErrorEnvelope; }
@error model NotFoundError { @statusCode statusCode: 404; @body body: ErrorEnvelope; }
@error model PayloadTooLargeError { @statusCode statusCode: 413; @body body: ErrorEnvelope; }
@error model UnsupportedMediaTypeError { @statusCode statusCode: 415; @body body: ErrorEnvelope; }
alias CallerErrors = BadRequestError | UnauthorizedError;
alias ResourceErrors = BadRequestError | UnauthorizedError | ForbiddenError | NotFoundError;
alias BodyErrors = PayloadTooLargeError | UnsupportedMediaTypeError;

model List<Item> { next?: string; count: int32; items: Item[]; }
alias PagingParameters = {
  @query @maxLength(2048) page?: string;
  @query @minValue(1) @maxValue(1000) limit?: int32;
};

model Team { id: string; title: string; }
model TeamList is List<Team>;
alias TeamPath = { @path @maxLength(128) teamId: string; };

/** List the teams. */
@summary("List the teams")
@operationId("listTeams")
@opExample(#{ returnType: #{ count: 0, items: #[] } })
@route("/teams")
@get
op listTeams(...PagingParameters): TeamList | CallerErrors;

/** Get a team. */
@summary("Get a team")
@operationId("getTeam")
@opExample(#{ parameters: #{ teamId: "t1" }, returnType: #{ id: "t1", title: "Writers" } })
@route("/teams/{teamId}")
@get
op getTeam(...TeamPath): Team | ResourceErrors;

/** Rename a team. */
@summary("Rename a team")
@operationId("updateTeam")
@opExample(#{ parameters: #{ teamId: "t1", body: #{ title: "Editors" } }, returnType: #{ id: "t1", title: "Editors" } })
@route("/teams/{teamId}")
@patch
op updateTeam(...TeamPath, @body body: { title: string }): Team | ResourceErrors | BodyErrors;
`;

/** VALID with each `[from, to]` applied: `from` (which must occur exactly once) replaced by `to`. */
function breaking(...edits: [from: string, to: string][]): string {
  let code = VALID;
  for (const [from, to] of edits) {
    expect(code.split(from), `the contract holds ${JSON.stringify(from)} once`).toHaveLength(2);
    code = code.replace(from, to);
  }
  return code;
}

/** VALID with one more operation, whose path parameter is `parameter`, and the types it needs. */
const withPathParameter = (parameter: string, types = '') => `${VALID}
${types}
/** Get a thing. */
@summary("Get a thing")
@operationId("getThing")
@route("/things/{thingId}")
@get
op getThing(${parameter}): Team | ResourceErrors;
`;

test('the library has the rules spec/README.md lists, each with its own name', () => {
  expect($linter.rules.map((rule) => rule.name).sort()).toEqual(
    ['breaking-change', 'common-errors', 'deprecation', 'list-paging', 'operation-doc', 'operation-example', 'operation-id', 'operation-summary', 'path-parameter-bounded', 'resource-errors'],
  );
});

describe.each($linter.rules.map((rule) => rule.name))('%s', (name) => {
  test('passes the valid contract', async () => {
    await (await ruleTester(name)).expect(VALID).toBeValid();
  });
});

describe('operation-id', () => {
  test('names an operation without @operationId', async () => {
    await (await ruleTester('operation-id')).expect(breaking(['@operationId("getTeam")\n', ''])).toEmitDiagnostics({
      code: `${LIBRARY}/operation-id`,
      message: 'Operation `getTeam` has no operation id: add @operationId("verbNoun") (camelCase, unique; spec/README.md, "Operations").',
    });
  });

  test('names an operation of an interface by its interface', async () => {
    const code = `${VALID}
interface Reads {
  /** Read a team. */
  @summary("Read a team")
  @route("/reads/{teamId}")
  @get
  get(...TeamPath): Team | ResourceErrors;
}
`;
    await (await ruleTester('operation-id')).expect(code).toEmitDiagnostics({ code: `${LIBRARY}/operation-id`, message: /^Operation `Reads\.get` has no operation id/ });
  });
});

describe('operation-doc', () => {
  test('names an operation without a doc comment', async () => {
    await (await ruleTester('operation-doc')).expect(breaking(['/** Get a team. */\n', ''])).toEmitDiagnostics({
      code: `${LIBRARY}/operation-doc`,
      message: 'Operation `getTeam` has no doc comment: add /** … */ above it, saying what it does.',
    });
  });
});

describe('operation-summary', () => {
  test('names an operation without @summary', async () => {
    await (await ruleTester('operation-summary')).expect(breaking(['@summary("Get a team")\n', ''])).toEmitDiagnostics({
      code: `${LIBRARY}/operation-summary`,
      message: 'Operation `getTeam` has no summary: add @summary("…"), a short title without a final period.',
    });
  });
});

describe('operation-example', () => {
  test('names an operation without @opExample', async () => {
    const code = breaking(['@opExample(#{ parameters: #{ teamId: "t1" }, returnType: #{ id: "t1", title: "Writers" } })\n', '']);
    await (await ruleTester('operation-example')).expect(code).toEmitDiagnostics({
      code: `${LIBRARY}/operation-example`,
      message: /^Operation `getTeam` has no example: add @opExample\(/,
    });
  });

  test('names an operation whose example lacks its request', async () => {
    await (await ruleTester('operation-example')).expect(breaking(['@opExample(#{ parameters: #{ teamId: "t1" }, ', '@opExample(#{ '])).toEmitDiagnostics({
      code: `${LIBRARY}/operation-example`,
      message: /^Operation `getTeam` has an example without its request: add parameters/,
    });
  });
});

describe('list-paging', () => {
  test('an operation answering a page of a list without `limit` is named, with the page it answers', async () => {
    const code = breaking(['@query @minValue(1) @maxValue(1000) limit?: int32;', '']);
    await (await ruleTester('list-paging')).expect(code).toEmitDiagnostics({
      code: `${LIBRARY}/list-paging`,
      message: 'Operation `listTeams` answers a page of a list (`TeamList`) but has no `limit` query parameter: spread ...PagingParameters into its parameters.',
    });
  });

  test('so is one answering List<T> itself, or a model extending it, without any paging parameter', async () => {
    const tester = await ruleTester('list-paging');
    await tester.expect(breaking(['op listTeams(...PagingParameters): TeamList', 'op listTeams(): List<Team>'])).toEmitDiagnostics({
      code: `${LIBRARY}/list-paging`,
      message: /^Operation `listTeams` answers a page of a list \(`List`\) but has no `page` or `limit` query parameter/,
    });
    await tester.expect(breaking(['model TeamList is List<Team>;', 'model TeamList extends List<Team> {}'], ['op listTeams(...PagingParameters)', 'op listTeams()'])).toEmitDiagnostics({
      code: `${LIBRARY}/list-paging`,
      message: /^Operation `listTeams` answers a page of a list \(`TeamList`\)/,
    });
  });

  test('an operation taking `limit` that answers something else than a page of a list is named', async () => {
    await (await ruleTester('list-paging')).expect(breaking(['@opExample(#{ returnType: #{ count: 0, items: #[] } })\n', ''], ['op listTeams(...PagingParameters): TeamList', 'op listTeams(...PagingParameters): Team[]'])).toEmitDiagnostics({
      code: `${LIBRARY}/list-paging`,
      message: 'Operation `listTeams` takes the paging parameter `limit` but does not answer a page of a list: answer List<T> (or a model that `is List<T>`), or drop `limit`.',
    });
  });

  test('a `page` query parameter alone (a page of content) does not make a list', async () => {
    const code = breaking(['op getTeam(...TeamPath): Team', 'op getTeam(...TeamPath, @query @maxLength(128) page?: string): Team']);
    await (await ruleTester('list-paging')).expect(code).toBeValid();
  });
});

describe('path-parameter-bounded', () => {
  test('names a path parameter without a bound once, where it is declared, though two operations take it', async () => {
    await (await ruleTester('path-parameter-bounded')).expect(breaking(['@path @maxLength(128) teamId: string;', '@path teamId: string;'])).toEmitDiagnostics({
      code: `${LIBRARY}/path-parameter-bounded`,
      message: /^Path parameter `teamId` \(of `getTeam`\) has no bound: add @maxLength\(…\)/,
    });
  });

  test.each([
    ['a bounded scalar', '@path thingId: ResourceId', '@maxLength(128) scalar ResourceId extends string;'],
    ['a scalar extending a bounded one', '@path thingId: TeamId', '@maxLength(128) scalar ResourceId extends string; scalar TeamId extends ResourceId;'],
    ['an enumeration', '@path thingId: Kind', 'enum Kind { a, b }'],
    ['a union of literals', '@path thingId: "a" | "b"'],
    ['a fixed-width integer', '@path thingId: int64'],
    ['a fixed-length format', '@path @format("uuid") thingId: string'],
    ['an anchored pattern without unbounded repetition', '@path @pattern("^[a-z]{2,8}-[0-9]{4}$") thingId: string'],
  ])('accepts %s', async (_, parameter, types?: string) => {
    await (await ruleTester('path-parameter-bounded')).expect(withPathParameter(parameter, types)).toBeValid();
  });

  test.each([
    ['an unbounded pattern', '@path @pattern("^[a-z]+$") thingId: string'],
    ['a format of any length', '@path @format("uri") thingId: string'],
    ['a plain integer', '@path thingId: integer'],
  ])('refuses %s', async (_, parameter) => {
    await (await ruleTester('path-parameter-bounded')).expect(withPathParameter(parameter)).toEmitDiagnostics({
      code: `${LIBRARY}/path-parameter-bounded`,
      message: /^Path parameter `thingId` \(of `getThing`\) has no bound/,
    });
  });

  test('a pattern bounds a value when anchored at both ends, without `*`, `+`, `{n,}` or an alternative outside a group', () => {
    const bounded = ['^[a-z]{1,8}$', '^(?:ab|cd)\\d{3}$', '^[*+]{2}$', '^a\\+b$'];
    const unbounded = ['^[a-z]+$', '^a*$', '^a{2,}$', '[a-z]{3}', '^a{3}', 'a{3}$', '^ab$|^c+$', '^a{3}\\$'];
    expect(bounded.filter((pattern) => !patternBounds(pattern)), 'bounded patterns refused').toEqual([]);
    expect(unbounded.filter((pattern) => patternBounds(pattern)), 'unbounded patterns accepted').toEqual([]);
  });
});

describe('common-errors', () => {
  test('names the missing 400 and 401 of an operation', async () => {
    await (await ruleTester('common-errors')).expect(breaking(['TeamList | CallerErrors', 'TeamList'])).toEmitDiagnostics({
      code: `${LIBRARY}/common-errors`,
      message: 'Operation `listTeams` does not declare 400 and 401: add BadRequestError | UnauthorizedError to its answers (every operation answers 400 and 401, and one taking a body 413 and 415 (BodyErrors)).',
    });
  });

  test('names the missing 413 and 415 of an operation taking a body', async () => {
    await (await ruleTester('common-errors')).expect(breaking(['Team | ResourceErrors | BodyErrors', 'Team | ResourceErrors | UnsupportedMediaTypeError'])).toEmitDiagnostics({
      code: `${LIBRARY}/common-errors`,
      message: /^Operation `updateTeam` does not declare 413: add PayloadTooLargeError to its answers/,
    });
  });
});

describe('resource-errors', () => {
  test('names the missing 403 and 404 of an operation addressing a resource by its path', async () => {
    await (await ruleTester('resource-errors')).expect(breaking(['op getTeam(...TeamPath): Team | ResourceErrors', 'op getTeam(...TeamPath): Team | CallerErrors'])).toEmitDiagnostics({
      code: `${LIBRARY}/resource-errors`,
      message: 'Operation `getTeam` does not declare 403 and 404: add ForbiddenError | NotFoundError to its answers (it addresses a resource by its path (ResourceErrors)).',
    });
  });

  test('an operation without a path parameter addresses none', async () => {
    // listTeams answers CallerErrors in VALID already; so does this read of the caller's own record.
    const code = `${VALID}
/** Get the caller. */
@summary("Get the caller")
@operationId("getCaller")
@route("/me")
@get
op getCaller(): Team | CallerErrors;
`;
    await (await ruleTester('resource-errors')).expect(code).toBeValid();
  });
});

describe('in a project with the repository\'s tspconfig.yaml', () => {
  let project: string;
  let staging: string;
  const main = () => path.join(project, 'spec/main.tsp');
  const write = (contract: string) => writeFileSync(main(), `import "@typespec/http";\nimport "@typespec/openapi";\nusing Http;\nusing OpenAPI;\n${contract}`);
  /** The 1-based line of spec/main.tsp that holds `text` (once), as written by `write`. */
  const lineOf = (contract: string, text: string) => {
    expect(contract.split(text), `the contract holds ${JSON.stringify(text)} once`).toHaveLength(2);
    return 4 + contract.slice(0, contract.indexOf(text)).split('\n').length;
  };

  beforeAll(() => {
    project = mkdtempSync(path.join(tmpdir(), 'spec-rules-'));
    staging = path.join(project, 'staging');
    mkdirSync(path.join(project, 'spec'));
    mkdirSync(staging);
    copyFileSync(path.join(repoRoot, 'tspconfig.yaml'), path.join(project, 'tspconfig.yaml'));
    symlinkSync(path.join(repoRoot, 'node_modules'), path.join(project, 'node_modules'), 'dir');
  });
  afterAll(() => rmSync(project, { recursive: true, force: true }));

  test('`npm run generate` compiles a contract following the rules, and fails on a broken one with an error at its line', { timeout: 60_000 }, async () => {
    const compile = contractCompiler(project);
    write(VALID);
    expect(await compile(staging)).toMatchObject({ diagnostics: '', openapi: expect.stringContaining('operationId: getTeam') });

    const broken = breaking(['@summary("Get a team")\n', ''], ['@path @maxLength(128) teamId: string;', '@path teamId: string;']);
    write(broken);
    const { openapi, diagnostics } = await compile(staging);
    expect(openapi).toBeUndefined();
    const errors = diagnostics.split('\n').filter((line) => / - (error|warning) /.test(line));
    expect(errors).toEqual([
      `spec/main.tsp:${lineOf(broken, 'op getTeam(')}:4 - error ${LIBRARY}/operation-summary: Operation \`getTeam\` has no summary: add @summary("…"), a short title without a final period.`,
      expect.stringMatching(new RegExp(`^spec/main\\.tsp:${lineOf(broken, '@path teamId: string;')}:\\d+ - error ${LIBRARY}/path-parameter-bounded: Path parameter \`teamId\``)),
    ]);
  });

  test('`#suppress` with a reason turns a rule off for the line it precedes', { timeout: 60_000 }, async () => {
    const suppressed = breaking([
      '@summary("Get a team")\n',
      `#suppress "${LIBRARY}/operation-summary" "A test of the directive."\n`,
    ]);
    write(suppressed);
    expect((await contractCompiler(project)(staging)).diagnostics).toBe('');
  });

  test('the editor\'s language server reports a broken rule at its line', { timeout: 90_000 }, async () => {
    const broken = breaking(['@summary("Get a team")\n', '']);
    write(broken);
    const server = languageServer(project);
    try {
      const uri = pathToFileURL(main()).href;
      await server.request('initialize', { processId: process.pid, rootUri: pathToFileURL(project).href, capabilities: {}, workspaceFolders: [{ uri: pathToFileURL(project).href, name: 'project' }] });
      server.notify('initialized', {});
      const published = server.diagnosticsOf(uri);
      server.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'typespec', version: 1, text: readFileSync(main(), 'utf8') } });
      const diagnostics = await published;
      // Severity 1 is an error (LSP's DiagnosticSeverity): tspconfig.yaml's `warn-as-error` holds in the editor too.
      expect(diagnostics.map((diagnostic) => ({ code: diagnostic.code, line: diagnostic.range.start.line + 1, severity: diagnostic.severity }))).toEqual([
        { code: `${LIBRARY}/operation-summary`, line: lineOf(broken, 'op getTeam('), severity: 1 },
      ]);
    } finally {
      await server.close();
    }
  });
});

interface LspDiagnostic {
  code?: string | number;
  severity?: number;
  range: { start: { line: number; character: number } };
  message: string;
}

/** The TypeSpec language server the editor extension starts (`tsp-server --stdio`), in `cwd`, spoken to over LSP. */
function languageServer(cwd: string) {
  const child: ChildProcess = spawn(process.execPath, [path.join(repoRoot, 'node_modules/@typespec/compiler/cmd/tsp-server.js'), '--stdio'], {
    cwd,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let nextId = 1;
  const pending = new Map<number, (result: unknown) => void>();
  const diagnosticWaiters: { uri: string; resolve: (diagnostics: LspDiagnostic[]) => void }[] = [];
  const send = (message: object) => {
    const body = JSON.stringify({ jsonrpc: '2.0', ...message });
    child.stdin!.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  };
  const receive = (message: { id?: number; method?: string; params?: any; result?: unknown }) => {
    if (message.method !== undefined && message.id !== undefined) {
      // A request of the server (configuration, capability registration, progress): answered with nothing.
      const items = message.method === 'workspace/configuration' ? message.params.items.map(() => null) : null;
      send({ id: message.id, result: items });
    } else if (message.method === 'textDocument/publishDiagnostics') {
      for (const waiter of [...diagnosticWaiters]) {
        if (waiter.uri === message.params.uri) {
          diagnosticWaiters.splice(diagnosticWaiters.indexOf(waiter), 1);
          waiter.resolve(message.params.diagnostics);
        }
      }
    } else if (message.id !== undefined) {
      pending.get(message.id)?.(message.result);
      pending.delete(message.id);
    }
  };
  let buffer = Buffer.alloc(0);
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const headerEnd = buffer.indexOf('\r\n\r\n');
      if (headerEnd < 0) return;
      const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, headerEnd).toString())?.[1]);
      if (buffer.length < headerEnd + 4 + length) return;
      const body = buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString();
      buffer = buffer.subarray(headerEnd + 4 + length);
      receive(JSON.parse(body));
    }
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    request(method: string, params: object): Promise<unknown> {
      const id = nextId++;
      send({ id, method, params });
      return new Promise((resolve) => pending.set(id, resolve));
    },
    notify(method: string, params: object): void {
      send({ method, params });
    },
    /** The next diagnostics published for `uri` (the server publishes them after each compile, none as an empty list). */
    diagnosticsOf(uri: string): Promise<LspDiagnostic[]> {
      return new Promise((resolve) => diagnosticWaiters.push({ uri, resolve }));
    },
    async close(): Promise<void> {
      if (child.exitCode === null) {
        await this.request('shutdown', {});
        this.notify('exit', {});
        await exited;
      }
    },
  };
}
