// How the breaking-change gate judges what the comparison finds, on tiny documents built here: against the
// declarations of accepted breaks (matched by rule, owner and path; one that matches nothing is stale), the base's
// and the revision's versions, and --fail-on; a change of the schema dialect, judged for the whole document; and
// the declarations it refuses, naming the entry and the field.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { stringify } from 'yaml';
import { compareDocuments, evaluateGate, parseDeclarations, type Finding } from '../../breaking/index.ts';
import { readDeclarations } from '../../breaking/files.ts';
import { declarationEntry } from '../../breaking/gate.ts';
import { OAS_DIALECT, getThing, objectPlaced, one, rules } from '../support/breaking-documents.ts';

describe('the gate', () => {
  const title = (maxLength: number) => objectPlaced('request', { type: 'object', properties: { title: { type: 'string', maxLength } } });
  const findings = compareDocuments(title(255), title(100));
  const declaration = { rule: 'request-property-max-length-decreased', schema: 'Thing', path: '#/components/schemas/Thing/properties/title', reason: 'Titles were cut.' };

  test('an undeclared breaking change fails; declared, it passes with its reason', () => {
    expect(evaluateGate(findings, { baseVersion: '1.0.0', revisionVersion: '1.1.0' })).toMatchObject({ passed: false, undeclared: findings });
    const verdict = evaluateGate(findings, { baseVersion: '1.0.0', revisionVersion: '1.1.0', declarations: [declaration] });
    expect(verdict.passed).toBe(true);
    expect(verdict.judged[0]).toMatchObject({ allowedBy: 'declaration', declaration });
  });

  test('a higher major version allows breaking changes', () => {
    const verdict = evaluateGate(findings, { baseVersion: '1.4.2', revisionVersion: '2.0.0' });
    expect(verdict).toMatchObject({ passed: true, majorBump: true });
    expect(verdict.judged[0]!.allowedBy).toBe('major-version');
    expect(evaluateGate(findings, { baseVersion: '1.4.2', revisionVersion: '1.5.0' }).passed).toBe(false);
  });

  test('a declaration must match rule, owner and path exactly; one that matches nothing is stale and fails', () => {
    for (const wrong of [{ ...declaration, path: '#/components/schemas/Thing' }, { ...declaration, schema: 'Other' }, { ...declaration, rule: 'request-property-max-length-increased' }]) {
      const verdict = evaluateGate(findings, { declarations: [wrong] });
      expect(verdict.passed).toBe(false);
      expect(verdict.stale).toEqual([wrong]);
      expect(verdict.undeclared).toEqual(findings);
    }
    expect(evaluateGate([], { declarations: [declaration] })).toMatchObject({ passed: false, stale: [declaration] });
  });

  test('--fail-on: client fails on client and source breaks only; implementation on every break; warning on warnings too', () => {
    const finding = (severity: Finding['severity']) => ({ ...findings[0]!, severity });
    const all = (['breaking-client', 'breaking-source', 'breaking-implementation', 'warning', 'non-breaking'] as const).map(finding);
    const failing = (failOn: 'client' | 'implementation' | 'warning') =>
      evaluateGate(all, { failOn }).undeclared.map((entry) => entry.severity);
    expect(failing('client')).toEqual(['breaking-client', 'breaking-source']);
    expect(failing('implementation')).toEqual(['breaking-client', 'breaking-source', 'breaking-implementation']);
    expect(failing('warning')).toEqual(['breaking-client', 'breaking-source', 'breaking-implementation', 'warning']);
    expect(evaluateGate([finding('warning')], { failOn: 'warning', baseVersion: '1.0.0', revisionVersion: '2.0.0' }).passed).toBe(true);
  });

  test('a revision below the release fails', () => {
    expect(evaluateGate([], { baseVersion: '1.2.0', revisionVersion: '1.1.9' })).toMatchObject({
      passed: false,
      problems: ['info.version 1.1.9 is lower than the last release 1.2.0'],
    });
  });

  test('a change of the schema dialect is judged on its own: a declared dialect is the default one, another fails until declared for the document', () => {
    const base = one(getThing());
    // Declaring the default changes nothing anyone reads: OpenAPI 3.1's default, and a 3.0 document's schemas.
    expect(rules(compareDocuments(base, one(getThing(), { jsonSchemaDialect: OAS_DIALECT })))).toEqual(['schema-dialect-declared']);
    expect(rules(compareDocuments({ ...base, openapi: '3.0.3' }, one(getThing(), { jsonSchemaDialect: OAS_DIALECT })))).toEqual(['schema-dialect-declared']);
    expect(compareDocuments(one(getThing(), { jsonSchemaDialect: OAS_DIALECT }), one(getThing(), { jsonSchemaDialect: OAS_DIALECT }))).toEqual([]);
    // Another dialect, declared where none was: a change, found in the revision.
    const other = compareDocuments(base, one(getThing(), { jsonSchemaDialect: 'https://json-schema.org/draft/2019-09/schema' }));
    expect(other).toMatchObject([{ rule: 'schema-dialect-changed', severity: 'breaking-client', document: 'revision', operations: [] }]);
    expect(other[0]!.message).toContain('(undeclared: the default) → https://json-schema.org/draft/2019-09/schema');
    expect(evaluateGate(other, { baseVersion: '1.0.0', revisionVersion: '1.1.0' }).passed).toBe(false);
    // Declared for the document (neither an operation nor a schema), it passes; given an owner, the entry is refused.
    const entry = { rule: 'schema-dialect-changed', path: '#/jsonSchemaDialect', reason: 'Validators read 2019-09.' };
    const { declarations, problems } = parseDeclarations([entry, { ...entry, operation: 'getThing' }]);
    expect(problems).toEqual(['entry 2: schema-dialect-changed is a change of the whole document: give neither `operation` nor `schema`']);
    expect(declarations).toEqual([entry]);
    const verdict = evaluateGate(other, { baseVersion: '1.0.0', revisionVersion: '1.1.0', declarations });
    expect(verdict).toMatchObject({ passed: true, stale: [], judged: [{ allowedBy: 'declaration' }] });
    // An operation's declaration never matches a finding of the document.
    expect(evaluateGate(other, { declarations: [{ ...entry, operation: 'getThing' }] }).passed).toBe(false);
  });

  test('invalid declarations are refused, naming the entry and the field', () => {
    const { problems } = parseDeclarations([
      { rule: 'no-such-rule', schema: 'Thing', path: '#/x', reason: 'r' },
      { rule: 'request-property-added', path: '#/x', reason: 'r' },
      { rule: 'request-property-added', schema: 'Thing', operation: 'createThing', path: 'x', reason: 'TODO: why' },
      { rule: 'request-property-added', schema: 'Thing', path: '#/x', reason: 'r', note: 'extra' },
    ]);
    expect(problems).toEqual([
      'entry 1: `rule` no-such-rule is not a rule id (see breaking/README.md)',
      'entry 2: give exactly one of `operation` and `schema`',
      'entry 3: `path` must be a JSON path starting with #/',
      'entry 3: `reason` still says TODO: say why the break is accepted',
      'entry 3: give exactly one of `operation` and `schema`',
      'entry 4: unknown field `note` (expected rule, operation or schema, path, reason, accepted-by)',
    ]);
    expect(parseDeclarations({ rule: 'x' }).problems).toEqual(['the declarations must be a YAML list (`[]` for none)']);
    expect(parseDeclarations(null)).toEqual({ declarations: [], problems: [] });
  });

  test('accepted-by names the consumers that accepted a break; a misspelt field or a value that is no list is refused at its line', () => {
    const entry = { rule: 'request-property-added', schema: 'Thing', path: '#/x', reason: 'r' };
    const dir = mkdtempSync(path.join(tmpdir(), 'declarations-'));
    try {
      const file = path.join(dir, 'breaking-changes.yaml');
      writeFileSync(file, `# header\n${stringify([{ ...entry, 'accepted-by': ['search-service', 'billing'] }])}`);
      const read = readDeclarations(file);
      expect(read).toEqual({ declarations: [{ ...entry, acceptedBy: ['search-service', 'billing'] }], problems: [] });
      // Written back (the release's record) as the file spells it, and read again the same.
      expect(declarationEntry(read.declarations[0]!)).toEqual({ ...entry, 'accepted-by': ['search-service', 'billing'] });
      writeFileSync(file, `# header\n${stringify([entry, { ...entry, 'acceptd-by': ['search-service'] }, { ...entry, 'accepted-by': 'search-service' }, { ...entry, 'accepted-by': [] }])}`);
      expect(readDeclarations(file).problems).toEqual([
        'line 10 (entry 2): unknown field `acceptd-by` (expected rule, operation or schema, path, reason, accepted-by)',
        'line 16 (entry 3): `accepted-by` must be a list of the names of the consumers that accepted the break (`accepted-by: [search-service]`)',
        'line 21 (entry 4): `accepted-by` must be a list of the names of the consumers that accepted the break (`accepted-by: [search-service]`)',
      ]);
      expect(readDeclarations(file).declarations).toEqual([entry, entry]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
