// What the package tests read off the docs and the machine: the consumer's files as the docs give them, the processes
// running, and what a command changed in a folder.
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './repo.ts';

/** The blocks of a Markdown file marked `<!-- consumer-test: FILE -->`: what the consumer project gets as FILE. */
export function consumerBlocks(file: string): Map<string, string> {
  const blocks = new Map<string, string>();
  for (const [, name, code] of readFileSync(path.join(repoRoot, file), 'utf8').matchAll(/^<!-- consumer-test: (\S+) -->\n```\w+\n([\s\S]*?)\n```$/gm)) {
    blocks.set(name!, `${code}\n`);
  }
  return blocks;
}

/** The commands of a shell block: its lines but blank ones and comments, each without its trailing comment. */
export const shellLines = (block: string): string[] =>
  block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line && !line.startsWith('#'));

/** Processes of this machine whose command line names `text`. */
export function processesNaming(text: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (command.includes(text)) found.push(`${pid}: ${command}`);
    } catch {
      // ended meanwhile
    }
  }
  return found;
}

/** Every file, folder and link under `folder`, each with its size and modification time. */
export function snapshot(folder: string): Map<string, string> {
  const entries = new Map<string, string>();
  for (const file of readdirSync(folder, { recursive: true, encoding: 'utf8' })) {
    const stat = lstatSync(path.join(folder, file));
    entries.set(file, `${stat.isDirectory() ? 'dir' : stat.size} ${stat.mtimeMs}`);
  }
  return entries;
}

/** What differs between two snapshots: `+ path` added, `- path` removed, `~ path` changed. */
export function changes(before: Map<string, string>, after: Map<string, string>): string[] {
  return [
    ...[...after.keys()].filter((file) => !before.has(file)).map((file) => `+ ${file}`),
    ...[...before.keys()].filter((file) => !after.has(file)).map((file) => `- ${file}`),
    ...[...after].filter(([file, state]) => before.has(file) && before.get(file) !== state).map(([file]) => `~ ${file}`),
  ].sort();
}
