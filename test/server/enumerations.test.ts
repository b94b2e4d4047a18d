// Every enumeration of the contract that the server branches on is branched on exhaustively: the type-checked
// sources, with every enumeration given one member more, must fail `tsc` at each enumeration's branching places;
// those the server only stores and returns are the ones server/docs/code.md lists ("Enumerations passed through").
// How one `tsc` run checks them all: test/README.md, "Enumerations branched on exhaustively".
// @needs processes
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readConfig } from '../../server/common/config.ts';
import { loadContract } from '../../server/http/contract.ts';
import { parseSpaceRow } from '../../server/domain/spaces.ts';
import { startServer } from '../../server/start/server.ts';
import { repoRoot } from '../support/repo.ts';

const root = repoRoot;
const checkedFolders = ['server', 'client', 'conformance'];

/** The contract's string enumerations (named component schemas), from the emitted document. */
function contractEnumerations(): Map<string, string[]> {
  const document = loadContract() as unknown as {
    components: { schemas: Record<string, { type?: string; enum?: unknown[] }> };
  };
  const enumerations = new Map<string, string[]>();
  for (const [name, schema] of Object.entries(document.components.schemas)) {
    if (schema.type === 'string' && Array.isArray(schema.enum)) enumerations.set(name, schema.enum.map(String));
  }
  return enumerations;
}

/** server/docs/code.md's table of enumerations the server does not branch on: name → reason. */
function passedThrough(): Map<string, string> {
  const readme = readFileSync(path.join(root, 'server/docs/code.md'), 'utf8');
  const start = readme.indexOf('<!-- enumerations passed through -->');
  const end = readme.indexOf('<!-- end -->', start);
  if (start < 0 || end < 0) throw new Error('server/docs/code.md: the table of enumerations passed through is missing');
  const rows = readme
    .slice(start, end)
    .split('\n')
    .map((line) => /^\| `([A-Za-z]+)` \| (.+) \|$/.exec(line.trim()))
    .filter((match) => match !== null);
  return new Map(rows.map((match) => [match[1]!, match[2]!]));
}

const newMember = (name: string) => `zz-new-${name}`;

/** The generated types with every enumeration of `names` widened by its new member. */
function widen(types: string, names: Iterable<string>): string {
  const start = types.indexOf('\n    schemas: {\n');
  const end = types.indexOf('\n    responses: ', start);
  if (start < 0 || end < 0) throw new Error('generated/schema.d.ts: no components.schemas block');
  let schemas = types.slice(start, end);
  for (const name of names) {
    const line = new RegExp(`^( {8}${name}: )("[^"\\n]*"(?: \\| "[^"\\n]*")*);$`, 'm');
    if (!line.test(schemas)) throw new Error(`generated/schema.d.ts: enumeration ${name} not found as a union`);
    schemas = schemas.replace(line, (_, head: string, union: string) => `${head}${union} | "${newMember(name)}";`);
  }
  return types.slice(0, start) + schemas + types.slice(end);
}

interface TypeError {
  file: string;
  line: number;
  text: string;
}

/** tsc's `--pretty false` output as errors: a `file(line,col): error …` line and its indented continuation. */
function parseErrors(output: string): TypeError[] {
  const errors: TypeError[] = [];
  for (const line of output.split('\n')) {
    const head = /^(.+?)\((\d+),\d+\): error (.*)$/.exec(line);
    if (head) errors.push({ file: head[1]!.replaceAll('\\', '/'), line: Number(head[2]), text: head[3]! });
    else if (line.startsWith(' ') && errors.length > 0) errors.at(-1)!.text += `\n${line}`;
  }
  return errors;
}

const enumerations = contractEnumerations();
const listed = passedThrough();
let copy: string;
let errors: TypeError[] = [];
let output = '';

