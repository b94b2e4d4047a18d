// Builds the package's entry: client/ compiled to ESM JavaScript with declarations in dist/ (npm runs it as
// `prepare`, so `npm ci` leaves a usable package), with the generated types it refers to.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Builds the client into `dist` (default the repository's dist/): `client/index.js`, `.d.ts`, `generated/schema.d.ts`. */
export function buildClient(dist = path.join(root, 'dist')): void {
  // dist/server is the server's build (scripts/build-server.ts): leave it.
  for (const folder of ['client', 'generated']) rmSync(path.join(dist, folder), { recursive: true, force: true });

  // TypeScript 5's tsc by its path: node_modules/.bin/tsc may be either compiler (TypeScript 7, which `npm run check`
  // type-checks with, declares the same command name).
  const tsc = spawnSync(
    process.execPath,
    [
      path.join(root, 'node_modules/typescript/bin/tsc'),
      'client/index.ts',
      ...['--outDir', dist, '--rootDir', '.', '--declaration', '--target', 'es2022'],
      ...['--module', 'nodenext', '--moduleResolution', 'nodenext', '--strict', '--verbatimModuleSyntax', '--skipLibCheck'],
    ],
    { cwd: root, stdio: 'inherit' },
  );
  if (tsc.status !== 0) throw new Error(`build-client: tsc exited with ${tsc.status}`);

  mkdirSync(path.join(dist, 'generated'), { recursive: true });
  copyFileSync(path.join(root, 'generated/schema.d.ts'), path.join(dist, 'generated/schema.d.ts'));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    buildClient();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
  console.log('build-client: dist/client/index.js and its declarations');
}
