// This build against another (BENCH_BASELINE) in the throughput and guard parts (throughput.ts): which requests
// moved, by the runs' own ratios.
import type { BenchRequest } from './fixture.ts';
import { type Measure, median } from './measure.ts';

/**
 * This build against BENCH_BASELINE's, request by request, from the runs above: each run's own ratios (the two servers
 * of a run are measured one after the other, so they share that moment's machine), req/s this/baseline and the
 * server's CPU per request baseline/this (above 1: this build is faster), and each build's req/s as a fraction of
 * Express answering the same bytes (bare.mjs): the framework's ceiling. A request has moved when every run's CPU ratio
 * lies on the same side of 1 by more than the runs' spread of it (highest less lowest) and by more than
 * NOISE_FLOOR; the slower ones are returned (bench:guard exits 1 on them). With one run nothing is said moved.
 */
const NOISE_FLOOR = 0.03;
export function againstBaseline<Target>(
  context: { requests: BenchRequest[]; runs: number; baseline: string },
  runsOf: (request: BenchRequest, target: Target) => Measure[],
  on: Target,
  baseline: Target,
  express: Target,
): string[] {
  const slower: string[] = [];
  const range = (ratios: number[]) => `${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`;
  console.log(`\nagainst the baseline (${context.baseline}), ${context.runs} runs: medians (lowest–highest run)`);
  console.log(`${'request'.padEnd(30)}${'req/s this/baseline'.padStart(22)}${'CPU baseline/this'.padStart(22)}${'this × Express'.padStart(22)}${'baseline × Express'.padStart(22)}  verdict`);
  for (const request of context.requests) {
    const [these, before, framework] = [on, baseline, express].map((target) => runsOf(request, target));
    const rps = these!.map((measure, run) => measure.rps / before![run]!.rps);
    const cpu = these!.map((measure, run) => (before![run]!.cpuUs ?? NaN) / (measure.cpuUs ?? NaN)).filter(Number.isFinite);
    const ofExpress = (runs: Measure[]) => runs.map((measure, run) => measure.rps / framework![run]!.rps);
    const ratios = cpu.length === these!.length ? cpu : rps;
    const spread = Math.max(...ratios) - Math.min(...ratios);
    const margin = Math.max(spread, NOISE_FLOOR);
    let verdict = 'within the spread';
    if (ratios.length > 1 && ratios.every((ratio) => ratio < 1 - margin)) verdict = 'SLOWER';
    else if (ratios.length > 1 && ratios.every((ratio) => ratio > 1 + margin)) verdict = 'faster';
    if (verdict === 'SLOWER') slower.push(request.name);
    console.log(
      `${request.name.padEnd(30)}${range(rps).padStart(22)}${(cpu.length > 0 ? range(cpu) : '-').padStart(22)}${range(ofExpress(these!)).padStart(22)}${range(ofExpress(before!)).padStart(22)}  ${verdict}`,
    );
  }
  console.log(
    slower.length > 0
      ? `slower than the baseline beyond the spread: ${slower.join(', ')}`
      : 'no request slower than the baseline beyond the spread (each run\'s CPU ratio, lowest to highest, against 1)',
  );
  return slower;
}
