// No measured figure in a source comment: a comment says what is true of the code and why; a measurement lives in
// docs/performance*.md (and the READMEs' timing sections), which say when and how it was taken.
// An approximate quantity ("tens of MB") counts too. Why, and what counts: test/README.md, "No measured figure in a comment".
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';
import { repoRoot } from '../support/repo.ts';

/** The source folders whose comments are checked. */
const FOLDERS = ['server', 'conformance', 'compare', 'breaking', 'release', 'bench', 'scripts', 'client', 'spec-rules'];

/** What a measured figure looks like in prose, each with what it catches. */
const MEASUREMENTS: { pattern: RegExp; what: string }[] = [
  { pattern: /\d\s?µs\b/, what: 'a time in microseconds' },
  { pattern: /\d[\d.]*\s?(?:µs|ms|s|MB|kB|KB|MiB|%)?\s?(?:->|→)\s?\d/, what: 'a before and after' },
  { pattern: /\bfrom \d[\d.,]*(?:[-–]\d[\d.,]*)?\s?(?:µs|ms|s|MB|kB|KB|%)? to \d[\d.,]*(?:[-–]\d[\d.,]*)?\s?(?:µs|ms|s|MB|kB|KB|%)/, what: 'a before and after' },
  { pattern: /\b\d[\d.]*(?:\s?(?:to|-)\s?\d[\d.]*)? ?(?:times|x) (?:faster|slower|cheaper|smaller|larger)\b/, what: 'a speed-up' },
  { pattern: /\b\d[\d.]*\s?% (?:of|more|less|faster|slower|fewer)\b/, what: 'a share' },
  { pattern: /\b(?:a|one|two) (?:thirds?|quarter|fifth|tenth) of (?:the|a|its|what) (?:CPU|time|start|compile|request|GET|POST)\b/, what: 'a share of a cost' },
  { pattern: /\bcontract's \d[\d ]*\d? (?:references|response schemas|schemas|paths|operations)\b/, what: "a count of the contract's parts" },
  { pattern: /\b(?:took|takes|costs?) (?:about )?\d[\d.]*\s?(?:µs|ms|s|seconds|MB)\b/, what: 'a measured cost' },
  {
    // A count word with a unit of time, size or rate: "tens of MB", "a few hundred ms", "several seconds".
    pattern:
      /\b(?:[Tt]ens|[Dd]ozens|[Hh]undreds|[Tt]housands|[Mm]illions|[Aa] few|[Aa] couple|[Ss]everal)(?: (?:hundred|thousand|million))?(?: of)? (?:ns|µs|us|ms|s|nanoseconds?|microseconds?|milliseconds?|seconds?|minutes?|hours?|B|bytes|[kKMGT]i?B|kilobytes|megabytes|gigabytes|req\/s|requests per second)(?![\w/])/,
    what: 'an approximate quantity',
  },
];

/** The comments of a source file (`name` gives its kind: .ts, .mjs…), with the line each starts on. */
export function commentsOf(name: string, text: string): { line: number; text: string }[] {
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
  const comments = new Map<number, string>();
  const visit = (node: ts.Node) => {
    for (const range of [...(ts.getLeadingCommentRanges(text, node.pos) ?? []), ...(ts.getTrailingCommentRanges(text, node.end) ?? [])]) {
      comments.set(range.pos, text.slice(range.pos, range.end));
    }
    node.getChildren(source).forEach(visit);
  };
  visit(source);
  return [...comments].sort(([a], [b]) => a - b).map(([start, comment]) => ({ line: source.getLineAndCharacterOfPosition(start).line + 1, text: comment }));
}

/** `file:line: what: the words` for each measured figure in the comments of `text`. */
export function measuredFigures(file: string, text: string): string[] {
  return commentsOf(file, text).flatMap(({ line, text: comment }) => {
    // Its words on one line, without what it quotes: a code span or a quotation is an example of output or a title.
    const prose = comment.replace(/\s*\n\s*(?:\*|\/\/)?\s*/g, ' ').replace(/`[^`]*`|"[^"]*"/g, '…');
    return MEASUREMENTS.flatMap(({ pattern, what }) => {
      const match = pattern.exec(prose);
      return match ? [`${file}:${line}: ${what}: "${match[0]}"`] : [];
    });
  });
}

describe('source comments', () => {
  test('a measurement in a comment is found, in either kind of comment and across its lines; a constant is not', () => {
    const text = [
      '// GET a space went from 221 to 182 µs of CPU.',
      '/**',
      ' * js-yaml reads it 4 to 6 times faster; the exclusive lock took an indexed read 8.4 -> 3.7',
      ' * and was a fifth of the CPU',
      ' * of a start.',
      ' */',
      'const limit = 4 * 1024 * 1024; // at most 4 MiB, read every 20 ms, 30 s by default',
      "const text = '// 3 -> 4 in a string is no comment';",
      'const slash = /\\/\\/ 2 -> 3 µs/;',
      'const template = `${slash} // 5 -> 6 µs`;',
      '// prints `maxLength 255 → 100`, as "How to make Express 2x faster" says',
      '// kept parsed, which takes tens of MB and a few hundred ms',
      '/* read again several',
      ' * seconds later */',
      '// sites hold tens of items, about as many bytes as characters; a few requests at a time, within "a few ms"',
    ].join('\n');
    expect(measuredFigures('f.ts', text)).toEqual([
      'f.ts:1: a time in microseconds: "2 µs"',
      'f.ts:1: a before and after: "from 221 to 182 µs"',
      'f.ts:2: a before and after: "8.4 -> 3"',
      'f.ts:2: a speed-up: "4 to 6 times faster"',
      'f.ts:2: a share of a cost: "a fifth of the CPU"',
      'f.ts:12: an approximate quantity: "tens of MB"',
      'f.ts:13: an approximate quantity: "several seconds"',
    ]);
  });

  test(`no comment of ${FOLDERS.join(', ')} carries a measured figure (docs/performance*.md holds them)`, () => {
    const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', ...FOLDERS], { cwd: repoRoot, encoding: 'utf8' })
      .split('\0')
      .filter((file) => /\.(?:ts|mts|cts|mjs|cjs|js)$/.test(file) && !file.endsWith('.d.ts'));
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((file) => measuredFigures(file, readFileSync(path.join(repoRoot, file), 'utf8')));
    expect(found).toEqual([]);
  });
});
