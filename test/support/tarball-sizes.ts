// The README's package table against what packing made: each `npm run pack:…` prints one line per tarball
// (`pack: …/<name>-<version>.tgz: 1.8 MB (7.8 MB unpacked), 57 files`, scripts/pack.ts), and the table's row of that
// package must give both sizes within 10% (the client's tarball holds the README itself, so it changes with it).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './repo.ts';

const bytes = (text: string) => Number(text.split(' ')[0]) * (text.endsWith('MB') ? 1e6 : 1e3);

/** The packed and unpacked sizes in `text` (`1.8 MB (7.8 MB unpacked)`), in bytes. */
function sizes(text: string): [number, number] | undefined {
  const match = /(\d[\d.]* [kM]B) \((\d[\d.]* [kM]B) unpacked\)/.exec(text);
  return match ? [bytes(match[1]!), bytes(match[2]!)] : undefined;
}

/**
 * What is wrong with the README's size of package `name`, given what its pack script printed (`packOutput`), or
 * undefined when both sizes are within 10% of what was made. `script` names the pack script, for the message.
 */
export function readmeSizeProblem(name: string, packOutput: string, script: string): string | undefined {
  const printed = new RegExp(`${name}-[\\d.]+\\.tgz: (.*), \\d+ files`).exec(packOutput)?.[1];
  if (!printed) return `${script} printed no line for ${name}:\n${packOutput}`;
  const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  const row = readme.split('\n').find((line) => line.startsWith(`| \`${name}\``));
  const [claimedPacked, claimedUnpacked] = sizes(row ?? '') ?? [];
  const [madePacked, madeUnpacked] = sizes(printed)!;
  const close = (claimed: number | undefined, made: number) => claimed !== undefined && Math.abs(claimed - made) <= made * 0.1;
  if (close(claimedPacked, madePacked) && close(claimedUnpacked, madeUnpacked)) return undefined;
  return `README.md's package table gives ${name} as "${row?.split('|').at(-2)?.trim()}", packing made ${printed}: run npm run ${script} -- --update-readme`;
}