beforeAll(async () => {
  copy = mkdtempSync(path.join(tmpdir(), 'enumerations-'));
  // compare/, which conformance/ imports (the gate's comparison), is copied for its types, not checked.
  for (const folder of [...checkedFolders, 'compare', 'generated']) {
    cpSync(path.join(root, folder), path.join(copy, folder), { recursive: true });
  }
  symlinkSync(path.join(root, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
  writeFileSync(path.join(copy, 'package.json'), readFileSync(path.join(root, 'package.json')));
  const tsconfig = JSON.parse(readFileSync(path.join(root, 'tsconfig.json'), 'utf8')) as { include: string[] };
  tsconfig.include = [...checkedFolders, 'generated'];
  writeFileSync(path.join(copy, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  const types = path.join(copy, 'generated/schema.d.ts');
  writeFileSync(types, widen(readFileSync(types, 'utf8'), enumerations.keys()));
  // TypeScript 7's native compiler, as `npm run check` type-checks with (scripts/check.ts): the same errors, in a tenth of the time.
  const tsc = path.join(root, 'node_modules/typescript-native/bin/tsc');
  try {
    await promisify(execFile)(process.execPath, [tsc, '--noEmit', '--pretty', 'false', '-p', copy], {
      cwd: copy,
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (failure) {
    output = String((failure as { stdout?: string }).stdout ?? failure);
  }
  errors = parseErrors(output);
}, 240_000);

afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

const errorsOf = (name: string) => errors.filter((error) => error.text.includes(newMember(name)));
const places = (found: TypeError[]) => found.map((error) => `${error.file}:${error.line}`);

describe('enumerations of the contract', () => {
  test('the widened copy fails only because of the new members', () => {
    expect(errors.length, output).toBeGreaterThan(0);
    const unrelated = errors.filter((error) => !/zz-new-[A-Za-z]+/.test(error.text));
    expect(unrelated.map((error) => `${error.file}:${error.line} ${error.text}`)).toEqual([]);
    const outside = errors.filter((error) => !checkedFolders.some((folder) => error.file.startsWith(`${folder}/`)));
    expect(places(outside)).toEqual([]);
  });

  test('every enumeration is branched on exhaustively or listed as passed through, not both', () => {
    const neither = [...enumerations.keys()].filter((name) => errorsOf(name).length === 0 && !listed.has(name));
    expect(neither, 'enumerations no place branches on: branch exhaustively or list them in server/docs/code.md').toEqual(
      [],
    );
    const both = [...listed.keys()]
      .filter((name) => errorsOf(name).length > 0)
      .map((name) => `${name}: ${places(errorsOf(name)).join(', ')}`);
    expect(both, 'listed as passed through, yet branched on').toEqual([]);
    const unknown = [...listed.keys()].filter((name) => !enumerations.has(name));
    expect(unknown, 'listed in server/docs/code.md but not enumerations of the contract').toEqual([]);
  });

  test('the import handler dispatches on ImportSource exhaustively', () => {
    expect(places(errorsOf('ImportSource'))).toContainEqual(expect.stringMatching(/^server\/handlers\/content\.ts:/));
  });

  test('a stored value outside its enumeration is refused at the row boundary, naming table, column and value', () => {
    const row = { id: 's1', visibility: 'private', editMode: 'live', defaultLevel: null };
    expect(parseSpaceRow(row)).toBe(row);
    expect(() => parseSpaceRow({ ...row, editMode: 'frozen' })).toThrow(
      'spaces.edit_mode holds "frozen", not one of live, locked',
    );
    expect(() => parseSpaceRow({ ...row, defaultLevel: 'owner' })).toThrow(/^spaces\.default_level holds "owner"/);
  });

  test('a seed file value outside its enumeration stops start-up, naming it', async () => {
    const file = path.join(copy, 'seed.yaml');
    writeFileSync(
      file,
      ['organizations:', '  - id: acme', '    title: Acme', '    spaces:', '      - { id: handbook, title: Handbook, visibility: secret }'].join('\n'),
    );
    const config = readConfig({ PORT: '0', DATA_DIR: ':memory:', LOG_LEVEL: 'silent', SEED_FILE: file });
    await expect(startServer(config)).rejects.toThrow('organizations[0] (acme) › spaces[0] (handbook): visibility must be one of "public", "unlisted"');
  });
});
