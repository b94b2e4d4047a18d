// The `bounds` part: RSS of the compiled server (both engines, speed mechanisms on and off) after requests each carrying
// a value of its own (Content-Type parameter, unknown query name, Accept value, unknown token, path id) against as many
// with one value: the ratio of each run's second half, its spread, the growth within a run. Then connections that
// pipeline thousands of requests and read nothing (bench/pipelining.ts): RSS per connection, and a well-behaved client's
// slowest answer (server/docs/limits.md, "What grows with requests", "Requests pipelined on one connection").
import { readFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { stop } from './cleanup.ts';
import { BENCH_TOKEN, fixture } from './fixture.ts';
import { answered, freePort, median, serverCommand, spawnServer } from './measure.ts';
import { PIPELINE_HOLD_MS, PIPELINE_REQUESTS, pipelineLoad, withSeededPostgres } from './pipelining.ts';
import type { BenchSettings } from './settings.ts';

const PARTS = 10;
const WARMUP = 2000;
const spaces = `/v1/orgs/${fixture.organizations[0]!.id}/spaces`;
const auth = { authorization: `Bearer ${BENCH_TOKEN}` };

/** The five kinds of request, each made with the value `n`. */
const KINDS: ((n: number) => { path: string; headers: Record<string, string> })[] = [
  (n) => ({ path: spaces, headers: { ...auth, 'content-type': `application/json; x=${n}` } }),
  (n) => ({ path: `${spaces}?x${n}=1`, headers: auth }),
  (n) => ({ path: spaces, headers: { ...auth, accept: `application/x-${n}, application/json` } }),
  (n) => ({ path: spaces, headers: { authorization: `Bearer unknown-${n}` } }),
  (n) => ({ path: `/v1/spaces/missing-${n}`, headers: auth }),
];

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** `amount` requests of the five kinds in turn, each with a new value (`distinct`) or the value 0. */
function send(url: string, amount: number, connections: number, distinct: boolean): Promise<void> {
  let next = 1;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        connections,
        amount,
        requests: KINDS.map((kind) => ({
          method: 'GET' as const,
          setupRequest: (request: autocannon.Request) => ({ ...request, ...kind(distinct ? next++ : 0) }),
        })),
      },
      (error) => (error ? reject(error) : resolve()),
    );
  });
}

interface Setting {
  engine: 'SQLite' | 'PostgreSQL';
  speed: 'on' | 'off';
}

/** The RSS readings of one run: after start-up and warm-up, then after each tenth of the requests. */
async function run(settings: BenchSettings, env: Record<string, string>, distinct: boolean): Promise<number[]> {
  const port = await freePort();
  const { child, output } = spawnServer(serverCommand(settings), { PORT: String(port), LOG_LEVEL: 'silent', ...env });
  const url = `http://127.0.0.1:${port}`;
  try {
    await answered(`${url}/v1/orgs`, child, output);
    await send(url, WARMUP, settings.connections, false);
    const rss = [rssMb(child.pid!)];
    for (let part = 0; part < PARTS; part++) {
      await send(url, Math.round(settings.memoryRequests / PARTS), settings.connections, distinct);
      rss.push(rssMb(child.pid!));
    }
    return rss;
  } finally {
    await stop(child);
  }
}

