// Deprecations written once in TypeSpec (`#deprecated` and the library's @deprecatedSince, @sunset, @successor):
// emitted into the document as `deprecated: true`, the description's last paragraph, `x-deprecation` and `x-sunset`,
// checked by the rule `deprecation`, and the seed's two as the contract carries them.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLinterRuleTester, createTester } from '@typespec/compiler/testing';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { contractCompiler } from '../../scripts/generate.ts';
import { describeDeprecations } from '../../spec-rules/document.js';
import { $linter } from '../../spec-rules/index.js';
import { openapiPath, repoRoot } from '../support/repo.ts';
import { emptyOperationUsage, emptyUsage, type UsageRecord } from '../../conformance/records/usage-format.ts';

const LIBRARY = 'docs-platform-spec-rules';

/** A small contract with a deprecated operation, parameter and field, each dated and with its successor. */
const CONTRACT = `
@service(#{ title: "Teams" })
namespace Teams;

model Team {
  id: string;
  title: string;
  /** The team's name. */
  #deprecated "Teams have a title."
  @deprecatedSince("2026-06-01")
  @sunset("2027-01-01")
  @successor(Team.title)
  name?: string;
}

alias TeamQuery = {
  /** The fields to answer. */
  #deprecated "Every field is answered."
  @query
  fields?: string;
};

/** Get a team. */
@operationId("getTeam")
@route("/teams/{teamId}")
@get
op getTeam(@path teamId: string, ...TeamQuery): Team;

/** Read a team. */
#deprecated "Teams are read by id."
@deprecatedSince("2026-06-01")
@sunset("2027-01-01")
@successor(getTeam)
@operationId("readTeam")
@route("/teams/read/{teamId}")
@get
op readTeam(@path teamId: string): Team;
`;

/** A consumer's record: the operations it calls, each with the fields of its 200 answer it reads. */
function usageOf(name: string, calls: Record<string, string[]>): UsageRecord {
  const record = emptyUsage({ name, version: '1.0.0' }, { version: '1.0.0' }, 'client');
  for (const [operationId, read] of Object.entries(calls)) {
    const usage = emptyOperationUsage();
    usage.calls = 1;
    usage.responses['200 application/json'] = { present: read, read, schemas: { '': ['Team'] } };
    record.operations[operationId] = usage;
  }
  return record;
}

const Tester = createTester(repoRoot, { libraries: ['@typespec/http', '@typespec/openapi', LIBRARY] })
  .importLibraries()
  .using('Http', 'OpenAPI', 'DocsPlatform');

async function ruleTester() {
  const rule = $linter.rules.find((candidate) => candidate.name === 'deprecation')!;
  return createLinterRuleTester(await Tester.createInstance(), rule, LIBRARY);
}

/** CONTRACT with each `[from, to]` applied: `from` (which must occur exactly once) replaced by `to`. */
function edited(...edits: [from: string, to: string][]): string {
  let code = CONTRACT;
  for (const [from, to] of edits) {
    expect(code.split(from), `the contract holds ${JSON.stringify(from)} once`).toHaveLength(2);
    code = code.replace(from, to);
  }
  return code;
}

describe('the rule deprecation', () => {
  test('passes deprecations with a reason, dates in order and successors that exist', async () => {
    await (await ruleTester()).expect(CONTRACT).toBeValid();
  });

  test('names a deprecated operation without a reason', async () => {
    await (await ruleTester()).expect(edited(['#deprecated "Teams are read by id."', '#deprecated " "'])).toEmitDiagnostics({
      code: `${LIBRARY}/deprecation`,
      message: /^`readTeam` is deprecated without a reason: write it in `#deprecated "<reason>"`/,
    });
  });

  test('names a date or successor on a declaration that is not deprecated', async () => {
    await (await ruleTester()).expect(edited(['#deprecated "Teams are read by id."\n', ''])).toEmitDiagnostics({
      code: `${LIBRARY}/deprecation`,
      message: /^`readTeam` has a deprecation date, a sunset or a successor but is not deprecated/,
    });
  });

  test.each([
    ['before', '2026-01-01'],
    ['on', '2026-06-01'],
  ])('names a sunset %s the deprecation date', async (_, sunset) => {
    await (await ruleTester()).expect(edited(['@sunset("2027-01-01")\n@successor(getTeam)', `@sunset("${sunset}")\n@successor(getTeam)`])).toEmitDiagnostics({
      code: `${LIBRARY}/deprecation`,
      message: `The sunset of \`readTeam\` (${sunset}) is not after its deprecation date (2026-06-01): a removal is announced before it may happen.`,
    });
  });

  test('names a successor that is not an operation of the service, or of another kind (TypeSpec warns of a reference to a deprecated one)', async () => {
    const outside = edited(['@successor(getTeam)', '@successor(Elsewhere.moved)']) + '\nnamespace Elsewhere { op moved(): void; }\n';
    await (await ruleTester()).expect(outside).toEmitDiagnostics({
      code: `${LIBRARY}/deprecation`,
      message: "The successor of `readTeam`, `moved`, is not an operation of the contract's service with an @operationId: name one its users can move to.",
    });
    await (await ruleTester()).expect(edited(['@successor(getTeam)', '@successor(Team.title)'])).toEmitDiagnostics({
      code: `${LIBRARY}/deprecation`,
      message: /^The successor of `readTeam`, `Team\.title`, is a field, where a deprecated operation is replaced by an operation/,
    });
  });

  test('a date that is not a day of the calendar is an error at the decorator', async () => {
    const [, diagnostics] = await (await Tester.createInstance()).compileAndDiagnose(edited(['@sunset("2027-01-01")\n@successor(getTeam)', '@sunset("2027-02-30")\n@successor(getTeam)']));
    expect(diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.message])).toEqual([[`${LIBRARY}/invalid-date`, '`2027-02-30` is not a date: write it as YYYY-MM-DD (2027-01-31).']]);
  });
});

