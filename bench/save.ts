// The daily loop, measured: the time from saving a .tsp file to `npm run dev` serving the new contract, and `npm run check`.
//   npx tsx bench/save.ts                  BENCH_SAVES saves (5 by default) of each case
//   BENCH_PARTS=save npm run bench         the same, as a part of the bench
// In a copy of the repository, `npm run dev` runs as a developer runs it. The cases it times: bench/README.md; its
// figures: docs/performance-figures.md ("The daily loop").
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { removeTemporary, started, stop, temporaryDirectory } from './cleanup.ts';
import { median } from './measure.ts';
import { DEV_TOKEN } from '../scripts/dev.ts';
import { copyEnvironment, copyRepository } from '../scripts/repo-copy.ts';

const POLL_MS = 20;

/**
 * An operation added to spec/teams.tsp (after its last line), with an example: what `npm run dev` answers from the
 * contract until a handler implements it (docs/changing-the-contract.md adds it so: test/tooling/readme.test.ts).
 * Its request (`path`, with the dev token) and the example's answer (`answer`).
 */
export const ADDED_OPERATION = {
  tsp: `
/** What a team holds. */
model TeamStats {
  /** Number of members in the team. */
  @minValue(0)
  members: int32;
}

/** Statistics of teams. */
@tag("Teams")
interface TeamStatistics {
  /** Get the statistics of a team. */
  @summary("Get the statistics of a team")
  @opExample(#{
    parameters: #{ organizationId: "demo", teamId: "0Vby0wqo00TPjFeKcwfHCB" },
    returnType: #{ members: 3 },
  })
  @operationId("getTeamStats")
  @route("/v1/orgs/{organizationId}/teams/{teamId}/stats")
  @get
  getStats(...TeamPath): TeamStats | ResourceErrors;
}
`,
  path: '/v1/orgs/demo/teams/0Vby0wqo00TPjFeKcwfHCB/stats',
  answer: { members: 3 },
} as const;

export interface SaveFigures {
  /** Save -> served, ms, each save with the previous save's type-check done. */
  quiet: number[];
  /** Save -> served, ms, each save as soon as the previous one was served. */
  busy: number[];
  /** Save -> `[dev] TypeSpec:` error line printed, ms. */
  error: number[];
  /** Save of an added operation -> answered from its example, ms. */
  added: number[];
  /** The compile of each served save, s, as dev reports it. */
  compile: number[];
  /** The type-check after a contract change, s, as dev reports it. */
  typecheck: number[];
  /** `npm run check` once dev has stopped, ms: what an author runs before committing. */
  check: number[];
}

