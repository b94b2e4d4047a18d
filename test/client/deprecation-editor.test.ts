// The contract's deprecations in a consumer's editor: a call of a deprecated operation through the typed client, by
// its path, and a read of a deprecated field are struck through, with the reason and the successor in the hover, under
// each consumer TypeScript (5.4's language service, 7's language server), against the declarations the package ships.
// @needs processes
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildClient } from '../../scripts/build-client.ts';
import { editorView } from '../support/editor.ts';
import { CONSUMER_TYPESCRIPTS, strictCompilerOptions } from '../support/packaging.ts';

const MOVE = '/v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}/move';
const MOVE_REASON = 'A section is moved by sorting the structure of its site, which orders sections, section groups and site spaces alike.';
const FIELD_REASON = 'It is always true, and says nothing of the organization.';

/** A consumer's module: a deprecated call, a call that is not, a read of a deprecated field and of one that is not. */
const CONSUMER = `import { createDocsClient } from './client/index.ts';

const docs = createDocsClient({ baseUrl: 'http://localhost:3000', token: 't' });
const strict = createDocsClient({ baseUrl: 'http://localhost:3000', token: 't', throwOnError: true });
const site = { organizationId: 'acme', siteId: 's' };
export async function use() {
  const moved = await docs.POST('${MOVE}', { params: { path: { ...site, siteSectionId: 'a' } }, body: { position: { before: { type: 'site-section', siteSection: 'b' } } } });
  if (moved.status === 200) moved.data.title;
  (await strict.POST('${MOVE}', { params: { path: { ...site, siteSectionId: 'a' } }, body: { position: { after: { type: 'site-section', siteSection: 'b' } } } })).data.path;
  await docs.POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: 'acme' } }, body: { title: 'Handbook' } });
  const { data } = await docs.GET('/v1/orgs/{organizationId}', { params: { path: { organizationId: 'acme' } } });
  return [data?.internal_isOnNewTrial, data?.title];
}
`;

const scratch = mkdtempSync(path.join(os.tmpdir(), 'deprecation-editor-'));
const file = path.join(scratch, 'consumer.ts');
/** The offset of the `n`th (from 0) occurrence of `text` in the consumer's module, plus `shift`. */
const offset = (text: string, n = 0, shift = 0) => {
  let at = -1;
  for (let seen = 0; seen <= n; seen++) at = CONSUMER.indexOf(text, at + 1);
  if (at < 0) throw new Error(`no ${text} in the consumer`);
  return at + shift;
};
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const lineOf = (text: string, n = 0) => CONSUMER.slice(0, offset(text, n)).split('\n').length;

beforeAll(() => {
  buildClient(scratch);
  symlinkSync(path.join(process.cwd(), 'node_modules'), path.join(scratch, 'node_modules'));
  writeFileSync(path.join(scratch, 'package.json'), JSON.stringify({ type: 'module' }));
  const compilerOptions = { ...strictCompilerOptions, noEmit: true, allowImportingTsExtensions: true };
  writeFileSync(path.join(scratch, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['consumer.ts'] }));
  writeFileSync(file, CONSUMER);
}, 120_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

test.each(CONSUMER_TYPESCRIPTS)('%s strikes through the deprecated call and field, and its hover says why and what replaces them', async (typescript) => {
  const at = [offset('docs.POST(', 0, 'docs.'.length), offset('strict.POST(', 0, 'strict.'.length), offset('docs.POST(', 1, 'docs.'.length), offset('internal_isOnNewTrial'), offset('data?.title', 0, 'data?.'.length)];
  const view = await editorView(typescript, file, at);
  // The deprecated calls (of both modes) and the field, and nothing else: the other call and field are not.
  expect(view.struck, view.release).toEqual([
    { line: lineOf('docs.POST('), text: 'POST' },
    { line: lineOf('strict.POST('), text: 'POST' },
    { line: lineOf('internal_isOnNewTrial'), text: 'internal_isOnNewTrial' },
  ]);
  const [move, strictMove, otherCall, field, otherField] = view.hovers as [string, string, string, string, string];
  for (const hover of [move, strictMove]) {
    // TypeScript 5.4 writes the tag `@deprecated <text>`, TypeScript 7 `@deprecated — <text>`.
    expect(hover, view.release).toMatch(new RegExp(`@deprecated\\W+${escape(`${MOVE_REASON} Use sortSiteStructure instead.`)}`));
    expect(hover, view.release).toContain(MOVE);
  }
  // TypeScript 7.0's hover shows no documentation of a property mapped through `Readable` (how the client types an
  // answer), though it strikes its read through; TypeScript 5.4's shows the field's description, with the reason.
  if (typescript === 'typescript-oldest') expect(field, view.release).toMatch(new RegExp(`@deprecated[\\s\\S]*Deprecated: ${escape(FIELD_REASON)}`));
  else expect(field, view.release).toContain('internal_isOnNewTrial');
  for (const hover of [otherCall, otherField]) expect(hover, view.release).not.toMatch(/deprecated/i);
}, 180_000);