describe('emitted, in a project with the repository\'s tspconfig.yaml', () => {
  let project: string;
  beforeAll(() => {
    project = mkdtempSync(path.join(tmpdir(), 'deprecation-'));
    mkdirSync(path.join(project, 'spec'));
    mkdirSync(path.join(project, 'staging'));
    // The repository's tspconfig.yaml, its breaking-change rule given the consumers' records of consumers/.
    const config = readFileSync(path.join(repoRoot, 'tspconfig.yaml'), 'utf8');
    const extended = '    - "docs-platform-spec-rules/all"\n';
    expect(config.split(extended)).toHaveLength(2);
    writeFileSync(path.join(project, 'tspconfig.yaml'), config.replace(extended, `${extended}  enable:\n    "${LIBRARY}/breaking-change":\n      consumers: ["consumers/"]\n`));
    mkdirSync(path.join(project, 'consumers'));
    writeFileSync(path.join(project, 'consumers/reader.json'), JSON.stringify(usageOf('reader-app', { readTeam: [], getTeam: ['/name'] })));
    writeFileSync(path.join(project, 'consumers/writer.json'), JSON.stringify(usageOf('writer-app', { getTeam: ['/title'] })));
    symlinkSync(path.join(repoRoot, 'node_modules'), path.join(project, 'node_modules'), 'dir');
  });
  afterAll(() => rmSync(project, { recursive: true, force: true }));

  test('each deprecation has `deprecated`, its paragraph, `x-deprecation` and `x-sunset`', { timeout: 60_000 }, async () => {
    // The rules that ask for summaries, examples and errors are the repository's contract's, not this test's.
    const disabled = ['operation-summary', 'operation-example', 'common-errors', 'resource-errors', 'path-parameter-bounded'].map((rule) => `#suppress "${LIBRARY}/${rule}" "not this test's"`);
    const code = CONTRACT.replace(/^(\/\*\* (?:Get|Read) a team\. \*\/)$/gm, `$1\n${disabled.join('\n')}`);
    writeFileSync(path.join(project, 'spec/main.tsp'), `import "@typespec/http";\nimport "@typespec/openapi";\nimport "${LIBRARY}";\nusing Http;\nusing OpenAPI;\nusing DocsPlatform;\n${code}`);
    // Compiled, not taken from the cache: the key of a project without spec-rules/ of its own does not cover the rules' code.
    vi.stubEnv('DOCS_CONTRACT_CACHE', 'off');
    const { openapi, diagnostics, notes } = await contractCompiler(project)(path.join(project, 'staging')).finally(() => vi.unstubAllEnvs());
    expect(diagnostics).toBe('');
    // At each deprecated declaration, the known consumers that still use it (as information: the compile passed).
    const lines = readFileSync(path.join(project, 'spec/main.tsp'), 'utf8').split('\n');
    const line = (text: string) => lines.findIndex((each) => each.includes(text)) + 1;
    expect([...notes].sort()).toEqual([
      `deprecation: spec/main.tsp:${line('  name?: string;')}: \`Team.name\` is deprecated and still used. Warning for consumers: reader-app 1.0.0 (getTeam: response field /name read (200 application/json)).`,
      `deprecation: spec/main.tsp:${line('op readTeam(')}: \`readTeam\` is deprecated and still used. Warning for consumers: reader-app 1.0.0 (readTeam: calls it (1 calls)).`,
    ]);
    const document = load(openapi!) as any;
    expect(document.paths['/teams/read/{teamId}'].get).toMatchObject({
      deprecated: true,
      description: 'Read a team.\n\nDeprecated: Teams are read by id. Use getTeam instead. (Deprecated since 2026-06-01; may be removed from 2027-01-01.)',
      'x-deprecation': { reason: 'Teams are read by id.', since: '2026-06-01', successor: 'getTeam' },
      'x-sunset': '2027-01-01',
    });
    expect(document.paths['/teams/{teamId}'].get.deprecated).toBeUndefined();
    expect(document.paths['/teams/{teamId}'].get.parameters.find((parameter: { name: string }) => parameter.name === 'fields')).toMatchObject({
      deprecated: true,
      description: 'The fields to answer.\n\nDeprecated: Every field is answered.',
      'x-deprecation': { reason: 'Every field is answered.' },
    });
    expect(document.components.schemas.Team.properties.name).toMatchObject({
      deprecated: true,
      description: "The team's name.\n\nDeprecated: Teams have a title. Use Team.title instead. (Deprecated since 2026-06-01; may be removed from 2027-01-01.)",
      'x-deprecation': { reason: 'Teams have a title.', since: '2026-06-01', successor: 'Team.title' },
      'x-sunset': '2027-01-01',
    });
    // `x-sunset` is a date as oasdiff reads it: a plain `YYYY-MM-DD` string in the document's text.
    expect(openapi).toContain("x-sunset: '2027-01-01'");
  });
});

