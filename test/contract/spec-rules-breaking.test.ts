// The breaking-change rule (spec-rules/rules/breaking-change.js) through the real `tsp compile`, in a copy of the
// contract with two consumers' records named by tspconfig.yaml: edits that break what the last release promised are
// reported once each at the TypeSpec line they were made, naming the consumers they break (or none), one made in many
// operations as one; declared in spec/breaking-changes.yaml, the same edits are one information line and the compile passes.
// @needs processes
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { compile, NodeHost, resolveCompilerOptions } from '@typespec/compiler';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { stringify } from 'yaml';
import { declarationFor } from '../../breaking/gate.ts';
import { checkAgainstRelease } from '../../breaking/live.ts';
import { emptyOperationUsage, emptyUsage, type UsageRecord } from '../../conformance/records/usage-format.ts';
import { emittedDocument } from '../../spec-rules/rules/breaking-change.js';
import { repoRoot } from '../support/repo.ts';

const run = promisify(execFile);
const RULE = 'docs-platform-spec-rules/breaking-change';
const TSP = path.join(repoRoot, 'node_modules/@typespec/compiler/cmd/tsp.js');

/** The edits, each `[file, from, to]`: `from` occurs once in the file. */
const EDITS: [file: string, from: string, to: string][] = [
  // Role loses `create`, which billing-svc sends in updateMember's body.
  ['common.tsp', '  /** Create content. */\n  create,\n\n', ''],
  // Space.title may be absent, which reader-app reads from getSpace.
  ['spaces.tsp', '  @maxLength(255)\n  title: string;\n\n  /** Emoji of the space;', '  @maxLength(255)\n  title?: string;\n\n  /** Emoji of the space;'],
  // getSpace, which reader-app calls, takes a required parameter (its example gives it).
  ['spaces.tsp', 'get(...SpacePath, ...ShareKeyParameter): Space', 'get(...SpacePath, ...ShareKeyParameter, @query @maxLength(16) flavor: string): Space'],
  ['spaces.tsp', '@summary("Get a space")\n  @opExample(#{\n    parameters: #{ spaceId: "0Vby0wpu00D991cSl5LhmQ" },', '@summary("Get a space")\n  @opExample(#{\n    parameters: #{ spaceId: "0Vby0wpu00D991cSl5LhmQ", flavor: "plain" },'],
  // MemberSort loses `lastSeenAt`: no consumer calls listMembers.
  ['members.tsp', '  /** When the member was last seen; lists only active members. */\n  lastSeenAt,\n\n', ''],
  // The space id in the path of every space operation gets shorter: one change in many operations.
  ['common.tsp', '  @path\n  @maxLength(limitId)\n  spaceId: string;', '  @path\n  @maxLength(64)\n  spaceId: string;'],
];

/** A consumer's record of one operation, as the harness or the client writes it. */
function record(name: string, version: string, operationId: string, fill: (usage: ReturnType<typeof emptyOperationUsage>) => void): UsageRecord {
  const usage = emptyOperationUsage();
  usage.calls = 2;
  fill(usage);
  return { ...emptyUsage({ name, version }, { version: '1.0.0' }, 'client'), operations: { [operationId]: usage } };
}

const CONSUMERS = [
  record('billing-svc', '2.3.0', 'updateMember', (usage) => {
    usage.parameters = { 'path.organizationId': { types: ['string'] }, 'path.userId': { types: ['string'] } };
    usage.body = { '/role': { types: ['string'], values: ['create'] } };
    usage.mediaTypes = ['application/json'];
    usage.bodySchemas = { '': ['UpdateMemberRequest'] };
    usage.responses['200 application/json'] = { present: ['/id', '/role'], schemas: { '': ['Member'] } };
  }),
  record('reader-app', '1.4.0', 'getSpace', (usage) => {
    usage.parameters = { 'path.spaceId': { types: ['string'] } };
    usage.responses['200 application/json'] = { present: ['/id', '/title'], read: ['/title'], schemas: { '': ['Space'] }, promised: { '/title': { required: true } } };
  }),
];

let project: string;
const specFile = (file: string) => path.join(project, 'spec', file);
/** The 1-based line of `text` in a file of the copy's spec/: of its one occurrence, or of its first after `after` (which occurs once). */
function lineOf(file: string, text: string, after?: string): number {
  const content = readFileSync(specFile(file), 'utf8');
  const anchor = after ?? text;
  expect(content.split(anchor), `${file} holds ${JSON.stringify(anchor)} once`).toHaveLength(2);
  const index = content.indexOf(text, content.indexOf(anchor));
  return content.slice(0, index).split('\n').length;
}

