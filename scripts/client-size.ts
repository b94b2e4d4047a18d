// The size a browser downloads for the client: client/index.ts bundled with openapi-fetch, minified, gzipped.
//   npm run size   prints it and fails above the budget (4.5 KB gzipped)
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export const CLIENT_BUDGET_BYTES = 4.5 * 1024;

export async function clientSize(): Promise<{ minified: number; gzipped: number }> {
  const entry = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../client/index.ts');
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.contents;
  return { minified: code.length, gzipped: gzipSync(code, { level: 9 }).length };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { minified, gzipped } = await clientSize();
  console.log(`client with openapi-fetch: ${minified} bytes minified, ${gzipped} bytes gzipped (budget ${CLIENT_BUDGET_BYTES})`);
  if (gzipped > CLIENT_BUDGET_BYTES) process.exitCode = 1;
}
