#!/usr/bin/env node
// `npm run check:breaking`, started without a TypeScript loader: runs breaking/check.ts compiled into one file
// (dist/breaking-check.mjs, built on first use and whenever its sources change; see bundle.mjs). The same options
// and output as `tsx breaking/check.ts`.
(globalThis).breakingLaunched = performance.now();
import { existsSync } from 'node:fs';
import module from 'node:module';
import path from 'node:path';
import { root, runBundle } from './bundle.mjs';

// V8's code cache for the bundle, kept beside the other tools' caches (Node 22.1 and later).
try {
  if (existsSync(path.join(root, 'node_modules'))) module.enableCompileCache?.(path.join(root, 'node_modules', '.cache', 'breaking-compile'));
} catch {
  // No cache: the command runs as well, a little slower.
}
await runBundle('check');
