// `npm run scaffold -- <operationId>` (scripts/scaffold.ts) in a copy of the repository whose contract gained
// operations of several shapes: each lands in its group, its domain module, the pending list and a test file, the
// result passes `npm run check`'s type-check, operations check and lint of the files written, each new test fails;
// unknown ids and operations with a handler are refused.
// The shapes, and why only the scaffold's files are linted: test/README.md, "The scaffold".
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADDED_OPERATION } from '../../bench/save.ts';
import { copyEnvironment, copyRepository } from '../../scripts/repo-copy.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'scaffold-'));
const copy = path.join(scratch, 'repository');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Operations added to spec/teams.tsp: `npm run dev`'s example one (a path only), and these. */
const ADDED = `${ADDED_OPERATION.tsp}
/** Pinned comments. */
@tag("Comments")
interface PinnedComments {
  /** Pin a comment of a space. */
  #suppress "docs-platform-spec-rules/operation-example" "The scaffold makes the request from the contract."
  @summary("Pin a comment of a space")
  @operationId("pinSpaceComment")
  @route("/v1/spaces/{spaceId}/comments/{commentId}/pin")
  @post
  pin(...SpacePath, ...CommentPath): Comment | ResourceErrors;
}

/** A term of a glossary. */
model GlossaryTerm {
  /** The term. */
  @maxLength(100)
  name: string;
}

/** A term to add. */
model CreateGlossaryTermRequest {
  /** The term. */
  @minLength(1)
  @maxLength(100)
  name: string;
}

/** The glossary of an organization. */
@tag("Glossary")
@route("/v1/orgs/{organizationId}/glossary")
interface Glossary {
  /** Add a term to the glossary. */
  #suppress "docs-platform-spec-rules/operation-example" "The scaffold makes the request from the contract."
  @summary("Add a term to the glossary")
  @operationId("createGlossaryTerm")
  @post
  create(
    ...OrganizationPath,

    /** Check the term without adding it. */
    @query dryRun?: boolean,

    @bodyRoot body: CreateGlossaryTermRequest,
  ): {
    @statusCode statusCode: 201;
    @body body: GlossaryTerm;
  } | ResourceErrors | BodyErrors;

  /** Empty the glossary. */
  @summary("Empty the glossary")
  @opExample(#{ parameters: #{ organizationId: "demo" }, returnType: #{ statusCode: 204 } })
  @operationId("clearGlossary")
  @delete
  clear(...OrganizationPath): NoContentResponse | ResourceErrors;
}
`;

const SCAFFOLDED = ['getTeamStats', 'pinSpaceComment', 'createGlossaryTerm', 'clearGlossary'];

