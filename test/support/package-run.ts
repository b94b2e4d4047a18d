// Global setup: a folder of this run for what the package tests share (support/published-release.ts makes the release
// there once, when a file first asks for it), removed after the run; or PACKAGE_RUN_DIR, a folder several runs share
// (`.ci/run`'s runtimes: the release its first run made is the others'), which the caller removes.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A folder of this run where the shared release is made, once, by the first file that asks for it. */
    packageRunDir: string;
  }
}

export default function setup(project: TestProject) {
  const shared = process.env.PACKAGE_RUN_DIR;
  if (shared) {
    mkdirSync(shared, { recursive: true });
    project.provide('packageRunDir', path.resolve(shared));
    return undefined;
  }
  const folder = mkdtempSync(path.join(os.tmpdir(), 'package-run-'));
  project.provide('packageRunDir', folder);
  return () => rmSync(folder, { recursive: true, force: true });
}
