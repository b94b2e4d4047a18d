// The contract's documents are read with js-yaml (server/http/contract.ts, the conformance runner, the breaking-change
// commands, the build), 4 to 6 times faster than the `yaml` package on their 480 kB. Both read YAML 1.2's core
// schema; this checks they give the very same objects for the committed document and every released one, and for the
// scalars where YAML readers differ (dates, octal and hexadecimal numbers, special floats, yes/no, null forms).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { readDocument } from '../../breaking/files.ts';
import { loadContract as runnerContract } from '../../conformance/contract/contract.ts';
import { parseContractYaml } from '../../server/http/contract.ts';
import { repoRoot } from '../support/repo.ts';

const documents = [
  'generated/openapi.yaml',
  ...readdirSync(path.join(repoRoot, 'generated/releases')).map((version) => `generated/releases/${version}/openapi.yaml`),
];

describe('documents read with js-yaml are those the yaml package reads', () => {
  test.each(documents)('%s', (file) => {
    const text = readFileSync(path.join(repoRoot, file), 'utf8');
    const expected = parse(text, { maxAliasCount: -1 }) as unknown;
    expect(parseContractYaml(text)).toStrictEqual(expected);
    expect(readDocument(path.join(repoRoot, file))).toStrictEqual(expected);
    expect(runnerContract(path.join(repoRoot, file)).document).toStrictEqual(expected);
  });

  test('scalars where YAML readers differ', () => {
    const text = [
      'date: 2026-03-01',
      'time: 2026-03-01T09:00:00Z',
      'octal: 0o17',
      'oldOctal: 017',
      'hex: 0x1F',
      'inf: .inf',
      'nan: .nan',
      'yes: yes',
      'on: on',
      'tilde: ~',
      'empty:',
      'version: 1.10',
      'quoted: "1.0"',
      'big: 12345678901234567890',
      'exp: 1e3',
      'anchor: &a { x: 1 }',
      'alias: *a',
      'folded: >',
      '  one',
      '  two',
      'literal: |',
      '  line',
    ].join('\n');
    expect(parseContractYaml(text)).toStrictEqual(parse(text));
  });
});