/** Runs a command in the copy; its exit code and output. Its vitest runs are of the sqlite project: no PostgreSQL server for them. */
function run(command: string, args: string[]): { status: number | null; output: string } {
  const result = spawnSync(command, args, { cwd: copy, encoding: 'utf8', env: { ...copyEnvironment(), NO_COLOR: '1', TEST_POSTGRES: 'off' } });
  return { status: result.status, output: `${result.stdout}${result.stderr}`.replace(/\u001b\[[\d;]*m/g, '') };
}
const read = (file: string) => readFileSync(path.join(copy, file), 'utf8');

beforeAll(() => {
  copyRepository(copy);
  writeFileSync(path.join(copy, 'spec/teams.tsp'), `${read('spec/teams.tsp')}${ADDED}`);
  const generated = run(process.execPath, ['--import', 'tsx', 'scripts/generate.ts']);
  expect(generated.status, generated.output).toBe(0);
}, 120_000);

describe('npm run scaffold', () => {
  test('refuses an id the contract does not have, naming the nearest, and an operation that has a handler', () => {
    const unknown = run('npm', ['run', '--silent', 'scaffold', '--', 'getTeamStat']);
    expect(unknown.status).toBe(2);
    expect(unknown.output).toContain('scaffold: refused: getTeamStat is not an operation of generated/openapi.yaml (did you mean getTeamStats, getTeam,');
    const handled = run('npm', ['run', '--silent', 'scaffold', '--', 'getTeam']);
    expect(handled.status).toBe(2);
    expect(handled.output).toContain('scaffold: refused: getTeam already has a handler, in server/handlers/teams.ts');
  }, 60_000);

  test('writes each operation into its group, its domain module, the pending list and a test; check passes and each test is red', () => {
    const written = new Set<string>();
    for (const id of SCAFFOLDED) {
      const result = run('npm', ['run', '--silent', 'scaffold', '--', id]);
      expect(result.status, result.output).toBe(0);
      expect(result.output).toContain(`scaffold: ${id}\n`);
      // Its lines `  <file>  <what it wrote there>`, up to "Next:".
      for (const line of result.output.split('\n').slice(1)) {
        if (line.startsWith('Next:')) break;
        written.add(line.trim().split(/\s+/)[0]!);
      }
    }
    expect([...written].sort()).toEqual(
      [
        'server/domain/comments.ts',
        'server/domain/glossary.ts',
        'server/domain/teams.ts',
        'server/handlers/comments.ts',
        'server/handlers/glossary.ts',
        'server/handlers/index.ts',
        'server/handlers/pending.ts',
        'server/handlers/teams.ts',
        'test/api/clear-glossary.test.ts',
        'test/api/create-glossary-term.test.ts',
        'test/api/get-team-stats.test.ts',
        'test/api/pin-space-comment.test.ts',
      ].sort(),
    );
    // Into the group of its tag, in the union of its siblings.
    expect(read('server/handlers/teams.ts')).toMatch(/type Operations = 'listTeams' \| .* \| 'getTeamStats';/);
    expect(read('server/handlers/teams.ts')).toContain("async getTeamStats({ params, caller }, ctx) {\n    return { status: 200, body: await getTeamStats(ctx, caller, params) };\n  },\n};");
    expect(read('server/handlers/comments.ts')).toMatch(/type SpaceOperations =\n(  \| '\w+'\n)+  \| 'pinSpaceComment';/);
    // A group of its own, registered.
    expect(read('server/handlers/glossary.ts')).toContain("type Operations = 'createGlossaryTerm' | 'clearGlossary';");
    expect(read('server/handlers/glossary.ts')).toContain('async createGlossaryTerm({ params, query, body, caller }, ctx) {\n    return { status: 201, body: await createGlossaryTerm(ctx, caller, params, query, body) };');
    expect(read('server/handlers/glossary.ts')).toContain('async clearGlossary({ params, caller }, ctx) {\n    await clearGlossary(ctx, caller, params);\n    return { status: 204 };');
    expect(read('server/handlers/index.ts')).toMatch(/import \{ glossaryHandlers \} from '\.\/glossary\.ts';[^]*\.\.\.glossaryHandlers,\n  \};/);
    // Domain functions typed from the contract, failing until written.
    expect(read('server/domain/teams.ts')).toContain("export async function getTeamStats(_ctx: Scope, _caller: Caller, _path: OperationPath<'getTeamStats'>): Promise<Model<'TeamStats'>> {");
    expect(read('server/domain/glossary.ts')).toContain(
      "export async function createGlossaryTerm(_ctx: Scope, _caller: Caller, _path: OperationPath<'createGlossaryTerm'>, _query: OperationQuery<'createGlossaryTerm'>, _body: Input<'CreateGlossaryTermRequest'>): Promise<Model<'GlossaryTerm'>> {",
    );
    expect(read('server/domain/glossary.ts')).toContain("  throw new Error('clearGlossary is not written yet: write it in server/domain/glossary.ts, then remove its entry from server/handlers/pending.ts');");
    expect(read('server/handlers/pending.ts')).toMatch(/^ {2}getTeamStats: 'scaffolded: answered from the contract until getTeamStats in server\/domain\/teams\.ts is written',$/m);
    // The test of a request made from the contract (no example), and of one whose path the seed cannot hold whole.
    expect(read('test/api/create-glossary-term.test.ts')).toContain("body: { name: 'string' }");
    expect(read('test/api/pin-space-comment.test.ts')).toContain('(not commentId: the seed cannot hold them; make them through the client before the');

    const check = run(process.execPath, ['--import', 'tsx', 'scripts/check.ts', '--only', 'typecheck', '--only', 'operations']);
    expect(check.status, check.output).toBe(0);
    const lint = run(process.execPath, ['node_modules/eslint/bin/eslint.js', ...written]);
    expect(lint.status, lint.output).toBe(0);
    expect(check.output).toContain(`pending (answered from the contract, server/handlers/pending.ts): ${['clearGlossary', 'createGlossaryTerm', 'getTeamStats', 'pinSpaceComment'].join(', ')}`);

    const tests = run(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--project', 'sqlite', ...SCAFFOLDED.map((id) => `test/api/${id.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}.test.ts`)]);
    expect(tests.status, tests.output).toBe(1);
    for (const id of SCAFFOLDED) expect(tests.output).toContain(`${id} is answered from the contract: it is pending.`);
    expect(tests.output).toMatch(/Tests {2}4 failed \(4\)/);
  }, 420_000);
});