/** How many times `npm run check` is timed: its second run finds the caches the first wrote, as a third would. */
const CHECKS = 2;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function benchSave(saves: number): Promise<SaveFigures> {
  const work = temporaryDirectory('docs-bench-save-');
  let dev: ChildProcess | undefined;
  try {
    const copy = path.join(work, 'repository');
    copyRepository(copy);
    // Every save compiled, as on a machine that never compiled that contract (a compiled one is kept: scripts/generate.ts).
    const env = { ...copyEnvironment(), DOCS_CONTRACT_CACHE: 'off' };
    dev = started(
      spawn('npm', ['run', 'dev'], {
        cwd: copy,
        env: { ...env, PORT: '0', DATA_DIR: path.join(work, 'data') },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      }),
      true,
    );
    let output = '';
    dev.stdout!.on('data', (chunk: Buffer) => (output += chunk));
    dev.stderr!.on('data', (chunk: Buffer) => (output += chunk));
    const exited = new Promise<never>((_, reject) => dev!.once('exit', (code) => reject(new Error(`npm run dev exited (${code}):\n${output}`))));
    /** Resolves with the match once `pattern` shows in the output after `from`. */
    const line = async (pattern: RegExp, from: number, timeoutMs = 300_000): Promise<RegExpMatchArray> => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = output.slice(from).match(pattern);
        if (match) return match;
        if (Date.now() > deadline) throw new Error(`bench-save: no ${pattern} from npm run dev in ${timeoutMs / 1000} s:\n${output.slice(from)}`);
        await Promise.race([sleep(POLL_MS), exited]);
      }
    };

    const url = (await line(/\[dev\] serving (http:\/\/\S+), API reference/, 0))[1]!;
    await line(/\[dev\] types: /, 0);

    const file = path.join(copy, 'spec/spaces.tsp');
    const original = readFileSync(file, 'utf8');
    const comment = '/** Title of the space. */';
    if (!original.includes(comment)) throw new Error(`bench-save: spec/spaces.tsp no longer holds ${comment}`);
    const save = (text: string) => {
      writeFileSync(`${file}.saving`, text);
      renameSync(`${file}.saving`, file);
    };
    const title = async () => {
      const document = (await (await fetch(`${url}/openapi.json`)).json()) as { components: { schemas: { Space: { properties: { title: { description: string } } } } } };
      return document.components.schemas.Space.properties.title.description;
    };

    const figures: SaveFigures = { quiet: [], busy: [], error: [], added: [], compile: [], typecheck: [], check: [] };
    let round = 0;
    /** One save, timed until the change is served; then, when `settle`, until its type-check has reported. */
    const timedSave = async (settle: boolean) => {
      const mark = `bench-${++round}`;
      const from = output.length;
      const saved = performance.now();
      save(original.replace(comment, `/** Title of the space. ${mark} */`));
      for (;;) {
        await Promise.race([sleep(POLL_MS), exited]);
        if ((await title().catch(() => '')) === `Title of the space. ${mark}`) break;
      }
      const ms = performance.now() - saved;
      figures.compile.push(Number((await line(/\[dev\] generated\/openapi\.yaml written \(([\d.]+) s,/, from))[1]));
      if (settle) {
        // The check that follows the new schema.d.ts (not one started before it).
        const written = from + (await line(/\[dev\] generated\/schema\.d\.ts written/, from)).index!;
        figures.typecheck.push(Number((await line(/\[dev\] types: .*\(([\d.]+) s\)/, written))[1]));
      }
      return ms;
    };
    for (let index = 0; index < saves; index++) figures.quiet.push(await timedSave(true));
    for (let index = 0; index < saves; index++) figures.busy.push(await timedSave(false));
    // Settle, then the errors.
    await line(/\[dev\] types: /, output.lastIndexOf('[dev] generated/schema.d.ts written'));
    for (let index = 0; index < saves; index++) {
      const from = output.length;
      const saved = performance.now();
      // Optional, so that the models' examples stay valid: the unknown type is the only error.
      save(original.replace('model Space {', `model Space {\n  broken${index}?: NoSuchType;`));
      await line(/\[dev\] TypeSpec: \d+ error/, from);
      figures.error.push(performance.now() - saved);
      await sleep(200);
    }
    // An operation added, until answered from its example; removed, until gone (untimed).
    const teams = path.join(copy, 'spec/teams.tsp');
    const teamsText = readFileSync(teams, 'utf8');
    const saveTeams = (text: string) => {
      writeFileSync(`${teams}.saving`, text);
      renameSync(`${teams}.saving`, teams);
    };
    const stats = () =>
      fetch(`${url}${ADDED_OPERATION.path}`, { headers: { authorization: `Bearer ${DEV_TOKEN}` } }).then(
        (response) => (response.status === 200 && response.headers.get('x-contract-answer') === 'example' ? 'answered' : response.status === 404 ? 'gone' : 'other'),
        () => 'other',
      );
    save(original);
    for (let index = 0; index < saves; index++) {
      const saved = performance.now();
      saveTeams(`${teamsText}${ADDED_OPERATION.tsp}`);
      while ((await stats()) !== 'answered') await Promise.race([sleep(POLL_MS), exited]);
      figures.added.push(performance.now() - saved);
      saveTeams(teamsText);
      while ((await stats()) !== 'gone') await Promise.race([sleep(POLL_MS), exited]);
    }
    // Then `npm run check`, as the author runs it once the work is saved: dev stopped, its caches left as dev wrote them.
    await stop(dev);
    dev = undefined;
    for (let index = 0; index < Math.min(saves, CHECKS); index++) {
      const began = performance.now();
      const checked = spawnSync('npm', ['run', 'check'], { cwd: copy, env: copyEnvironment(), encoding: 'utf8' });
      if (checked.status !== 0) throw new Error(`bench-save: npm run check failed in the copy:\n${checked.stdout}${checked.stderr}`);
      figures.check.push(performance.now() - began);
    }
    return figures;
  } finally {
    if (dev) await stop(dev);
    removeTemporary(work);
  }
}

/** The figures as the bench prints them: one row per case, in seconds. */
export function saveTable(figures: SaveFigures): string {
  const row = (name: string, values: number[], scale: number) => {
    const s = values.map((value) => value / scale);
    return `| ${name} | ${median(s).toFixed(1)} | ${Math.min(...s).toFixed(1)} | ${Math.max(...s).toFixed(1)} | ${s.length} |`;
  };
  return [
    '| npm run dev, spec/spaces.tsp saved (renamed over) | median s | lowest | highest | saves |',
    '|---|---|---|---|---|',
    row('save -> new contract served, the type-check of the last save done', figures.quiet, 1000),
    row('save -> new contract served, saved again as soon as served (type-check running)', figures.busy, 1000),
    row('of which compiling spec/ (dev\'s own figure)', figures.compile, 1),
    row('save -> TypeSpec error printed', figures.error, 1000),
    row('save -> an added operation answered from its example', figures.added, 1000),
    row('type-check after a contract change, beside the server', figures.typecheck, 1),
    row('npm run check after the saves, dev stopped', figures.check, 1000),
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { benchSettings } = await import('./settings.ts');
  const figures = await benchSave(benchSettings().saves);
  console.log(saveTable(figures));
}
