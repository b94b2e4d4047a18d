// docs/packages.md's size table against what packing made: each `npm run pack:…` prints one line per tarball
// (release/pack.ts), and the table's row of that package must give the same sizes, give or take one in the last digit.
// Why the tolerance: test/README.md, "Tarball sizes".
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sizesSection } from '../../release/pack.ts';
import { repoRoot } from './repo.ts';

const bytes = (text: string) => Number(text.split(' ')[0]) * (text.endsWith('MB') ? 1e6 : 1e3);

/** The packed and unpacked sizes in `text` (`1.8 MB (8.4 MB unpacked)`), in bytes. */
function sizes(text: string): [number, number] | undefined {
  const match = /(\d[\d.]* [kM]B) \((\d[\d.]* [kM]B) unpacked\)/.exec(text);
  return match ? [bytes(match[1]!), bytes(match[2]!)] : undefined;
}

/** Whether `claimed` is `made` to two significant digits, give or take one in the last. */
const close = (claimed: number | undefined, made: number) => claimed !== undefined && Math.abs(claimed - made) <= 10 ** (Math.floor(Math.log10(made)) - 1) * 1.0001;

/**
 * What is wrong with the size table's size of package `name`, given what its pack script printed (`packOutput`), or
 * undefined when the table gives the sizes packing made. `script` names the pack script, for the message.
 */
export function sizeTableProblem(name: string, packOutput: string, script: string): string | undefined {
  const printed = new RegExp(`${name}-\\d+\\.\\d+\\.\\d+(?:-[\\w.]+)?\\.tgz: (.*), \\d+ files`).exec(packOutput)?.[1];
  if (!printed) return `${script} printed no line for ${name}:\n${packOutput}`;
  const page = readFileSync(path.join(repoRoot, 'docs/packages.md'), 'utf8');
  const section = sizesSection(page);
  const row = page
    .slice(section?.start ?? page.length, section?.end)
    .split('\n')
    .find((line) => line.startsWith(`| \`${name}\``));
  const [claimedPacked, claimedUnpacked] = sizes(row ?? '') ?? [];
  const [madePacked, madeUnpacked] = sizes(printed)!;
  if (close(claimedPacked, madePacked) && close(claimedUnpacked, madeUnpacked)) return undefined;
  return `docs/packages.md's size table gives ${name} as "${row?.split('|').at(-2)?.trim()}", packing made ${printed}: run npm run ${script} -- --update-sizes`;
}
