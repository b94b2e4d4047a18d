// This build against another (BENCH_BASELINE) in the throughput and guard parts (throughput.ts): which requests
// moved, by the runs' own ratios; and in the guard and store parts, PostgreSQL against SQLite.
import type { BenchRequest } from './fixture.ts';
import { loadavg } from 'node:os';
import { type Measure, median } from './measure.ts';

/**
 * This build against BENCH_BASELINE's, request by request, from the runs above: each run's own ratios (the two servers
 * of a run are measured one after the other, so they share that moment's machine), req/s this/baseline and the
 * server's CPU per request baseline/this (above 1: this build is faster), and each build's req/s as a fraction of
 * Express answering the same bytes (bare.mjs): the framework's ceiling. A request has moved when every run's CPU ratio
 * lies on the same side of 1 by more than NOISE_FLOOR: a sign test, as each run pairs the two builds at one moment.
 * Were the builds the same, each run's ratio would fall on either side alike, all of n runs below by chance once in
 * 2^n; over several requests the chance that any does adds up, so the runs must be enough for it to stay under
 * FALSE_ALARM (runsNeeded), and fewer say nothing. The slower ones are returned (bench:guard exits 1 on them). The
 * runs' spread is no margin: on a loaded machine it exceeds a slowdown of a quarter that every run shows.
 */
const NOISE_FLOOR = 0.03;
const FALSE_ALARM = 0.05;
/** The runs for which an unchanged build has requests all slower in every run with a chance under FALSE_ALARM. */
export const runsNeeded = (requests: number): number => Math.ceil(Math.log2(Math.max(1, requests) / FALSE_ALARM));
export function againstBaseline<Target>(
  context: { requests: BenchRequest[]; runs: number; baseline: string; judged?: number; engine?: string },
  runsOf: (request: BenchRequest, target: Target) => Measure[],
  on: Target,
  baseline: Target,
  express?: Target,
): string[] {
  const slower: string[] = [];
  // The requests judged in the run, on every engine: the runs must keep a false alarm over all of them rare.
  const judged = context.judged ?? context.requests.length;
  const needed = runsNeeded(judged);
  const range = (ratios: number[]) => `${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`;
  console.log(`\nagainst the baseline (${context.baseline})${context.engine === undefined ? '' : ` on ${context.engine}`}, ${context.runs} runs: medians (lowest–highest run)`);
  console.log(`${'request'.padEnd(30)}${'req/s this/baseline'.padStart(22)}${'CPU baseline/this'.padStart(22)}${express === undefined ? '' : `${'this × Express'.padStart(22)}${'baseline × Express'.padStart(22)}`}  verdict`);
  for (const request of context.requests) {
    const [these, before] = [on, baseline].map((target) => runsOf(request, target));
    const rps = these!.map((measure, run) => measure.rps / before![run]!.rps);
    const cpu = these!.map((measure, run) => (before![run]!.cpuUs ?? NaN) / (measure.cpuUs ?? NaN)).filter(Number.isFinite);
    const framework = express === undefined ? undefined : runsOf(request, express);
    const ofExpress = (runs: Measure[]) => range(runs.map((measure, run) => measure.rps / framework![run]!.rps)).padStart(22);
    const ratios = cpu.length === these!.length ? cpu : rps;
    let verdict = ratios.length < needed ? `runs < ${needed}: not judged` : 'not moved';
    if (ratios.length >= needed && ratios.every((ratio) => ratio < 1 - NOISE_FLOOR)) verdict = 'SLOWER';
    else if (ratios.length >= needed && ratios.every((ratio) => ratio > 1 + NOISE_FLOOR)) verdict = 'faster';
    if (verdict === 'SLOWER') slower.push(request.name);
    console.log(
      `${request.name.padEnd(30)}${range(rps).padStart(22)}${(cpu.length > 0 ? range(cpu) : '-').padStart(22)}${framework === undefined ? '' : ofExpress(these!) + ofExpress(before!)}  ${verdict}`,
    );
  }
  console.log(
    slower.length > 0
      ? `slower than the baseline in every run: ${slower.join(', ')}`
      : `no request slower than the baseline in every run (each run's CPU ratio against 1 − ${NOISE_FLOOR}; ${needed} runs at least for ${judged} requests)`,
  );
  return slower;
}