/** `tsp compile` in the copy, as a person runs it: exit code, diagnostics (`file:line - severity code: message`) and trace lines. */
async function tspCompile(): Promise<{ code: number; diagnostics: string[]; traces: string[] }> {
  const result = await run(process.execPath, [TSP, 'compile', 'spec/main.tsp', '--no-emit'], { cwd: project, maxBuffer: 64 * 1024 * 1024 }).then(
    (done) => ({ code: 0, output: done.stdout + done.stderr }),
    (failed: { code: number; stdout: string; stderr: string }) => ({ code: failed.code, output: failed.stdout + failed.stderr }),
  );
  // eslint-disable-next-line no-control-regex
  const lines = result.output.replace(/\u001b\[[0-9;]*m/g, '').split('\n');
  return { code: result.code, diagnostics: lines.filter((line) => / - (error|warning) /.test(line)), traces: lines.filter((line) => line.startsWith(`trace ${RULE.replace('/', '.')}:`)) };
}

/**
 * The trace lines of a compile: one per warning the consumers meet (the error statuses every operation declares now,
 * met in updateMember and getSpace: one line each, naming both consumers), then the declared breaks as one line.
 */
function expectInformation(traces: string[], declared: number, consumers = ''): void {
  const prefix = `trace ${RULE.replace('/', '.')}: `;
  expect(traces).toHaveLength(4);
  for (const status of [429, 500, 503]) {
    const lines = traces.filter((line) => line.includes(`status ${status} now declared`));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^trace \S+: spec\/common\.tsp:\d+: WARNING response-status-added: status \d+ now declared \((getSpace, updateMember|updateMember, getSpace)\)\. Warning for consumers: (?:.*billing-svc 2\.3\.0.*reader-app 1\.4\.0|.*reader-app 1\.4\.0.*billing-svc 2\.3\.0)/);
  }
  expect(traces.at(-1)).toBe(`${prefix}declared: ${declared} breaking changes since release 1.0.0${consumers} (npm run check:breaking lists them)`);
}