export async function bounds(settings: BenchSettings): Promise<void> {
  await withSeededPostgres('docs-bench-bounds-', async ({ dir, seed, postgres, admin }) => {
    let databases = 0;
    const envOf = async ({ engine, speed }: Setting): Promise<Record<string, string>> => {
      const name = `bounds_${databases++}`;
      const where: Record<string, string> =
        engine === 'SQLite' ? { DATA_DIR: path.join(dir, name) } : { DATA_DIR: path.join(dir, name), DATABASE_URL: postgres.url(name) };
      if (engine === 'PostgreSQL') await admin.query(`CREATE DATABASE ${name}`);
      return { ...where, SEED_FILE: seed, ...(speed === 'off' ? { SPEEDUPS_OFF: 'all' } : {}) };
    };
    console.log(
      `bounds: RSS in MB after ${settings.memoryRequests} requests cycling through five kinds (a Content-Type parameter, an unknown query name, ` +
        `an Accept value, an unknown token, a path id), each with a new value (distinct) or one value (same), ${settings.connections} connections, ` +
        `${settings.runs} runs of each on servers of their own, in turn first; per run, the median of the readings after each tenth of its second half. ` +
        'RSS: the median over the runs; ratio: distinct / same, median and spread over the runs; growth: the last reading less the first (after start-up and warm-up), median',
    );
    console.log(`${'engine'.padEnd(12)}${'speed'.padEnd(8)}${'same'.padStart(8)}${'distinct'.padStart(10)}${'ratio'.padStart(8)}${'spread'.padStart(14)}${'growth same'.padStart(13)}${'distinct'.padStart(10)}`);
    const settingsRun: Setting[] = [
      { engine: 'SQLite', speed: 'on' },
      { engine: 'SQLite', speed: 'off' },
      { engine: 'PostgreSQL', speed: 'on' },
      { engine: 'PostgreSQL', speed: 'off' },
    ];
    const secondHalf = (rss: number[]) => median(rss.slice(1 + PARTS / 2));
    const growth = (rss: number[]) => rss.at(-1)! - rss[0]!;
    for (const setting of settingsRun) {
      const runs: { same: number[]; distinct: number[] }[] = [];
      for (let index = 0; index < settings.runs; index++) {
        // Each in turn first: what one run leaves behind (the cores' caches, PostgreSQL's) does not always fall on the same kind.
        const readings: Partial<Record<'same' | 'distinct', number[]>> = {};
        for (const distinct of index % 2 === 0 ? [false, true] : [true, false]) {
          readings[distinct ? 'distinct' : 'same'] = await run(settings, await envOf(setting), distinct);
        }
        runs.push(readings as { same: number[]; distinct: number[] });
      }
      const ratios = runs.map(({ same, distinct }) => secondHalf(distinct) / secondHalf(same));
      const mb = (value: number) => value.toFixed(0);
      console.log(
        `${setting.engine.padEnd(12)}${setting.speed.padEnd(8)}${mb(median(runs.map((each) => secondHalf(each.same)))).padStart(8)}` +
          `${mb(median(runs.map((each) => secondHalf(each.distinct)))).padStart(10)}${median(ratios).toFixed(2).padStart(8)}` +
          `${`${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`.padStart(14)}` +
          `${mb(median(runs.map((each) => growth(each.same)))).padStart(13)}${mb(median(runs.map((each) => growth(each.distinct)))).padStart(10)}`,
      );
    }
    await pipelining(settings, settingsRun, envOf);
  });
}

/** The pipelining load (bench/pipelining.ts) on a server of each setting, with a token and without. */
async function pipelining(settings: BenchSettings, settingsRun: Setting[], envOf: (setting: Setting) => Promise<Record<string, string>>): Promise<void> {
  console.log(
    `\nbounds, pipelining: ${settings.pipelineConnections} connections each writing ${PIPELINE_REQUESTS} pipelined GET ${spaces} and reading nothing, ` +
      `held ${PIPELINE_HOLD_MS / 1000} s, while a well-behaved client asks on its own connection every 20 ms. RSS in MB before and at the peak, ` +
      'growth per connection in kB; the well-behaved client (ms): its usual answer (median before), the 99th percentile and slowest of its answers ' +
      'during the load, its slowest in the 8 s after it, and how long after the attackers closed it was answered at its usual speed again ' +
        '(back: the end of the last second whose median answer was over twice the usual one)',
  );
  console.log(
    `${'engine'.padEnd(12)}${'speed'.padEnd(8)}${'token'.padEnd(7)}${'before'.padStart(8)}${'peak'.padStart(8)}${'kB/conn'.padStart(9)}` +
      `${'usual'.padStart(8)}${'p99'.padStart(8)}${'slowest'.padStart(9)}${'after'.padStart(8)}${'back'.padStart(8)}${'failed'.padStart(8)}`,
  );
  for (const setting of settingsRun) {
    for (const token of [false, true]) {
      const port = await freePort();
      const env = await envOf(setting);
      // The attackers' connections and the well-behaved client's: MAX_CONNECTIONS is not what is measured here.
      const { child, output } = spawnServer(serverCommand(settings), { PORT: String(port), LOG_LEVEL: 'silent', MAX_CONNECTIONS: String(settings.pipelineConnections + 100), ...env });
      const url = `http://127.0.0.1:${port}`;
      try {
        await answered(`${url}/v1/orgs`, child, output);
        await send(url, WARMUP, settings.connections, false);
        const figures = await pipelineLoad(url, child.pid!, {
          path: spaces,
          ...(token ? { authorization: auth.authorization } : {}),
          connections: settings.pipelineConnections,
          requests: PIPELINE_REQUESTS,
          holdMs: PIPELINE_HOLD_MS,
        });
        console.log(
          `${setting.engine.padEnd(12)}${setting.speed.padEnd(8)}${(token ? 'yes' : 'no').padEnd(7)}${figures.baseMb.toFixed(0).padStart(8)}` +
            `${figures.peakMb.toFixed(0).padStart(8)}${figures.perConnectionKb.toFixed(0).padStart(9)}${figures.usualMs.toFixed(1).padStart(8)}` +
            `${figures.p99Ms.toFixed(0).padStart(8)}${figures.slowestMs.toFixed(0).padStart(9)}${figures.slowestAfterMs.toFixed(0).padStart(8)}` +
            `${figures.backMs.toFixed(0).padStart(8)}${String(figures.failures).padStart(8)}`,
        );
      } finally {
        await stop(child);
      }
    }
  }
}
