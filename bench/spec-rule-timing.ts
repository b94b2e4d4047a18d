// The bench's `spec-rule` part, or `npx tsx bench/spec-rule-timing.ts [runs]`: what the breaking-change rule adds to a
// compile of spec/, as the language server and `npm run dev` compile (in one process, the last program's parsed files
// reused, no emit): each run compiles once with the rule and once without it, and the rule's own time (the compiler's
// linter statistics) is split into the document made from the program (@typespec/openapi3) and the rest. Medians.
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile, NodeHost, type Program, resolveCompilerOptions } from '@typespec/compiler';
import { getOpenAPI3 } from '@typespec/openapi3';
import { repoRoot } from '../breaking/files.ts';

const RULE = 'docs-platform-spec-rules/breaking-change';
const entrypoint = path.join(repoRoot, 'spec/main.tsp');

/** `runs` compiles each way after a first of each; the report's lines. */
export async function specRuleTiming(runs: number): Promise<string> {
  const [options, diagnostics] = await resolveCompilerOptions(NodeHost, { entrypoint, cwd: repoRoot, env: process.env });
  if (diagnostics.length > 0) throw new Error(`tspconfig.yaml: ${diagnostics.map((each) => each.message).join('; ')}`);
  const withRule = { ...options, noEmit: true };
  const withoutRule = { ...options, noEmit: true, linterRuleSet: { ...options.linterRuleSet, disable: { [RULE]: 'timed without it' } } };

  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  type Stats = { runtime: { total?: number; linter: { rules: Record<string, number> } } };
  const statsOf = (program: Program) => (program as unknown as { stats: Stats }).stats.runtime;

  /** One compile: its wall time, CPU time and the rule's time by the linter's statistics (ms). */
  async function timed(compileOptions: typeof options, previous?: Program): Promise<{ program: Program; wall: number; cpu: number; rule: number }> {
    const cpu = process.cpuUsage();
    const start = performance.now();
    const program = await compile(NodeHost, entrypoint, compileOptions, previous);
    const wall = performance.now() - start;
    const used = process.cpuUsage(cpu);
    if (program.diagnostics.length > 0) throw new Error(`spec/ does not compile cleanly: ${program.diagnostics.map((each) => each.message).join('; ')}`);
    return { program, wall, cpu: (used.user + used.system) / 1000, rule: statsOf(program).linter.rules[RULE] ?? 0 };
  }

  // A first compile of each (the compiler, the libraries and the gate's bundle loaded; the release read): not counted.
  let program = (await timed(withRule)).program;
  program = (await timed(withoutRule, program)).program;
  const rows = { on: [] as number[], off: [] as number[], cpuOn: [] as number[], cpuOff: [] as number[], rule: [] as number[], document: [] as number[] };
  for (let run = 0; run < runs; run++) {
    const on = await timed(withRule, program);
    const off = await timed(withoutRule, on.program);
    program = off.program;
    const start = performance.now();
    await getOpenAPI3(on.program, { 'openapi-versions': ['3.1.0'] });
    rows.document.push(performance.now() - start);
    rows.on.push(on.wall);
    rows.off.push(off.wall);
    rows.cpuOn.push(on.cpu);
    rows.cpuOff.push(off.cpu);
    rows.rule.push(on.rule);
  }
  const ms = (value: number) => `${Math.round(value)} ms`;
  return (
    [
      `spec/ compiled ${runs} times each way, in one process, no emit (as the language server compiles):`,
      `  compile with the rule:    wall ${ms(median(rows.on))}, CPU ${ms(median(rows.cpuOn))}`,
      `  compile without it:       wall ${ms(median(rows.off))}, CPU ${ms(median(rows.cpuOff))}`,
      `  the rule (linter stats):  ${ms(median(rows.rule))}, of which the document from the program ${ms(median(rows.document))}`,
      `  load average: ${os.loadavg().map((value) => value.toFixed(1)).join(' ')}`,
      '',
    ].join('\n')
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(await specRuleTiming(Number(process.argv[2] ?? 9)));