/**
 * This build's server CPU per request on PostgreSQL over the same on SQLite, request by request (each run's own ratio:
 * the two are measured one after the other), and over the writes: the median of the writes' medians, and the lowest and
 * highest of each run's median over the writes; with the machine's load average, which these ratios move with.
 */
export function postgresAgainstSqlite<Target>(requests: BenchRequest[], runs: number, runsOf: (request: BenchRequest, target: Target) => Measure[], postgres: Target, sqlite: Target): void {
  // A run in which a target answered nothing (a stall of the whole measurement) has no ratio.
  const ratiosOf = (request: BenchRequest) => runsOf(request, postgres).map((measure, run) => (measure.cpuUs ?? NaN) / (runsOf(request, sqlite)[run]!.cpuUs ?? NaN));
  const finite = (ratios: number[]) => ratios.filter(Number.isFinite);
  const range = (ratios: number[]) =>
    ratios.length === 0 ? '-' : `${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})${ratios.length < runs ? ` of ${ratios.length}` : ''}`;
  console.log(`\nthis build, server CPU per request PostgreSQL/SQLite, ${runs} runs: median (lowest–highest run); µs on each (medians)`);
  for (const request of requests) {
    const us = (target: Target) => String(Math.round(median(finite(runsOf(request, target).map((measure) => measure.cpuUs ?? NaN)))));
    console.log(`${request.name.padEnd(30)}${range(finite(ratiosOf(request))).padStart(24)}${us(postgres).padStart(8)}${us(sqlite).padStart(8)}`);
  }
  const writes = requests.filter((request) => request.method !== 'GET');
  if (writes.length === 0) return;
  const perRun = finite(Array.from({ length: runs }, (_, run) => median(finite(writes.map((request) => ratiosOf(request)[run]!)))));
  const load = loadavg().map((value) => value.toFixed(1)).join(' ');
  console.log(
    `writes (${writes.length}): median of their medians ${median(finite(writes.map((request) => median(finite(ratiosOf(request)))))).toFixed(2)}; ` +
      `each run's median over them ${range(perRun)}; load average ${load}`,
  );
}

/**
 * PostgreSQL against SQLite (one instance), and against the baseline's PostgreSQL when there is one, as ratios of each
 * run's own figures (the targets of a run are measured one after the other, so they share that moment's machine): req/s
 * PG/SQLite, and the server's CPU per request PG/SQLite and PG/baseline; the median, and the lowest and highest run.
 */
export function ratiosOverRuns<Group extends { name: string }>(results: Map<string, Measure[]>, requests: BenchRequest[], sqlite: Group, postgres: Group, baseline: Group | undefined): void {
  const runsOf = (request: BenchRequest, group: Group) => results.get(`${request.name}\n${group.name}`)!;
  const ratio = (request: BenchRequest, of: Group, to: Group, value: (measure: Measure) => number | undefined) => {
    const [ofRuns, toRuns] = [runsOf(request, of), runsOf(request, to)];
    const ratios = ofRuns.map((measure, run) => value(measure)! / value(toRuns[run]!)!).filter((r) => Number.isFinite(r));
    if (ratios.length === 0) return '-';
    return `${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`;
  };
  console.log(`ratios of each run (median, lowest–highest): req/s PG/SQLite; server CPU per request PG/SQLite${baseline ? ', PG/baseline PG' : ''}`);
  for (const request of requests) {
    console.log(
      `${request.name.padEnd(30)}${ratio(request, postgres, sqlite, (m) => m.rps).padStart(22)}${ratio(request, postgres, sqlite, (m) => m.cpuUs).padStart(22)}` +
        (baseline ? ratio(request, postgres, baseline, (m) => m.cpuUs).padStart(22) : ''),
    );
  }
}
