// `npm run dev` as a process, in a copy of the repository (scripts/repo-copy.ts), edited as editors save (in place, renamed over, deleted and created),
// each change served (/openapi.json shows it). A TypeSpec error is printed and the last good contract stays served; an operation added to the contract
// is answered from its example until a handler implements it, and one removed is a break (breaking-change, printed first, in a handful of lines) until
// declared, then one more in the one line of the declared breaks, the rest served; a server change restarts the server; the type-check reports beside
// the server in the same `[dev]` stream. test/tooling/watch-tree.test.ts tests the watcher alone; test/server/signals.test.ts stops dev through npm.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { DEV_SEED_FILE, DEV_TOKEN, devEnvironment } from '../../scripts/dev.ts';
import { ADMIN, EXAMPLE_SEED } from '../../scripts/example-world/world.ts';
import { ADDED_OPERATION } from '../../bench/save.ts';
import { copyRepository } from '../../scripts/repo-copy.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'dev-'));
const copy = path.join(scratch, 'repository');
const running: ChildProcess[] = [];
beforeAll(() => copyRepository(copy));
afterAll(async () => {
  await Promise.all(running.map(stop));
  rmSync(scratch, { recursive: true, force: true });
});

/** Stops a dev process: SIGTERM, and waits for it to exit. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Starts `node --import tsx scripts/dev.ts` (npm run dev's command) in a copy; `output()` is everything it printed, `lines(from)` what came after `from`. */
function startDev(name: string, args: string[] = [], env: Record<string, string> = {}, cwd = copy) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/dev.ts', ...args], {
    cwd,
    env: { ...process.env, PORT: '0', DATA_DIR: path.join(scratch, `data-${name}`), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk));
  const waitFor = (pattern: RegExp, from = 0, timeout = 60_000) =>
    vi.waitFor(
      () => {
        const match = output.slice(from).match(pattern);
        if (!match) throw new Error(`no ${pattern} in the output of npm run dev:\n${output.slice(from)}`);
        return match;
      },
      { timeout, interval: 50 },
    );
  return { child, output: () => output, waitFor };
}

type Dev = ReturnType<typeof startDev>;

/**
 * Declares in the copy's spec/breaking-changes.yaml the removal of an operation the server at `url` serves (its place
 * as the served contract gives it); returns what puts the file back.
 */
