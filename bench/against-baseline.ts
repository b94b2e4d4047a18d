// This build against another (BENCH_BASELINE) in the throughput and guard parts (throughput.ts): which requests
// moved, by the runs' own ratios.
import type { BenchRequest } from './fixture.ts';
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
  context: { requests: BenchRequest[]; runs: number; baseline: string },
  runsOf: (request: BenchRequest, target: Target) => Measure[],
  on: Target,
  baseline: Target,
  express: Target,
): string[] {
  const slower: string[] = [];
  const needed = runsNeeded(context.requests.length);
  const range = (ratios: number[]) => `${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`;
  console.log(`\nagainst the baseline (${context.baseline}), ${context.runs} runs: medians (lowest–highest run)`);
  console.log(`${'request'.padEnd(30)}${'req/s this/baseline'.padStart(22)}${'CPU baseline/this'.padStart(22)}${'this × Express'.padStart(22)}${'baseline × Express'.padStart(22)}  verdict`);
  for (const request of context.requests) {
    const [these, before, framework] = [on, baseline, express].map((target) => runsOf(request, target));
    const rps = these!.map((measure, run) => measure.rps / before![run]!.rps);
    const cpu = these!.map((measure, run) => (before![run]!.cpuUs ?? NaN) / (measure.cpuUs ?? NaN)).filter(Number.isFinite);
    const ofExpress = (runs: Measure[]) => runs.map((measure, run) => measure.rps / framework![run]!.rps);
    const ratios = cpu.length === these!.length ? cpu : rps;
    let verdict = ratios.length < needed ? `runs < ${needed}: not judged` : 'not moved';
    if (ratios.length >= needed && ratios.every((ratio) => ratio < 1 - NOISE_FLOOR)) verdict = 'SLOWER';
    else if (ratios.length >= needed && ratios.every((ratio) => ratio > 1 + NOISE_FLOOR)) verdict = 'faster';
    if (verdict === 'SLOWER') slower.push(request.name);
    console.log(
      `${request.name.padEnd(30)}${range(rps).padStart(22)}${(cpu.length > 0 ? range(cpu) : '-').padStart(22)}${range(ofExpress(these!)).padStart(22)}${range(ofExpress(before!)).padStart(22)}  ${verdict}`,
    );
  }
  console.log(
    slower.length > 0
      ? `slower than the baseline in every run: ${slower.join(', ')}`
      : `no request slower than the baseline in every run (each run's CPU ratio against 1 − ${NOISE_FLOOR}; ${needed} runs at least for ${context.requests.length} requests)`,
  );
  return slower;
}
