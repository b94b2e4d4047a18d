#!/usr/bin/env node
// The package's `docs-conformance` command: runs conformance/cli.ts through tsx (a dependency), in this process.
import { register } from 'tsx/esm/api';

register();
await import('./cli.ts');
