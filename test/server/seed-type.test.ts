// The seed format's type (`Seed` of the test harness, server/start/seed-format.ts) is inferred from the schema the server
// checks seeds with (SEED_SCHEMA): here each shape below is given both to tsc, as a `Seed` under strict options
// (exactOptionalPropertyTypes included), and to the server's check (seed-schema.ts), and both must take the accepted
// ones and refuse the wrong ones.
// @needs processes
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { loadContract } from '../../server/http/contract.ts';
import { seedChecker } from '../../server/start/seed-schema.ts';

const root = path.resolve(import.meta.dirname, '../..');

/** Seeds the server accepts, and that `Seed` must accept. */
const accepted: Record<string, string> = {
  'nothing': `{}`,
  'a user with no email and no photo, as null': `{ users: [{ id: 'ann', displayName: 'Ann', email: null, photoURL: null }] }`,
  'a user with all fields': `{ users: [{ id: 'ann', displayName: 'Ann', email: 'ann@acme.test', photoURL: 'https://acme.test/ann.png', tokens: ['ann-token'] }] }`,
  'a guest member (role null) and an admin': `{ users: [{ id: 'ann', displayName: 'Ann' }], organizations: [{ id: 'acme', title: 'Acme', type: 'community', emailDomains: ['acme.test'], members: [{ user: 'ann', role: 'admin' }, { user: 'ann', role: null }, { user: 'ann' }] }] }`,
  'teams, collections, spaces and nested pages': `{ organizations: [{ title: 'Acme', teams: [{ title: 'Writers', members: [{ user: 'ann', role: 'owner' }], spaces: ['handbook'] }], collections: [{ id: 'guides', title: 'Guides', parent: 'top' }], spaces: [{ id: 'handbook', title: 'Handbook', parent: 'guides', visibility: 'public', pages: [{ title: 'Welcome', slug: 'welcome', description: 'First', markdown: '# Hi', pages: [{ id: 'nested', title: 'Nested' }] }] }] }] }`,
};

/** Seeds the server refuses, and that `Seed` must refuse. */
const refused: Record<string, string> = {
  'a field the format does not have': `{ users: [{ displayName: 'Ann', mail: 'ann@acme.test' }] }`,
  'a user without displayName': `{ users: [{ id: 'ann' }] }`,
  'an email that is a number': `{ users: [{ displayName: 'Ann', email: 42 }] }`,
  'tokens that are not a list': `{ users: [{ displayName: 'Ann', tokens: 'ann-token' }] }`,
  'an organization without title': `{ organizations: [{ id: 'acme' }] }`,
  'a role the contract does not have': `{ organizations: [{ title: 'Acme', members: [{ user: 'ann', role: 'owner' }] }] }`,
  'a member without user': `{ organizations: [{ title: 'Acme', members: [{ role: 'admin' }] }] }`,
  'a team role of organizations': `{ organizations: [{ title: 'Acme', teams: [{ title: 'Writers', members: [{ user: 'ann', role: 'admin' }] }] }] }`,
  'a space visibility the contract does not have': `{ organizations: [{ title: 'Acme', spaces: [{ title: 'Handbook', visibility: 'secret' }] }] }`,
  'an organization type the contract does not have': `{ organizations: [{ title: 'Acme', type: 'club' }] }`,
  'a nested page without title': `{ organizations: [{ title: 'Acme', spaces: [{ title: 'Handbook', pages: [{ title: 'Welcome', pages: [{ markdown: 'x' }] }] }] }] }`,
  'a space with a null title': `{ organizations: [{ title: 'Acme', spaces: [{ title: null }] }] }`,
};

/** tsc's errors for `source`, a module beside the harness, by line (from 1). */
function typeErrors(source: string): Map<number, string[]> {
  const file = path.join(root, 'test/server/seed-type.check.ts');
  const options: ts.CompilerOptions = {
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true,
    types: ['node'],
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.fileExists = ((exists) => (name: string) => name === file || exists(name))(host.fileExists.bind(host));
  host.readFile = (name) => (name === file ? source : readFile(name));
  host.getSourceFile = (name, language, ...rest) => (name === file ? ts.createSourceFile(name, source, language) : getSourceFile(name, language, ...rest));
  const program = ts.createProgram([file], options, host);
  const errors = new Map<number, string[]>();
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const line = diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line + 1 : 0;
    errors.set(line, [...(errors.get(line) ?? []), ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')]);
  }
  return errors;
}

describe('the seed format: one schema for the server and the type', () => {
  test('tsc accepts as `Seed` exactly the seeds the server accepts', () => {
    const cases = [...Object.entries(accepted).map(([name, value]) => ({ name, value, valid: true })), ...Object.entries(refused).map(([name, value]) => ({ name, value, valid: false }))];
    // Line 1 imports `Seed` as a consumer does (from the harness); then one case per line.
    const source = [
      `import type { Seed } from '../../server/testing/index.ts';`,
      ...cases.map((item, index) => `export const case${index}: Seed = ${item.value};`),
    ].join('\n');
    const errors = typeErrors(source);
    const check = seedChecker(loadContract());
    const verdicts = cases.map((item, index) => {
      const fixture = new Function(`return (${item.value});`)() as unknown;
      return { name: item.name, tsc: !errors.has(index + 2), server: check(fixture) === undefined };
    });
    expect(errors.get(1) ?? [], 'the import').toEqual([]);
    expect(errors.get(0) ?? [], 'errors outside the file').toEqual([]);
    expect(verdicts).toEqual(cases.map((item) => ({ name: item.name, tsc: item.valid, server: item.valid })));
  }, 60_000);
});