test('the seed\'s two deprecations carry their reason, and the section move its successor', () => {
  const document = load(readFileSync(openapiPath, 'utf8')) as any;
  const move = document.paths['/v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}/move'].post;
  expect(move).toMatchObject({ operationId: 'moveSiteSection', deprecated: true, 'x-deprecation': { reason: expect.stringMatching(/\S/), successor: 'sortSiteStructure' } });
  expect(move.description).toMatch(/\n\nDeprecated: .+ Use sortSiteStructure instead\.$/);
  const field = document.components.schemas.Organization.properties.internal_isOnNewTrial;
  expect(field).toMatchObject({ deprecated: true, 'x-deprecation': { reason: expect.stringMatching(/\S/) } });
  expect(field.description).toMatch(new RegExp(`\\n\\nDeprecated: ${field['x-deprecation'].reason.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
  // Nothing else of the document is deprecated.
  const deprecated: string[] = [];
  const visit = (node: unknown, at: string): void => {
    if (typeof node !== 'object' || node === null) return;
    if ((node as { deprecated?: unknown }).deprecated === true) deprecated.push(at);
    for (const [key, value] of Object.entries(node)) if (key !== 'example' && key !== 'examples') visit(value, `${at}/${key}`);
  };
  visit(document, '#');
  expect(deprecated).toEqual(['#/paths//v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}/move/post', '#/components/schemas/Organization/properties/internal_isOnNewTrial']);
});

test('describeDeprecations leaves a document without deprecations as it is, and adds a paragraph once', () => {
  const plain = "openapi: 3.1.0\ninfo:\n  title: T\n  version: 1.0.0\npaths: {}\n";
  expect(describeDeprecations(plain)).toBe(plain);
  const marked = "openapi: 3.1.0\npaths:\n  /a:\n    get:\n      description: Get a.\n      deprecated: true\n      x-deprecation:\n        reason: Gone.\n";
  const described = describeDeprecations(marked);
  expect((load(described) as any).paths['/a'].get.description).toBe('Get a.\n\nDeprecated: Gone.');
  expect(describeDeprecations(described)).toBe(described);
  // Dated, with a successor: the paragraph says both, as the typed client's hover does.
  const dated = `${marked}        since: '2026-06-01'\n        successor: getB\n      x-sunset: '2027-01-01'\n`;
  expect((load(describeDeprecations(dated)) as any).paths['/a'].get.description).toBe('Get a.\n\nDeprecated: Gone. Use getB instead. (Deprecated since 2026-06-01; may be removed from 2027-01-01.)');
  const sunsetOnly = `${marked}      x-sunset: '2027-01-01'\n`;
  expect((load(describeDeprecations(sunsetOnly)) as any).paths['/a'].get.description).toBe('Get a.\n\nDeprecated: Gone. (May be removed from 2027-01-01.)');
});
