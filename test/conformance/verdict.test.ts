// The one owner of a consumer's verdict (conformance/judgement/verdict.ts): the gate, the contract's rule (breaking/live.ts)
// and can-i-deploy reach it and judge nothing of their own; with a version-2 record, a version-1 record and a Pact file
// in one folder, one breaking change names all three in each; a source that cannot be read is named, never "no known
// consumer"; a hundred consumers make a short sentence; Pact files alone judged as the change from where they hold;
// a composed request body judged by what was sent; the corpus's records as version 1 miss no break.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, test } from 'vitest';
import { checkAgainstRelease } from '../../breaking/live.ts';
import { canIDeployMain } from '../../conformance/judgement/can-i-deploy-command.ts';
import { consumersOf, judgeDeploy } from '../../conformance/judgement/can-i-deploy.ts';
import { compareDocuments } from '../../compare/index.ts';
import { loadContract, type OpenApiDocument } from '../../conformance/contract/contract.ts';
import { consumersSentence, type FindingConsumer, judgeConsumerVerdicts, NAMED_CONSUMERS } from '../../conformance/judgement/verdict.ts';
import { pactRecord, readPact } from '../../conformance/records/pact-record.ts';
import { mergeUsage, type UsageRecord } from '../../conformance/records/usage-format.ts';
import { baseContract, CASES, pactOf, recordOf, revisionOf } from '../support/consumer-corpus.ts';
import { repoRoot } from '../support/repo.ts';

