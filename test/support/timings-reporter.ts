// Vitest's JSON report, with each file's whole time (`duration`: its hooks and collection too, which the report's
// `startTime`/`endTime`, from its first test to its last, leave out), its CPU (`cpuSeconds`, its children's included:
// test/support/file-cpu.ts) and its project: what scripts/suite-figures.ts reads. Used as
// `--reporter=./test/support/timings-reporter.ts`.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestModule } from 'vitest/node';
import { JsonReporter } from 'vitest/node';
import { FILE_CPU_DIR } from './file-cpu.ts';

/** Each file's CPU seconds by file and engine (`file|engine`), from the lines the workers appended to `folder`. */
function filesCpu(folder: string): Map<string, number> {
  const cpu = new Map<string, number>();
  for (const name of readdirSync(folder)) {
    for (const line of readFileSync(path.join(folder, name), 'utf8').split('\n').filter(Boolean)) {
      const { file, engine, cpuSeconds } = JSON.parse(line) as { file: string; engine: string; cpuSeconds: number };
      // A file runs once a project: a second line (the setup file imported by the test too) says the same.
      cpu.set(`${file}|${engine}`, Math.max(cpu.get(`${file}|${engine}`) ?? 0, cpuSeconds));
    }
  }
  return cpu;
}

export default class TimingsReporter extends JsonReporter {
  private root = process.cwd();
  private file: string | undefined;
  // Set before the workers start, which inherit it.
  private cpuFolder = mkdtempSync(path.join(os.tmpdir(), 'vitest-file-cpu-'));

  override onInit(ctx: Parameters<JsonReporter['onInit']>[0]): void {
    super.onInit(ctx);
    process.env[FILE_CPU_DIR] = this.cpuFolder;
    this.root = ctx.config.root;
    const configured = ctx.config.outputFile;
    this.file = typeof configured === 'string' ? configured : configured?.json;
  }

  override async onTestRunEnd(testModules: ReadonlyArray<TestModule>, ...rest: unknown[]): Promise<void> {
    await (super.onTestRunEnd as (modules: ReadonlyArray<TestModule>, ...more: unknown[]) => Promise<void>)(testModules, ...rest);
    const cpu = filesCpu(this.cpuFolder);
    rmSync(this.cpuFolder, { recursive: true, force: true });
    if (!this.file) return;
    const file = path.resolve(this.root, this.file);
    const report = JSON.parse(readFileSync(file, 'utf8')) as { testResults: Record<string, unknown>[]; endTime?: number };
    report.testResults.forEach((result, index) => {
      const module = testModules[index];
      if (!module) return;
      const diagnostic = module.diagnostic();
      result.duration = diagnostic.duration;
      result.project = module.project.name;
      const seconds = cpu.get(`${module.moduleId}|${String(module.project.config.env?.TEST_ENGINE ?? '')}`);
      if (seconds !== undefined) result.cpuSeconds = seconds;
    });
    report.endTime = Date.now();
    writeFileSync(file, JSON.stringify(report));
  }
}
