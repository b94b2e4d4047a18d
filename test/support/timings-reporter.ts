// Vitest's JSON report, with each file's whole time (`duration`: its hooks and collection too, which the report's
// `startTime`/`endTime`, from its first test to its last, leave out) and its project: what scripts/suite-figures.ts
// reads to write docs/development.md's figures. Used as `--reporter=./test/support/timings-reporter.ts`.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TestModule } from 'vitest/node';
import { JsonReporter } from 'vitest/node';

export default class TimingsReporter extends JsonReporter {
  private root = process.cwd();
  private file: string | undefined;

  override onInit(ctx: Parameters<JsonReporter['onInit']>[0]): void {
    super.onInit(ctx);
    this.root = ctx.config.root;
    const configured = ctx.config.outputFile;
    this.file = typeof configured === 'string' ? configured : configured?.json;
  }

  override async onTestRunEnd(testModules: ReadonlyArray<TestModule>, ...rest: unknown[]): Promise<void> {
    await (super.onTestRunEnd as (modules: ReadonlyArray<TestModule>, ...more: unknown[]) => Promise<void>)(testModules, ...rest);
    if (!this.file) return;
    const file = path.resolve(this.root, this.file);
    const report = JSON.parse(readFileSync(file, 'utf8')) as { testResults: Record<string, unknown>[]; endTime?: number };
    report.testResults.forEach((result, index) => {
      const module = testModules[index];
      if (!module) return;
      const diagnostic = module.diagnostic();
      result.duration = diagnostic.duration;
      result.project = module.project.name;
    });
    report.endTime = Date.now();
    writeFileSync(file, JSON.stringify(report));
  }
}
