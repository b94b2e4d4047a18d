// The README's package table against what packing made: each `npm run pack:…` prints one line per tarball
// (`pack: …/<name>-<version>.tgz: 1.8 MB (8.3 MB unpacked), 57 files`, scripts/pack.ts, two significant digits), and
// the table's row of that package must give the same sizes, as `npm run pack:… -- --update-readme` writes them.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './repo.ts';

/**
 * What is wrong with the README's size of package `name`, given what its pack script printed (`packOutput`), or
 * undefined when the table gives the sizes packing made. `script` names the pack script, for the message.
 */
export function readmeSizeProblem(name: string, packOutput: string, script: string): string | undefined {
  const printed = new RegExp(`${name}-[\\d.]+\\.tgz: (.*), \\d+ files`).exec(packOutput)?.[1];
  if (!printed) return `${script} printed no line for ${name}:\n${packOutput}`;
  const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  const row = readme.split('\n').find((line) => line.startsWith(`| \`${name}\``));
  const claimed = row?.split('|').at(-2)?.trim();
  if (claimed === printed) return undefined;
  return `README.md's package table gives ${name} as "${claimed}", packing made ${printed}: run npm run ${script} -- --update-readme`;
}