beforeAll(() => {
  project = mkdtempSync(path.join(tmpdir(), 'spec-rules-breaking-'));
  cpSync(path.join(repoRoot, 'spec'), path.join(project, 'spec'), { recursive: true });
  cpSync(path.join(repoRoot, 'generated/releases'), path.join(project, 'generated/releases'), { recursive: true });
  symlinkSync(path.join(repoRoot, 'node_modules'), path.join(project, 'node_modules'), 'dir');
  const config = readFileSync(path.join(repoRoot, 'tspconfig.yaml'), 'utf8');
  expect(config).toContain('\nlinter:\n  extends:\n');
  writeFileSync(path.join(project, 'tspconfig.yaml'), config.replace('\nlinter:\n  extends:\n', `\nlinter:\n  enable:\n    "${RULE}":\n      consumers: ["consumers"]\n  extends:\n`));
  mkdirSync(path.join(project, 'consumers'));
  for (const consumer of CONSUMERS) writeFileSync(path.join(project, 'consumers', `${consumer.consumer.name}.json`), JSON.stringify(consumer));
  for (const [file, from, to] of EDITS) {
    const content = readFileSync(specFile(file), 'utf8');
    expect(content.split(from), `${file} holds ${JSON.stringify(from)} once`).toHaveLength(2);
    writeFileSync(specFile(file), content.replace(from, to));
  }
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('tsp compile with the breaking-change rule', () => {
  let undeclared: Awaited<ReturnType<typeof tspCompile>>;
  beforeAll(async () => {
    undeclared = await tspCompile();
  }, 120_000);

  /** The diagnostics of the rule at `file:line`. */
  const at = (file: string, line: number) => undeclared.diagnostics.filter((each) => each.startsWith(`spec/${file}:${line}:`) && each.includes(` - error ${RULE}: `));

  test('an enum member a consumer sends, removed: reported at the enum, naming the consumer and what it sends', () => {
    expect(undeclared.code).not.toBe(0);
    const found = at('common.tsp', lineOf('common.tsp', 'enum Role {'));
    expect(found.find((each) => each.includes('request-property-enum-value-removed'))).toMatch(
      /^spec\/common\.tsp:\d+:\d+ - error [^ ]+: BREAKING, undeclared \(client\) request-property-enum-value-removed: .*`UpdateMemberRequest\.role`.*: value "create" removed.*It breaks billing-svc 2\.3\.0 \(updateMember: sent "create" at \/role\)/,
    );
  });

  test('a field a consumer reads made optional: reported at the property, naming the consumer', () => {
    const [found] = at('spaces.tsp', lineOf('spaces.tsp', 'title?: string;', 'model Space {'));
    expect(found).toMatch(/response-property-became-optional: .*It breaks reader-app 1\.4\.0 \(getSpace: .*\/title/);
  });

  test('a required parameter added to an operation a consumer calls: reported at the parameter, naming the consumer', () => {
    const [found] = at('spaces.tsp', lineOf('spaces.tsp', '@query @maxLength(16) flavor: string'));
    expect(found).toMatch(/request-parameter-added-required: .*flavor.*It breaks reader-app 1\.4\.0 \(getSpace: /);
  });

  test('a break no consumer meets names none', () => {
    const [found, ...others] = at('members.tsp', lineOf('members.tsp', 'enum MemberSort {'));
    expect(others).toEqual([]);
    expect(found).toMatch(/request-parameter-enum-value-removed: `sort`: value "lastSeenAt" removed.* It breaks no known consumer\./);
    expect(found).not.toMatch(/It breaks (?!no known consumer)|Warning for consumers/);
  });

  test('a change made in many operations is one diagnostic, its operations counted as the gate counts them', () => {
    const found = at('common.tsp', lineOf('common.tsp', '@maxLength(64)\n  spaceId: string;') + 1);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/BREAKING, undeclared \(client\) request-parameter-max-length-decreased: `spaceId`: maxLength 128 → 64 \(\d{2} operations: Comments \(\d+\), /);
  });

  test('each failing change is reported once; the information is a line per warning a consumer meets, then the declared ones counted', () => {
    const ours = undeclared.diagnostics.filter((each) => each.includes(RULE));
    expect(new Set(ours).size).toBe(ours.length);
    // Role's member (request and answer), Space.title, the flavor parameter, MemberSort's member, the space id.
    expect(ours.length).toBeLessThanOrEqual(7);
    expectInformation(undeclared.traces, 19);
  });

  test('every diagnostic of the rule is at one of the edits', () => {
    const lines = new Set([
      `common.tsp:${lineOf('common.tsp', '@maxLength(64)\n  spaceId: string;') + 1}`,
      `common.tsp:${lineOf('common.tsp', 'enum Role {')}`,
      `spaces.tsp:${lineOf('spaces.tsp', 'title?: string;', 'model Space {')}`,
      `spaces.tsp:${lineOf('spaces.tsp', '@query @maxLength(16) flavor: string')}`,
      `members.tsp:${lineOf('members.tsp', 'enum MemberSort {')}`,
    ]);
    const ours = undeclared.diagnostics.filter((each) => each.includes(RULE));
    expect(ours.filter((each) => !lines.has(/^spec\/([^:]+:\d+):/.exec(each)?.[1] ?? '')), 'elsewhere').toEqual([]);
    expect(undeclared.diagnostics.filter((each) => !each.includes(RULE)), 'other diagnostics').toEqual([]);
  });

  describe('the same edits declared in spec/breaking-changes.yaml', () => {
    let declared: Awaited<ReturnType<typeof tspCompile>>;
    /** How many findings the declarations added accept. */
    let declaredFindings = 0;
    beforeAll(async () => {
      // The declarations check:breaking would print, from the comparison of the document this copy compiles to.
      const main = path.join(project, 'spec/main.tsp');
      const [options] = await resolveCompilerOptions(NodeHost, { entrypoint: main, cwd: project, env: process.env });
      const program = await compile(NodeHost, main, { ...options, noEmit: true, linterRuleSet: { disable: { [RULE]: 'the test compares itself' } } });
      const checked = await checkAgainstRelease(project, (await emittedDocument(program))!);
      const failing = checked.findings.filter((entry) => entry.outcome === 'fails');
      expect(failing.length).toBeGreaterThanOrEqual(4);
      declaredFindings = failing.length;
      const entries = failing.map((entry) => ({ ...declarationFor(entry.finding), reason: 'A test of the rule: the edit is accepted.' }));
      const file = path.join(project, 'spec/breaking-changes.yaml');
      writeFileSync(file, `${readFileSync(file, 'utf8')}${stringify(entries)}`);
      declared = await tspCompile();
    }, 180_000);

    test('is information: the compile passes, and the declared breaks are one trace line, counted, naming the consumers they break', () => {
      expect(declared.diagnostics).toEqual([]);
      expect(declared.code).toBe(0);
      expectInformation(declared.traces, 19 + declaredFindings, ', breaking billing-svc 2.3.0, reader-app 1.4.0');
    });
  });
});

test('a bare `tsp compile` of spec/ writes the document `npm run generate` wrote: the dialect and the deprecations\' paragraphs are the compile\'s own', async () => {
  const out = mkdtempSync(path.join(tmpdir(), 'tsp-emit-'));
  try {
    await run(process.execPath, [TSP, 'compile', 'spec/main.tsp', '--option', `@typespec/openapi3.emitter-output-dir=${out}`], { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 });
    const emitted = readFileSync(path.join(out, 'openapi.yaml'), 'utf8');
    expect(emitted).toContain('\njsonSchemaDialect: ');
    expect(emitted).toContain('Deprecated: ');
    expect(emitted === readFileSync(path.join(repoRoot, 'generated/openapi.yaml'), 'utf8'), 'the emitted document is generated/openapi.yaml').toBe(true);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}, 120_000);
