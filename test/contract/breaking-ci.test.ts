// check:breaking as CI runs it: the command on small documents of its own (YAML and JSON, OpenAPI 3.0 and 3.1) in
// every output format, with --fail-on and --base as a file or a git ref; the command compiled (breaking/check.mjs,
// which the cases run) against the TypeScript one; and where findings are located, in the real TypeSpec sources
// and in a document's lines.
// @needs processes
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, describe, expect, test } from 'vitest';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, stringify, type Node } from 'yaml';
import { compareDocuments, type Finding } from '../../breaking/index.ts';
import { readDocument } from '../../breaking/files.ts';
import { documentLocator, specLocator } from '../../breaking/locate.ts';
import { child, segments } from '../../compare/pointer.ts';
import { openapiPath, repoRoot } from '../support/repo.ts';

/** Each run is a process (0.1 to 0.3 s compiled; a first run builds the bundle, about 0.5 s more). */
const COMMANDS = 120_000;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The gate's command, compiled (`node breaking/check.mjs`), or as TypeScript (`tsx breaking/check.ts`). */
function check(args: string[], { cwd = repoRoot, typescript = false } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const command = typescript ? ['--import', 'tsx', 'breaking/check.ts'] : ['breaking/check.mjs'];
    const child = spawn(process.execPath, [...command, ...args], { cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const dir = mkdtempSync(path.join(tmpdir(), 'breaking-ci-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Doc = Record<string, unknown>;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** A small API: a request body and an answer, both with a field whose constraints the cases change. */
function api(options: { titleMax?: number; sources?: string[]; kinds?: string[]; answerExtra?: boolean; openapi?: string } = {}): Doc {
  const { titleMax = 100, sources = ['website'], kinds = ['a'], answerExtra = false, openapi = '3.1.0' } = options;
  return {
    openapi,
    info: { title: 'Things', version: '1.0.0' },
    paths: {
      '/things': {
        post: {
          operationId: 'createThing',
          tags: ['Things'],
          requestBody: { required: true, content: { 'application/json': { schema: ref('CreateThing') } } },
          responses: { '201': { description: 'Created.', content: { 'application/json': { schema: ref('Thing') } } } },
        },
      },
    },
    components: {
      schemas: {
        CreateThing: {
          type: 'object',
          required: ['title'],
          properties: { title: { type: 'string', maxLength: titleMax }, source: { type: 'string', enum: sources } },
          additionalProperties: false,
        },
        Thing: {
          type: 'object',
          required: ['title'],
          properties: { title: { type: 'string' }, kind: { type: 'string', enum: kinds }, ...(answerExtra ? { extra: { type: 'string' } } : {}) },
        },
      },
    },
  };
}

function file(name: string, document: Doc): string {
  const at = path.join(dir, name);
  writeFileSync(at, name.endsWith('.json') ? `${JSON.stringify(document, null, 2)}\n` : stringify(document));
  return at;
}

const base = file('base.yaml', api());
/** One change of each severity: a client break, an implementation break, a warning and an addition. */
const revision = file('revision.json', api({ titleMax: 50, sources: ['website', 'git'], kinds: ['a', 'b'], answerExtra: true }));
const implementationOnly = file('implementation.yaml', api({ sources: ['website', 'git'] }));
const warningOnly = file('warning.yaml', api({ kinds: ['a', 'b'] }));
/** The base in OpenAPI 3.0's spelling, as JSON. */
const base30 = file('base-3.0.json', api({ openapi: '3.0.3' }));
const swagger = file('swagger.yaml', { swagger: '2.0', info: { title: 'Old', version: '1' }, paths: {} });

const lineOf = (target: string, text: string) => readFileSync(target, 'utf8').split('\n').findIndex((line) => line.includes(text)) + 1;

describe('check:breaking in CI, on any two OpenAPI documents', () => {
  test(
    'every format carries the findings; the gate fails on the client and the implementation break, not on the warning',
    async () => {
      const formats = ['text', 'json', 'markdown', 'junit', 'sarif', 'github'];
      const runs = await Promise.all(formats.map((format) => check(['--base', base, '--revision', revision, '--format', format])));
      const [text, json, markdown, junit, sarif, github] = runs.map((run) => run.stdout);
      for (const [index, run] of runs.entries()) expect(run.status, `${formats[index]}: ${run.stderr}`).toBe(1);

      expect(text).toContain('BREAKING (client) request-property-max-length-decreased  createThing  POST /things  #/components/schemas/CreateThing/properties/title  `CreateThing.title`: maxLength 100 → 50');
      expect(text).toContain('breaks clients in use: shorter values only. To do: Send values no longer than the new maximum.');
      expect(text).toContain('check:breaking: FAILED: 2 undeclared breaking changes (1 for clients, 1 for implementations); 0 breaking declared, 1 warning, 1 non-breaking.');

      const verdict = JSON.parse(json!);
      expect(verdict).toMatchObject({ passed: false, failOn: 'implementation' });
      expect(verdict.judged.map((entry: { finding: Finding; fails: boolean }) => [entry.finding.rule, entry.fails])).toEqual([
        ['request-property-max-length-decreased', true],
        ['request-property-enum-value-added', true],
        ['response-property-enum-value-added', false],
        ['response-property-added', false],
      ]);

      expect(markdown!.startsWith('## check:breaking: FAILED\n')).toBe(true);
      expect(markdown).toContain('| **FAILS** BREAKING (client) | `CreateThing.title`: maxLength 100 → 50 | `request-property-max-length-decreased` |');
      expect(markdown).toContain('```yaml\n- rule: request-property-max-length-decreased');

      expect(XMLValidator.validate(junit!)).toBe(true);
      const suites = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(junit!).testsuites;
      expect([suites.tests, suites.failures]).toEqual(['4', '2']);
      const cases = suites.testsuite.testcase as { name: string; failure?: { type: string }; file?: string; line?: string }[];
      expect(cases.filter((entry) => entry.failure).map((entry) => entry.failure!.type)).toEqual(['request-property-max-length-decreased', 'request-property-enum-value-added']);

      // Another document than the contract: its findings are located at their lines in it.
      const titleLine = lineOf(revision, '"title": {');
      const log = JSON.parse(sarif!);
      expect(log.version).toBe('2.1.0');
      const results = log.runs[0].results as { ruleId: string; level: string; locations: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }[] }[];
      expect(results.map((result) => [result.ruleId, result.level])).toEqual([
        ['request-property-max-length-decreased', 'error'],
        ['request-property-enum-value-added', 'error'],
        ['response-property-enum-value-added', 'warning'],
        ['response-property-added', 'note'],
      ]);
      expect(results[0]!.locations[0]!.physicalLocation.region.startLine).toBe(titleLine);
      expect(results[0]!.locations[0]!.physicalLocation.artifactLocation.uri).toBe(revision);
      expect(log.runs[0].tool.driver.rules.map((rule: { id: string }) => rule.id)).toContain('request-property-max-length-decreased');

      const annotations = github!.trim().split('\n');
      expect(annotations[0]).toMatch(new RegExp(`^::error file=${revision.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')},line=${titleLine},title=BREAKING \\(client\\)%3A request-property-max-length-decreased::\`CreateThing.title\`: maxLength 100 → 50 \\(createThing\\)%0Abreaks clients in use`));
      expect(annotations.map((line) => line.split(' ')[0])).toEqual(['::error', '::error', '::warning', '::notice', 'check:breaking:']);
    },
    COMMANDS,
  );

  test(
    '--fail-on sets what fails: client breaks only, implementation breaks too (the default), or warnings too',
    async () => {
      const cases: [string, string | undefined, number][] = [
        [implementationOnly, 'client', 0],
        [implementationOnly, undefined, 1],
        [warningOnly, 'implementation', 0],
        [warningOnly, 'warning', 1],
        [revision, 'client', 1],
      ];
      const runs = await Promise.all(cases.map(([target, failOn]) => check(['--base', base, '--revision', target, ...(failOn ? ['--fail-on', failOn] : [])])));
      runs.forEach((run, index) => expect(run.status, `${cases[index]!.join(' ')}: ${run.stdout}${run.stderr}`).toBe(cases[index]![2]));
      expect(runs[0]!.stdout).toContain('check:breaking: passed: 0 breaking declared, 1 breaking below --fail-on client, 0 warnings, 0 non-breaking.');
      expect(runs[3]!.stdout).toContain('FAILED: 1 undeclared breaking change (0 for clients, 0 for implementations, 1 warning)');
    },
    COMMANDS,
  );

  test(
    'an OpenAPI 3.0 document and its 3.1 spelling compare equal; a Swagger 2.0 document and bad options are usage errors',
    async () => {
      const [same, old, format, failOn] = await Promise.all([
        check(['--base', base30, '--revision', base]),
        check(['--base', swagger, '--revision', base]),
        check(['--base', base, '--revision', base, '--format', 'html']),
        check(['--base', base, '--revision', base, '--fail-on', 'never']),
      ]);
      expect(same.status, same.stdout).toBe(0);
      expect(same.stdout).toContain('0 differences');
      expect(old.status).toBe(2);
      expect(old.stderr).toContain('is not an OpenAPI 3.0 or 3.1 document (openapi: "2.0")');
      expect(format.status).toBe(2);
      expect(format.stderr).toContain('--format html: expected one of text, json, markdown, junit, sarif, github');
      expect(failOn.status).toBe(2);
      expect(failOn.stderr).toContain('--fail-on never: expected one of client, implementation, warning');
    },
    COMMANDS,
  );

  test(
    '--base and --revision take a git ref (the contract there, or ref:path); an unknown one is a usage error',
    async () => {
      const [atHead, unknown] = await Promise.all([
        check(['--base', 'HEAD', '--revision', 'HEAD:generated/openapi.yaml']),
        check(['--base', 'no-such-ref-for-check-breaking']),
      ]);
      expect(atHead.status, atHead.stderr).toBe(0);
      expect(atHead.stdout).toMatch(/^check:breaking: generated\/openapi\.yaml at HEAD \(\d+\.\d+\.\d+\) against generated\/openapi\.yaml at HEAD: 0 differences/);
      expect(unknown.status).toBe(2);
      expect(unknown.stderr).toContain('--base no-such-ref-for-check-breaking: not a release in generated/releases/, a file, or a git ref');
    },
    COMMANDS,
  );
});

describe('where findings are located', () => {
  const contract = readDocument(openapiPath);
  const spec = specLocator(path.join(repoRoot, 'spec'), repoRoot);
  const sourceLine = (location: { file: string; line: number } | undefined) =>
    location ? readFileSync(path.join(repoRoot, location.file), 'utf8').split('\n')[location.line - 1] : undefined;

  test('in the TypeSpec sources: the property, the enum member, the parameter, the header, the operation', () => {
    const changed = structuredClone(contract) as Record<string, any>;
    const schemas = changed.components.schemas;
    schemas.CreateSpaceRequest.properties.title.maxLength = 100;
    schemas.EditMode.enum = schemas.EditMode.enum.filter((value: string) => value !== 'locked');
    schemas.ImportSource.enum = [...schemas.ImportSource.enum].reverse();
    changed.paths['/v1/spaces/{spaceId}'].get.parameters.find((parameter: { name: string }) => parameter.name === 'spaceId').schema.maxLength = 10;
    changed.paths['/v1/orgs/{organizationId}/spaces'].post.responses['201'].headers.location.required = false;
    changed.paths['/v1/spaces/{spaceId}'].get.deprecated = true;
    schemas.Space.properties.title.deprecated = true;
    const findings = compareDocuments(contract, changed);
    const byRule = (rule: string) => findings.find((finding) => finding.rule === rule)!;

    const lines = {
      title: spec(byRule('request-property-max-length-decreased')),
      mode: spec(byRule('response-property-enum-value-removed')),
      parameter: spec(byRule('request-parameter-max-length-decreased')),
      header: spec(byRule('response-header-became-optional')),
      operation: spec(byRule('operation-deprecated')),
      deprecated: spec(byRule('response-property-deprecated')),
    };
    expect(lines.title?.file).toBe('spec/spaces.tsp');
    expect(sourceLine(lines.title)).toMatch(/^\s*title\??:/);
    expect(sourceLine(lines.mode)).toMatch(/^\s*enum EditMode \{/);
    expect(sourceLine(lines.parameter)).toMatch(/^\s*spaceId: string;/);
    expect(sourceLine(lines.header)).toMatch(/^\s*location: url;/);
    expect(sourceLine(lines.operation)).toMatch(/^\s*get\(\.\.\.SpacePath/);
    expect(sourceLine(lines.deprecated)).toMatch(/^\s*title\??:/);
  });

  test('an enum value added is located at its member when the spec has it', () => {
    const released = structuredClone(contract) as Record<string, any>;
    released.components.schemas.EditMode.enum = ['live'];
    const [finding] = compareDocuments(released, contract).filter((entry) => entry.rule === 'request-property-enum-value-added');
    expect(sourceLine(spec(finding!))).toMatch(/^\s*locked,/);
  });

  test("in a document's text (YAML or JSON): the line of the deepest part of the path it has", () => {
    const yaml = ['openapi: 3.1.0', 'paths:', '  /things:', '    get:', '      operationId: listThings', '      responses:', "        '200':", '          description: OK'].join('\n');
    const locate = documentLocator(yaml, 'api.yaml');
    expect(locate('#/paths/~1things/get/operationId')).toEqual({ file: 'api.yaml', line: 5 });
    expect(locate('#/paths/~1things/get/responses/200')).toEqual({ file: 'api.yaml', line: 7 });
    expect(locate('#/paths/~1things/get/responses/404')).toEqual({ file: 'api.yaml', line: 6 });
    const json = documentLocator(JSON.stringify({ openapi: '3.1.0', paths: { '/a': { get: { parameters: [{ name: 'q' }, { name: 'r' }] } } } }, null, 2), 'api.json');
    expect(json('#/paths/~1a/get/parameters/1')).toEqual({ file: 'api.json', line: 10 });
  });

  /** The line a YAML parser's tree gives a path: the deepest part of it the document holds (what the locator reads without a tree). */
  function parsedLines(text: string): { value: unknown; lineOf: (pointer: string) => number } {
    const lines = new LineCounter();
    const document = parseDocument(text, { lineCounter: lines, uniqueKeys: false });
    const contents = document.contents as Node | null;
    const lineOf = (pointer: string) => {
      let node: Node | null | undefined = contents;
      let offset = node?.range?.[0] ?? 0;
      for (const part of segments(pointer)) {
        if (isMap(node)) {
          const pair = node.items.find((item) => (isScalar(item.key) ? String(item.key.value) : String(item.key)) === part);
          if (!pair) break;
          offset = (isScalar(pair.key) ? pair.key.range?.[0] : undefined) ?? offset;
          node = pair.value as Node | null;
        } else if (isSeq(node)) {
          const item = node.items[Number(part)] as Node | undefined;
          if (!item) break;
          offset = item.range?.[0] ?? offset;
          node = item;
        } else break;
      }
      return lines.linePos(offset).line;
    };
    return { value: document.toJS(), lineOf };
  }

  /** Every JSON path of a value, and one below each that is not there. */
  function everyPath(value: unknown, at = '#', into: string[] = []): string[] {
    into.push(at, `${at}/absent`);
    if (Array.isArray(value)) value.forEach((item, index) => everyPath(item, child(at, index), into));
    else if (value !== null && typeof value === 'object') for (const [key, item] of Object.entries(value)) everyPath(item, child(at, key), into);
    return into;
  }

  test('in YAML and JSON, block and flow style: every path at the line a YAML parser gives it, read without a tree', () => {
    const corners = [
      '%YAML 1.2',
      '---',
      '# indentless sequences, nested sequences, items on the lines below, flow inside block, quoted keys, block scalars, anchors',
      'openapi: 3.1.0',
      "info: {title: \"T\", version: '1.0'}",
      'tags:',
      '- name: a',
      '  description: |',
      '    text: with a colon',
      '    - not an item',
      "- name: 'b''s'",
      '  x: [1, 2, {k: v}]',
      'paths:',
      '  "/a/{id}":',
      '    get:',
      '      parameters:',
      '        - name: q',
      '        -   name: r',
      '            schema:',
      '              type: string',
      '      responses:',
      "        '200':   # ok",
      '          description: >',
      '            folded',
      '          content:',
      '            application/json:',
      '              schema: &thing',
      '                properties:',
      '                  a: {type: string, enum: [x, y]}',
      '                  "b c": {"$ref": "#/x"}',
      '        404: {description: "none, ] or }"}',
      'components:',
      '  schemas:',
      '    L:',
      '      - - nested',
      '        - sequence',
      '      -',
      '        key: value',
    ].join('\n');
    // The contract as it is written (YAML), and the part of it that holds the operations as JSON: every fifth path
    // (a few thousand), which meets every kind of node the contract has.
    const paths = { openapi: '3.1.0', paths: (readDocument(openapiPath) as { paths: unknown }).paths };
    for (const [text, step] of [[corners, 1], [readFileSync(openapiPath, 'utf8'), 5], [JSON.stringify(paths, null, 2), 5]] as const) {
      const parsed = parsedLines(text);
      const locate = documentLocator(text, 'api');
      const sample = everyPath(parsed.value).filter((_, index) => index % step === 0);
      expect(sample.filter((pointer) => locate(pointer)?.line !== parsed.lineOf(pointer))).toEqual([]);
    }
  }, COMMANDS); // thousands of paths located, CPU alone: past vitest's 30 s on a loaded machine
});

describe('the compiled command', () => {
  test(
    'answers what the TypeScript command answers; is built on first use, kept while its sources are the same, rebuilt when one changes',
    async () => {
      const root = mkdtempSync(path.join(tmpdir(), 'breaking-bundle-'));
      try {
        for (const entry of ['breaking', 'compare', 'conformance/judgement', 'conformance/contract', 'conformance/records', 'generated', 'spec', 'package.json']) cpSync(path.join(repoRoot, entry), path.join(root, entry), { recursive: true });
        symlinkSync(path.join(repoRoot, 'node_modules'), path.join(root, 'node_modules'), 'dir');
        const bundle = path.join(root, 'dist/breaking-check.mjs');
        const args = ['--format', 'json'];
        const [compiled, typescript] = await Promise.all([check(args, { cwd: root }), check(args, { cwd: root, typescript: true })]);
        expect(compiled.status, compiled.stderr).toBe(typescript.status);
        expect(compiled.stdout).toBe(typescript.stdout);
        expect(JSON.parse(compiled.stdout).passed).toBe(true);
        expect(existsSync(bundle)).toBe(true);
        const built = statSync(bundle).mtimeMs;

        // A source touched but not changed (a checkout): the same bundle.
        const report = path.join(root, 'breaking/report.ts');
        utimesSync(report, new Date(), new Date(Date.now() + 5_000));
        expect((await check(['--help'], { cwd: root })).stdout).toMatch(/^Usage: npm run check:breaking/);
        expect(statSync(bundle).mtimeMs).toBe(built);

        // A source changed: rebuilt, and the change is in what runs.
        const source = path.join(root, 'breaking/check.ts');
        writeFileSync(source, readFileSync(source, 'utf8').replace('Usage: npm run check:breaking', 'Usage (changed): npm run check:breaking'));
        expect((await check(['--help'], { cwd: root })).stdout).toMatch(/^Usage \(changed\): npm run check:breaking/);
        expect(statSync(bundle).mtimeMs).toBeGreaterThan(built);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
    COMMANDS,
  );
});