const run = promisify(execFile);
const scratch = mkdtempSync(path.join(os.tmpdir(), 'verdict-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** `record` as version 1 of the format wrote it: no facts, method, path, security, defaults, promises, headers or schemas. */
function versionOne(record: UsageRecord): UsageRecord {
  const old = structuredClone(record);
  old.version = 1;
  for (const usage of Object.values(old.operations)) {
    for (const key of ['method', 'path', 'security', 'defaults', 'bodySchemas'] as const) delete usage[key];
    for (const used of [...Object.values(usage.parameters), ...Object.values(usage.body)]) for (const key of ['types', 'lengths', 'numbers', 'sizes'] as const) delete used[key];
    for (const answer of Object.values(usage.responses)) for (const key of ['facts', 'promised', 'headers', 'requiredHeaders', 'schemas', 'choices'] as const) delete answer[key];
  }
  return old;
}

// `Space.title` no longer required: each of the three reads it from getSpace.
const change = CASES.find((each) => each.id === 'response-read-made-optional')!;
const base = baseContract();
const revision = revisionOf(change);
const root = path.join(scratch, 'project');
mkdirSync(path.join(root, 'generated/releases/1.0.0'), { recursive: true });
writeFileSync(path.join(root, 'generated/releases/1.0.0/openapi.yaml'), JSON.stringify(base));
writeFileSync(path.join(scratch, 'base.json'), JSON.stringify(base));
writeFileSync(path.join(scratch, 'revision.json'), JSON.stringify(revision));
const consumers = path.join(root, 'consumers');
mkdirSync(consumers);
writeFileSync(path.join(consumers, 'reader-v2.json'), JSON.stringify(recordOf('title-reader', 'reader-v2')));
writeFileSync(path.join(consumers, 'reader-v1.json'), JSON.stringify(versionOne(recordOf('title-reader', 'reader-v1'))));
const pact = pactOf('title-reader', 3) as { consumer: { name: string } };
pact.consumer.name = 'reader-pact';
writeFileSync(path.join(consumers, 'reader-pact.json'), JSON.stringify(pact));
const NAMES = ['reader-v2', 'reader-v1', 'reader-pact'];

const gate = (...args: string[]) =>
  run(process.execPath, [path.join(repoRoot, 'breaking/check.mjs'), '--base', path.join(scratch, 'base.json'), '--revision', path.join(scratch, 'revision.json'), ...args], { cwd: repoRoot }).then(
    (done) => ({ code: 0, stdout: done.stdout, stderr: done.stderr }),
    (failed: { code: number; stdout: string; stderr: string }) => ({ code: failed.code, stdout: failed.stdout, stderr: failed.stderr }),
  );

async function canIDeploy(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await canIDeployMain(argv, (text) => void (out += text), (text) => void (err += text));
  return { code, out, err };
}

describe('one breaking change, a version-2 record, a version-1 record and a Pact file', () => {
  test('the gate, the editor and can-i-deploy each name all three', async () => {
    const text = await gate('--consumers', consumers);
    expect(text.code, text.stderr).toBe(1);
    const sentence = /response-property-became-optional.*\n.*?(It breaks [^\n]*)/.exec(text.stdout)?.[1] ?? text.stdout;
    for (const name of NAMES) expect(sentence).toContain(name);

    const live = await checkAgainstRelease(root, revision, ['consumers']);
    expect(live.problems).toEqual([]);
    const found = live.findings.find((entry) => entry.finding.rule === 'response-property-became-optional')!;
    expect(found.consumers.map((hit) => hit.consumer.split(' ')[0]).sort()).toEqual([...NAMES].sort());
    expect(found.consumersText).toMatch(/^It breaks /);

    const deploy = await canIDeploy('--consumers', consumers, '--contract', path.join(scratch, 'revision.json'), '--base', path.join(scratch, 'base.json'));
    expect(deploy.code, deploy.err).toBe(1);
    for (const name of NAMES) expect(deploy.out).toMatch(new RegExp(`^\\| ${name}( [0-9.]+)? \\| ✗`, 'm'));
  }, 120_000);

  test('a source that cannot be read is named, in the editor and the gate, and no finding says it breaks no known consumer', async () => {
    writeFileSync(path.join(scratch, 'broken.json'), '{ not json');
    const live = await checkAgainstRelease(root, revision, ['consumers', 'nope/', path.join(scratch, 'broken.json')]);
    expect(live.problems).toEqual([expect.stringContaining(path.join(root, 'nope')), expect.stringContaining('broken.json')]);
    expect(live.findings.map((entry) => entry.consumersText).join('\n')).not.toContain('no known consumer');
    // The readable ones are still judged.
    expect(live.findings.find((entry) => entry.finding.rule === 'response-property-became-optional')!.consumers).toHaveLength(3);
    const text = await gate('--consumers', consumers, '--consumers', path.join(scratch, 'nope'));
    expect(text.code).toBe(2);
    expect(text.stderr).toContain(path.join(scratch, 'nope'));
  }, 120_000);

  test('a URL that does not answer is given up after a few seconds and named', async () => {
    const started = performance.now();
    // A non-routable address: the connection neither succeeds nor fails.
    const live = await checkAgainstRelease(root, revision, ['consumers', 'http://10.255.255.1/records.json']);
    expect(live.problems).toEqual([expect.stringContaining('http://10.255.255.1/records.json')]);
    // Bounded by the reader's wait, not by the network's.
    expect(performance.now() - started).toBeLessThan(30_000);
  }, 60_000);
});

describe('a Pact judged as its test asserted it', () => {
  // The corpus's base as the one release, and each case's pact (the answers cut to what its code reads, a proxy
  // consumer's whole) given to can-i-deploy with no --base: read against the newest release it holds against.
  const releases = path.join(scratch, 'pact-releases');
  mkdirSync(path.join(releases, '1.0.0'), { recursive: true });
  writeFileSync(path.join(releases, '1.0.0', 'openapi.yaml'), JSON.stringify(base));
  const pactAlone = async (corpusCase: (typeof CASES)[number], folder = releases) => {
    const file = path.join(scratch, `${corpusCase.id}.pact.json`);
    writeFileSync(file, JSON.stringify(pactOf(corpusCase.consumer, 3)));
    const contract = loadContract(revisionOf(corpusCase) as OpenApiDocument);
    const { records, recorded } = await consumersOf([file], [{ label: corpusCase.id, contract }], { releases: folder });
    return judgeDeploy(records[0]!, contract, recorded[0]!);
  };

  test('with Pact files and no base, can-i-deploy gives every corpus case the verdict it gives with records', async () => {
    const wrong: string[] = [];
    for (const corpusCase of CASES) {
      const judged = await pactAlone(corpusCase);
      expect(judged.judgedBy, corpusCase.id).toEqual({ change: 'release 1.0.0, the newest its Pact files hold against (a pact names no contract)' });
      if ((judged.verdict === 'breaks') !== (corpusCase.expected === 'breaks')) wrong.push(`${corpusCase.id}: expected ${corpusCase.expected}, got ${judged.verdict} ${judged.breaks.join('; ')}`);
    }
    expect(wrong).toEqual([]);
  }, 120_000);

  test('a field its answer holds made optional or nullable, or an alternative that lacks it: each breaks it, at the field', async () => {
    const breaksOf = async (id: string) => (await pactAlone(CASES.find((each) => each.id === id)!)).breaks.join('\n');
    expect(await breaksOf('response-read-made-optional')).toMatch(/getSpace: `Space\.title`: now optional \(response-property-became-optional\); response field \/title read/);
    expect(await breaksOf('response-became-nullable')).toMatch(/getSpace: .*`Space\.title`.*nullable.*response field \/title read/);
    expect(await breaksOf('response-alternative-added-read')).toMatch(/getOrganization: `Organization\.owner`: new alternative `Team` \(response-property-variant-added\); response field \/owner read/);
    expect(await breaksOf('response-alternative-gained-read')).toMatch(/getSpace: .*cover.*\/cover/);
  }, 60_000);

  test('a pact that holds against no release is judged against the contract alone, saying why', async () => {
    const empty = path.join(scratch, 'no-releases');
    mkdirSync(empty, { recursive: true });
    const judged = await pactAlone(CASES.find((each) => each.id === 'response-field-removed')!, empty);
    expect(judged.judgedBy).toEqual({ record: expect.stringMatching(/known by Pact files only .* hold against no release \(nor the contract this package carries\) other than those asked about/) as unknown });
    expect(judged.verdict).toBe('breaks');
  }, 60_000);
});

describe('version-1 records of the corpus', () => {
  test('every case a consumer breaks on, its version-1 record breaks on; it says more only where version 1 keeps too little', () => {
    const told = CASES.map((corpusCase) => {
      const revised = revisionOf(corpusCase);
      const contracts = { revision: loadContract(revised as OpenApiDocument), base: loadContract(structuredClone(base) as OpenApiDocument) };
      return { corpusCase, verdict: judgeConsumerVerdicts(compareDocuments(base, revised), [versionOne(recordOf(corpusCase.consumer))], contracts).consumers[0]!.verdict };
    });
    expect(told.filter(({ corpusCase, verdict }) => corpusCase.expected === 'breaks' && verdict !== 'breaks').map(({ corpusCase }) => corpusCase.id)).toEqual([]);
    // Version 1 keeps no types, lengths or ranges of what was sent (a tighter bound it is within, the alternative it
    // matched), and no method and path (an operation renamed or its path parameter renamed is one it no longer finds).
    const more = told.filter(({ corpusCase, verdict }) => verdict !== corpusCase.expected).map(({ corpusCase }) => corpusCase.id);
    expect(more.sort()).toEqual(
      [
        'path-parameter-renamed', 'path-parameter-renamed-update', 'path-parameter-renamed-organization', 'path-parameter-renamed-delete', 'operation-id-changed',
        'request-max-length-lowered-within', 'query-maximum-lowered-within', 'request-max-length-lowered-to-sent', 'request-maximum-lowered-above-most', 'request-min-items-raised-within', 'request-variant-removed-other',
      ].sort(),
    );
    expect(told.filter(({ corpusCase, verdict }) => verdict === corpusCase.expected).length).toBe(CASES.length - 11);
  });
});

describe('a composed request body', () => {
  test('an alternative removed: the gate asks which alternative what it sent matched, and says what can-i-deploy says', () => {
    for (const id of ['request-variant-removed-other', 'request-variant-removed-sent']) {
      const corpusCase = CASES.find((each) => each.id === id)!;
      const revised = revisionOf(corpusCase);
      const record = recordOf(corpusCase.consumer);
      const contracts = { revision: loadContract(revised as OpenApiDocument), base: loadContract(structuredClone(base) as OpenApiDocument) };
      const [gate] = judgeConsumerVerdicts(compareDocuments(base, revised), [record], contracts).consumers;
      const [alone] = judgeConsumerVerdicts([], [record], { revision: contracts.revision }).consumers;
      expect([gate!.verdict, alone!.verdict], id).toEqual(id.endsWith('-other') ? ['untouched', 'untouched'] : ['breaks', 'breaks']);
    }
  });
});

describe('records of different precision merged', () => {
  test("a harness record merged with the typed client's breaks on every change either alone breaks on", () => {
    const client = recordOf('title-reader', 'search-service');
    const harness = structuredClone(client);
    harness.recordedBy = ['harness'];
    for (const usage of Object.values(harness.operations)) for (const answer of Object.values(usage.responses)) delete answer.read;
    const merged = mergeUsage(client, harness);
    for (const corpusCase of CASES.filter((each) => each.consumer === 'title-reader')) {
      const revised = revisionOf(corpusCase);
      const findings = compareDocuments(base, revised);
      const contracts = { revision: loadContract(revised as OpenApiDocument), base: loadContract(structuredClone(base) as OpenApiDocument) };
      const verdicts = judgeConsumerVerdicts(findings, [client, harness, merged], contracts).consumers.map((outcome) => outcome.verdict === 'breaks');
      expect(verdicts[2], `${corpusCase.id}: merged, where either alone breaks`).toBe(verdicts[0]! || verdicts[1]!);
    }
  });
});

describe('each break told once, in words true of the change', () => {
  const withBase = (corpusCase: (typeof CASES)[number], record: UsageRecord = recordOf(corpusCase.consumer)) => {
    const document = revisionOf(corpusCase);
    return judgeConsumerVerdicts(compareDocuments(base, document), [record], { revision: loadContract(document as OpenApiDocument), base: loadContract(base as OpenApiDocument) }).consumers[0]!;
  };

  test('an answer that gains an alternative without a field it reads: one break, found by both judgements, naming neither', () => {
    const judged = withBase(CASES.find((each) => each.id === 'response-answer-alternative-added')!);
    expect(judged.breaks.map((hit) => [hit.foundBy, hit.rule])).toEqual([['both', 'response-property-variant-added']]);
    expect(judged.breaks[0]!.line).not.toMatch(/judged against|did not find/);
  });

  test('with the base, no corpus case has a break the record judgement tells again beside the change', () => {
    const twice: string[] = [];
    for (const corpusCase of CASES) {
      for (const hit of withBase(corpusCase).breaks) if (hit.foundBy === 'record' && hit.baseAlreadyFailed !== true) twice.push(`${corpusCase.id}: ${hit.line}`);
    }
    expect(twice).toEqual([]);
  });

  test('a Pact judged against a contract alone says what the contract does not hold, never that something is gone or no longer there', () => {
    const untrue: string[] = [];
    for (const corpusCase of CASES) {
      const revision = loadContract(revisionOf(corpusCase) as OpenApiDocument);
      const record = pactRecord(readPact(pactOf(corpusCase.consumer), `${corpusCase.consumer}.pact.json`), revision).record;
      for (const hit of judgeConsumerVerdicts([], [record], { revision }).consumers[0]!.breaks) if (/\b(no longer|gone|is now|may now|now requires)\b/.test(hit.what)) untrue.push(`${corpusCase.id}: ${hit.what}`);
    }
    expect(untrue).toEqual([]);
  });
});

describe('short messages', () => {
  test('a hundred consumers: the first few named, how many more, and where they are all listed', () => {
    const hits: FindingConsumer[] = Array.from({ length: 100 }, (_, index) => ({ consumer: `consumer-${index}`, verdict: 'breaks', operationId: 'getSpace', evidence: 'response field /title read (200 application/json)' }));
    const sentence = consumersSentence(hits, true, { more: 'npm run check:breaking -- --consumers consumers lists them all' });
    expect(sentence).toContain(`consumer-${NAMED_CONSUMERS - 1} (`);
    expect(sentence).not.toContain(`consumer-${NAMED_CONSUMERS} (`);
    expect(sentence).toContain(`and ${100 - NAMED_CONSUMERS} more (npm run check:breaking -- --consumers consumers lists them all)`);
    expect(sentence.length).toBeLessThan(400);
  });
});

describe('one owner', () => {
  const LOWER = /\b(judgeConsumer|judgeFinding|judgeRecord|judgeChange)\b/;
  const sources = (folder: string): string[] =>
    readdirSync(path.join(repoRoot, folder), { withFileTypes: true, recursive: true })
      .filter((entry) => entry.isFile() && /\.(ts|js|mjs)$/.test(entry.name) && !entry.parentPath.includes('node_modules'))
      .map((entry) => path.relative(repoRoot, path.join(entry.parentPath, entry.name)));
  const importsOf = (file: string) => [...readFileSync(path.join(repoRoot, file), 'utf8').matchAll(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+'([^']+)'/g)];

  test('no module but verdict.ts imports the judgements it merges (the docs page generator in test/support neither)', () => {
    const judging = ['breaking', 'conformance', 'release', 'scripts', 'spec-rules', 'server', 'client', 'test/support']
      .flatMap(sources)
      .filter((file) => file !== 'conformance/judgement/verdict.ts')
      .filter((file) => importsOf(file).some(([, type, names, from]) => !type && /judgement(s)?\.ts$|record-judgement\.ts$/.test(from!) && LOWER.test(names!)));
    expect(judging).toEqual([]);
  });

  test("the judgement reads findings' typed arguments and the rule table, never their prose or a rule id's prefix", () => {
    for (const file of ['judgement.ts', 'record-judgement.ts', 'verdict.ts', 'can-i-deploy.ts']) {
      const source = readFileSync(path.join(repoRoot, 'conformance/judgement', file), 'utf8');
      expect(source, file).not.toMatch(/\.rule\.(startsWith|endsWith|includes|replace)\(|\.id\.startsWith\(|\.(detail|message)\)|\.(detail|message)\.(match|replace|split)\(/);
    }
    const argsOf = (id: string, rule: string) => compareDocuments(base, revisionOf(CASES.find((each) => each.id === id)!)).find((finding) => finding.rule === rule)!.args;
    expect(argsOf('query-became-required-unsent', 'request-parameter-became-required')).toEqual({ parameters: [{ name: 'limit', in: 'query' }] });
    expect(argsOf('response-header-removed', 'response-header-removed')).toMatchObject({ headers: ['Location'], status: '201' });
    expect(argsOf('request-tag-removed-sent', 'request-property-discriminator-tag-removed')).toMatchObject({ property: 'kind' });
  });

  test('the gate, the editor and can-i-deploy call it', () => {
    for (const file of ['breaking/consumers.ts', 'breaking/live.ts', 'conformance/judgement/can-i-deploy.ts']) {
      expect(importsOf(file).some(([, , names, from]) => from!.endsWith('verdict.ts') && /\bjudgeConsumerVerdicts\b/.test(names!)), file).toBe(true);
    }
  });
});
