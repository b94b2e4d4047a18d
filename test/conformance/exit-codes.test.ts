// The runner's exit codes are told in two places, the command's --help and conformance/README.md (the project's README
// points there): each says the same, code by code, word for word (Markdown's emphasis and code marks aside). The
// proxy's, in `proxy --help` and conformance/proxy/README.md, likewise.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { repoRoot } from '../support/repo.ts';

const plain = (text: string) => text.replace(/[`*]/g, '').replace(/\s+/g, ' ').trim();

/** The `| **0** | … |` rows of the Markdown table that follows the file's first `header` line. */
function markdownCodes(file: string, header = '| Code | When |'): Record<string, string> {
  const lines = readFileSync(path.join(repoRoot, file), 'utf8').split('\n');
  const start = lines.findIndex((line) => line.startsWith(header));
  expect(start, `${file} has an exit-code table`).toBeGreaterThan(-1);
  const codes: Record<string, string> = {};
  for (const line of lines.slice(start + 2)) {
    const row = /^\| \*\*(\d+|N)\*\* \| (.*) \|$/.exec(line);
    if (!row) break;
    codes[row[1]!] = plain(row[2]!);
  }
  return codes;
}

/** The `Exit codes:` section of --help: `  0    text`, continued on lines indented further. */
function helpCodes(help: string): Record<string, string> {
  const lines = help.split('\n');
  const codes: Record<string, string> = {};
  let current: string | undefined;
  for (const line of lines.slice(lines.indexOf('Exit codes:') + 1)) {
    const entry = /^ {2}(\d+|N) +(.*)$/.exec(line);
    if (entry) {
      current = entry[1]!;
      codes[current] = entry[2]!;
    } else if (current && /^ {7}\S/.test(line)) {
      codes[current] += ` ${line.trim()}`;
    } else {
      break;
    }
  }
  return Object.fromEntries(Object.entries(codes).map(([code, text]) => [code, plain(text)]));
}

test('--help and conformance/README.md say the same about each exit code', () => {
  const help = execFileSync(process.execPath, ['--import', 'tsx', 'conformance/cli.ts', '--help'], { cwd: repoRoot, encoding: 'utf8' });
  const fromHelp = helpCodes(help);
  expect(Object.keys(fromHelp)).toEqual(['0', '1', '2', '3', '4', '130', '143']);
  expect(markdownCodes('conformance/README.md')).toEqual(fromHelp);
});

test("the proxy's --help and conformance/proxy/README.md say the same about each of its exit codes", () => {
  const help = execFileSync(process.execPath, ['--import', 'tsx', 'conformance/cli.ts', 'proxy', '--help'], { cwd: repoRoot, encoding: 'utf8' });
  const fromHelp = helpCodes(help);
  expect(Object.keys(fromHelp)).toEqual(['0', '1', '2', '3', 'N']);
  expect(markdownCodes('conformance/proxy/README.md', '| Exit code | When |')).toEqual(fromHelp);
});