async function declareRemoved(url: string, operationId: string): Promise<() => void> {
  const served = ((await (await fetch(`${url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId?: string }>> }).paths;
  const [route, operations] = Object.entries(served).find(([, item]) => Object.values(item).some((operation) => operation.operationId === operationId))!;
  const method = Object.keys(operations).find((key) => operations[key]!.operationId === operationId)!;
  const file = path.join(copy, 'spec/breaking-changes.yaml');
  const declared = readFileSync(file, 'utf8');
  const pointer = `#/paths/${route.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}`;
  writeFileSync(file, `${declared}- rule: operation-removed\n  operation: ${operationId}\n  path: "${pointer}"\n  reason: A test of the dev loop.\n`);
  return () => writeFileSync(file, declared);
}

/** The served contract's description of a schema's property. */
async function served(url: string, schema: string, property: string): Promise<string | undefined> {
  const document = (await (await fetch(`${url}/openapi.json`)).json()) as {
    components: { schemas: Record<string, { properties?: Record<string, { description?: string }> }> };
  };
  return document.components.schemas[schema]?.properties?.[property]?.description;
}

/** A save as vim, sed -i and safe writes make it: a temporary file renamed over the file. */
function renamedOver(file: string, content: string): void {
  writeFileSync(`${file}.tmp4913`, content);
  renameSync(`${file}.tmp4913`, file);
}

/** A save that deletes the file and creates it again. */
function recreated(file: string, content: string): void {
  unlinkSync(file);
  writeFileSync(file, content);
}

/**
 * After a save that removes deleteTeam (`from`): dev refuses it in a handful of lines, the break first; declared, the
 * break is one more in the count, and nothing else. Returns what puts spec/breaking-changes.yaml back.
 */
async function refusedThenDeclared(dev: Dev, url: string, from: number): Promise<() => void> {
  const refused = await dev.waitFor(/\[dev\] changed: spec\/teams\.tsp; compiling the contract…\n([^]*?\[dev\] the server keeps serving the last good contract; fix the error and save again)\n/, from);
  expect(refused[1]!.split('\n').filter((line) => /^(\[dev\]|spec\/)/.test(line))).toEqual([
    expect.stringMatching(/^\[dev\] TypeSpec: 1 error\(s\), nothing written \([\d.]+ s\):$/),
    expect.stringMatching(/^spec\/teams\.tsp:\d+:\d+ - error docs-platform-spec-rules\/breaking-change: BREAKING, undeclared \(client\) operation-removed: .*deleteTeam/),
    DECLARED(19),
    '[dev] the server keeps serving the last good contract; fix the error and save again',
  ]);
  const declaring = dev.output().length;
  const restore = await declareRemoved(url, 'deleteTeam');
  const accepted = await dev.waitFor(/\[dev\] changed: spec\/breaking-changes\.yaml; compiling the contract…\n([^]*?)\[dev\] serving the new contract on/, declaring);
  expect(accepted[1]!.match(/^\[dev\] .*declared.*$/gm)).toEqual([DECLARED(20)]);
  // dev's own lines (the new server's, interleaved, name the handler it no longer serves).
  expect(accepted[1]!.split('\n').filter((line) => line.startsWith('[dev]') && /BREAKING|deleteTeam/.test(line))).toEqual([]);
  return restore;
}

/** dev's line of the declared breaks. */
const DECLARED = (count: number) => `[dev] declared: ${count} breaking changes since release 1.0.0 (npm run check:breaking lists them)`;

const until = (check: () => Promise<unknown>) => vi.waitFor(async () => expect(await check()).toBe(true), { timeout: 60_000, interval: 50 });

test('is scripts/dev.ts, run by exec so that signals reach it, with the developer settings under the environment', () => {
  const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;
  // Not through the tsx command: it SIGKILLs its child when the child does not answer a signal within 30 ms, which a
  // dev busy compiling the contract cannot, and the server would be left running.
  expect(scripts.dev).toBe('exec node --import tsx scripts/dev.ts');
  expect(devEnvironment({})).toMatchObject({
    DOCS_API_TOKEN: 'dev-token',
    ANSWER_FROM_CONTRACT: 'true',
    ALLOW_PRIVATE_NETWORKS: 'true',
    ALLOW_LOCAL_GIT: 'true',
    LOCAL_GIT_ROOT: tmpdir(),
    DATA_DIR: path.resolve('.data/dev'),
    SEED_FILE: DEV_SEED_FILE,
  });
  expect(devEnvironment({ PORT: '4000', DOCS_API_TOKEN: 'mine' })).toMatchObject({ PORT: '4000', DOCS_API_TOKEN: 'mine' });
  expect(readFileSync('.gitignore', 'utf8').split('\n')).toContain('.data/');
});

describe('saving the contract the ways editors do', () => {
  let dev: Dev;
  let url: string;
  const spaces = () => path.join(copy, 'spec/spaces.tsp');
  const original = () => readFileSync(path.join(copy, 'spec/spaces.tsp'), 'utf8');
  let text = '';
  /** spec/spaces.tsp with the Space title's doc comment ending in `mark`. */
  const marked = (mark: string) => text.replace('/** Title of the space. */', `/** Title of the space. ${mark} */`);
  const titleServed = (mark: string) => until(async () => (await served(url, 'Space', 'title')) === `Title of the space. ${mark}`);

  beforeAll(async () => {
    text = original();
    expect(text).toContain('/** Title of the space. */');
    // The server's log shows warnings only, so not where it listens: dev learns its address over IPC.
    dev = startDev('saves', ['--no-typecheck'], { LOG_LEVEL: 'warn' });
    url = (await dev.waitFor(/\[dev\] serving (http:\/\/127\.0\.0\.1:\d+), API reference (\S+)\/docs \(token dev-token/))[1]!;
    await dev.waitFor(/\[dev\] watching spec\/ and server\//);
  }, 90_000);

  test("serves the examples' world to dev-token (the demo admin's organizations), and names the API reference", async () => {
    const response = await fetch(`${url}/v1/orgs`, { headers: { authorization: `Bearer ${DEV_TOKEN}` } });
    const organizations = (EXAMPLE_SEED.organizations ?? []).filter((org) => org.members?.some((member) => member.user === ADMIN)).map((org) => org.id);
    expect(((await response.json()) as { items: { id: string }[] }).items.map((org) => org.id).sort()).toEqual(organizations.sort());
    expect(organizations).toContain('demo');
    expect(dev.output()).toContain(`API reference ${url}/docs`);
    expect(dev.output()).not.toMatch(/listening on/);
    // The breaks spec/breaking-changes.yaml accepts: one line, counted, naming the command that lists them.
    expect(dev.output().match(/^\[dev\] .*declared.*$/gm)).toEqual([DECLARED(19)]);
  });

  // Each way an editor saves, as the watcher sees it, is test/tooling/watch-tree.test.ts's (each twice); here, what dev
  // does with a save: the two that replace the file (the next tests write in place), the first twice in a row.
  const ways: [string, (file: string, content: string) => void, number][] = [
    ['a temporary file renamed over it (vim, sed -i, safe write), twice in a row', renamedOver, 2],
    ['deleted and created again', recreated, 1],
  ];
  for (const [way, save, rounds] of ways) {
    test(`${way}: each change is served`, async () => {
      for (let round = 1; round <= rounds; round++) {
        const from = dev.output().length;
        const mark = `${way.split(' ')[0]}-${round}`;
        save(spaces(), marked(mark));
        await titleServed(mark);
        // The new server answers as soon as it listens, a moment before dev hears so and says it: wait for the line.
        await dev.waitFor(/\[dev\] changed: spec\/spaces\.tsp; compiling the contract…\n[^]*\[dev\] serving the new contract on/, from);
        expect(dev.output().slice(from).match(/^\[dev\] .*declared.*$/gm)).toEqual([DECLARED(19)]);
      }
    }, 120_000);
  }

  test('a new file in a new folder, imported, then renamed over; swap and backup files are ignored', async () => {
    mkdirSync(path.join(copy, 'spec/extra'));
    const glossary = path.join(copy, 'spec/extra/glossary.tsp');
    const term = (mark: string) => `namespace DocsPlatform;\n\n/** A term of a glossary. */\nmodel GlossaryTerm {\n  /** The term. ${mark} */\n  name: string;\n}\n`;
    writeFileSync(glossary, term('new'));
    const main = path.join(copy, 'spec/main.tsp');
    writeFileSync(main, readFileSync(main, 'utf8').replace(/^(import "\.\/spaces\.tsp";)$/m, '$1\nimport "./extra/glossary.tsp";'));
    await until(async () => (await served(url, 'GlossaryTerm', 'name')) === 'The term. new');
    writeFileSync(`${glossary}.new`, term('changed'));
    renameSync(`${glossary}.new`, glossary);
    await until(async () => (await served(url, 'GlossaryTerm', 'name')) === 'The term. changed');

    const from = dev.output().length;
    for (const name of ['.spaces.tsp.swp', 'spaces.tsp~', '4913', '.#spaces.tsp']) writeFileSync(path.join(copy, 'spec', name), 'model {');
    writeFileSync(spaces(), marked('after-swap-files'));
    await titleServed('after-swap-files');
    const changed = dev.output().slice(from).match(/\[dev\] changed: .*/g);
    expect(changed).toEqual(['[dev] changed: spec/spaces.tsp; compiling the contract…']);
  }, 120_000);

  test('a TypeSpec error is printed within the same moment, and the last good contract stays served until it is fixed', async () => {
    const good = await served(url, 'Space', 'title');
    expect(good).toMatch(/^Title of the space\. /);
    const from = dev.output().length;
    // Optional, so that the models' examples stay valid: the unknown type is the only error.
    writeFileSync(spaces(), marked('broken').replace('model Space {', 'model Space {\n  broken?: NoSuchType;'));
    const error = await dev.waitFor(/\[dev\] TypeSpec: 1 error\(s\), nothing written \([\d.]+ s\):\n(.*)\n\[dev\] the server keeps serving the last good contract/, from);
    expect(error[1]).toMatch(/^spec\/spaces\.tsp:\d+:\d+ - error invalid-ref: Unknown identifier NoSuchType$/);
    expect(await served(url, 'Space', 'title')).toBe(good);
    writeFileSync(spaces(), marked('fixed'));
    await titleServed('fixed');
  }, 120_000);

  test('an operation added to spec/ is answered from its example on save, while the others answer for real; one removed leaves the rest served, its handler reported', async () => {
    const teams = path.join(copy, 'spec/teams.tsp');
    const before = readFileSync(teams, 'utf8');
    let restoreDeclarations = () => {};
    const save = (text: string) => {
      writeFileSync(`${teams}.saving`, text);
      renameSync(`${teams}.saving`, teams);
    };
    const call = (method: string, address: string, body?: unknown) =>
      fetch(`${url}${address}`, {
        method,
        headers: { authorization: `Bearer ${DEV_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    try {
      const from = dev.output().length;
      save(`${before}${ADDED_OPERATION.tsp}`);
      const stats = ADDED_OPERATION.path;
      await until(async () => (await call('GET', stats)).status === 200);
      const answer = await call('GET', stats);
      expect(answer.headers.get('x-contract-answer')).toBe('example');
      expect(await answer.json()).toEqual(ADDED_OPERATION.answer);
      // Checked as any request: the token, then the parameters.
      expect((await fetch(`${url}${stats}`)).status).toBe(401);
      expect((await call('GET', `/v1/orgs/demo/teams/${'x'.repeat(129)}/stats`)).status).toBe(400);
      await dev.waitFor(/answering from the contract, not implemented: getTeamStats \(no handler\)/, from);
      // The rest answers for real: a team created is read back, without the header.
      const created = (await (await call('PUT', '/v1/orgs/demo/teams', { title: 'Writers' })).json()) as { id: string };
      const read = await call('GET', `/v1/orgs/demo/teams/${created.id}`);
      expect(read.headers.get('x-contract-answer')).toBeNull();
      expect(((await read.json()) as { title: string }).title).toBe('Writers');
      const health = (await (await fetch(`${url}/health`)).json()) as { answeredFromContract?: string[] };
      expect(health.answeredFromContract).toEqual(['getTeamStats']);

      // deleteTeam removed from the contract: a break of the last release (the breaking-change rule), printed where it
      // was made and not served; declared in spec/breaking-changes.yaml, it is a note, and its handler is reported,
      // the rest served.
      const removed = dev.output().length;
      const withoutDelete = before.replace(/\n {2}\/\*\* Delete a team\.[^]*?\n {2}delete\(\.\.\.TeamPath\)[^\n]*\n/, '\n');
      expect(withoutDelete).not.toContain('"deleteTeam"');
      save(withoutDelete);
      restoreDeclarations = await refusedThenDeclared(dev, url, removed);
      // A team that does not exist: deleted by the old server (204), refused by the new one (405).
      await until(async () => (await call('DELETE', '/v1/orgs/demo/teams/no-such-team')).status === 405);
      await dev.waitFor(/handlers of no operation of the contract, not served: deleteTeam/, removed);
      expect(((await (await call('GET', `/v1/orgs/demo/teams/${created.id}`)).json()) as { title: string }).title).toBe('Writers');
      expect((await call('GET', stats)).status).toBe(404);
    } finally {
      restoreDeclarations();
      save(before);
    }
    await until(async () => (await call('DELETE', '/v1/orgs/demo/teams/no-such-team')).status === 204);
  }, 180_000);

  test('a server file saved: the server restarts on it', async () => {
    const from = dev.output().length;
    const file = path.join(copy, 'server/common/errors.ts');
    writeFileSync(`${file}.tmp`, `${readFileSync(file, 'utf8')}\n// saved\n`);
    renameSync(`${file}.tmp`, file);
    await dev.waitFor(/\[dev\] changed: server\/common\/errors\.ts; restarting…\n[^]*\[dev\] serving the changed server on/, from);
    const response = await fetch(`${url}/v1/orgs`, { headers: { authorization: `Bearer ${DEV_TOKEN}` } });
    expect(response.status).toBe(200);
  }, 60_000);

  afterAll(() => stop(dev.child));
});

test('the type-check runs beside the server and reports in the [dev] stream', async () => {
  // A copy of its own, as the repository is (the saves above changed generated/, which most of the project imports):
  // the first check, of the whole project, starts from the repository's state (scripts/repo-copy.ts).
  const own = path.join(scratch, 'types');
  copyRepository(own);
  const dev = startDev('types', [], {}, own);
  await dev.waitFor(/\[dev\] serving http/);
  // The first check is of the whole project; later ones of what changed.
  await dev.waitFor(/\[dev\] types: the project type-checks \([\d.]+ s\)/, 0, 240_000);
  const from = dev.output().length;
  const file = path.join(own, 'server/dev-check.ts');
  writeFileSync(file, "export const count: number = 'seven';\n");
  const report = await dev.waitFor(/\[dev\] types: 1 type error\(s\) \([\d.]+ s\):\n(.*)/, from, 120_000);
  expect(report[1]).toMatch(/^server\/dev-check\.ts\(1,14\): error TS2322: Type 'string' is not assignable to type 'number'\.$/);
  // The server restarted on the change all the same: the type-check does not hold it back.
  await dev.waitFor(/\[dev\] serving the changed server on/, from);
  const fixed = dev.output().length;
  unlinkSync(file);
  await dev.waitFor(/\[dev\] types: the project type-checks/, fixed, 120_000);
  await stop(dev.child);
}, 420_000);
