// What `npm run bench` is asked to do, read from its BENCH_* variables once, before it builds or starts anything. A
// value it cannot use (a part it does not have, a count that is not a whole number, a size a revision cannot hold)
// stops it at once with every such variable named, instead of a run that measures nothing, crashes minutes in, or
// passes NaN to autocannon. As for the server's own variables (server/common/config.ts), unset or empty takes the default.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { REVISION_LIMITS } from '../server/content/model.ts';
import { REQUESTS } from './fixture.ts';
import { benchedExamples } from './operation-requests.ts';

/**
 * The bench's parts, in the order it runs them. `guard` (this build against BENCH_BASELINE's, `npm run bench:guard`)
 * runs only when named.
 */
export const BENCH_PARTS = ['throughput', 'guard', 'prism', 'startup', 'memory', 'bounds', 'pipelining', 'store', 'mechanisms', 'operations', 'lists', 'revisions', 'ids', 'reset', 'save', 'client', 'spec-rule'] as const;
export type BenchPart = (typeof BENCH_PARTS)[number];

export interface BenchSettings {
  /** BENCH_PARTS: the parts to run (all by default); `prism` adds the Prism mock to the throughput part. */
  parts: BenchPart[];
  /** BENCH_SERVER: `dist`, the compiled server as `npm start` runs it (built first), or `tsx`, its sources. */
  server: 'dist' | 'tsx';
  /** BENCH_NODE_ARGS: node options for the server, split on spaces (such as `--cpu-prof`). */
  nodeArgs: string[];
  /** BENCH_SECONDS: each measurement of the throughput part, in seconds. */
  seconds: number;
  /** BENCH_RUNS: interleaved runs of the throughput part (medians shown; the spread over them from 2). */
  runs: number;
  /**
   * BENCH_WARMUP: requests of each type sent to each target of the throughput and store parts before they are measured
   * (the JIT still compiles the server's code for a while: a longer warm-up measures a server that has run longer).
   */
  warmup: number;
  /** BENCH_CONNECTIONS: autocannon's connections (10; the operations part's own default is 8). */
  connections: number;
  /** Whether BENCH_CONNECTIONS was set (the operations part takes its own default otherwise). */
  connectionsSet: boolean;
  /** BENCH_MEMORY_REQUESTS: requests of each run of the memory and bounds parts, sent in 10 parts with the RSS read after each. */
  memoryRequests: number;
  /** BENCH_PIPELINE_CONNECTIONS: connections that pipeline and read nothing in the bounds and pipelining parts (bench/pipelining.ts). */
  pipelineConnections: number;
  /** BENCH_MEMORY_PAGES: pages of the larger large space of the memory part's second run. */
  memoryPages: number;
  /** BENCH_SIZES: the list sizes of the lists part. */
  sizes: number[];
  /** BENCH_ROUNDS: calls timed per request in the lists and revisions parts. */
  rounds: number;
  /** BENCH_PAGES: the space sizes, in pages, of the revisions part. */
  pages: number[];
  /** BENCH_PAGE_BYTES: the text of each page of the revisions part, in bytes. */
  pageBytes: number;
  /** BENCH_ID_ROWS: rows in the table before the ids part times its inserts. */
  idRows: number;
  /** BENCH_RESETS: resets timed per test file in the reset part (bench/reset.ts). */
  resets: number;
  /** BENCH_SAVES: saves of each case of the save part (bench/save.ts). */
  saves: number;
  /**
   * BENCH_BASELINE: a checkout of the server to compare with (its dependencies installed and its server built,
   * `dist/server/main.js`), such as main before a change: in the throughput and guard parts, its server beside this
   * build's; in the store part, on SQLite and PostgreSQL; in the pipelining part, interleaved with this build's; none when unset.
   */
  baseline?: string;
  /**
   * BENCH_BASELINE_NODE: the node binary BENCH_BASELINE's server runs on (a checkout whose dependencies were
   * installed for another Node, such as main on the Node it was built for); the bench's own Node when unset.
   */
  baselineNode?: string;
  /**
   * BENCH_REQUESTS: the names of the throughput and store parts' requests to measure (bench/fixture.ts),
   * separated by commas, such as `PATCH a space,POST a comment`; all of them when unset.
   */
  requests?: string[];
  /**
   * BENCH_OPERATIONS: the operations part's operations, by operationId, separated by commas (every operation the
   * server implements when unset).
   */
  operations?: string[];
  /** BENCH_FRESH: requests per measurement of a write that acts on a fresh record each time (the operations part). */
  fresh: number;
  /** BENCH_FIGURES: a Markdown file the operations part writes its figures to (docs/performance-operations.md); none when unset. */
  figures?: string;
  /**
   * BENCH_SERVER_CPUS: the cores (numbers, separated by commas) the servers under test run on, the bench itself (its
   * load) and PostgreSQL on the others (bench/measure.ts, `placeProcesses`); every process on every core when unset.
   */
  serverCpus?: number[];
}

/** One or more BENCH_* variables with values the bench cannot use; the message has a line for each. */
export class BenchSettingsError extends Error {}

/**
 * The most pages the revisions part may give a space: a revision holds at most 5 000, and the part adds one with each
 * call that applies a template (`rounds` timed, after one to warm).
 */
const pagesLeft = (rounds: number) => REVISION_LIMITS.pages - (rounds + 1);

/** Reads the bench's settings from `env`; throws a BenchSettingsError naming every variable it cannot use. */
export function benchSettings(env: NodeJS.ProcessEnv = process.env): BenchSettings {
  const problems: string[] = [];
  const value = (name: string) => env[name] || undefined;

  /** `text` is a whole number from `min` to `max` (digits only: not 1e2, 0x10 or 1.5). */
  const within = (text: string, min: number, max: number) => /^\d+$/.test(text) && Number(text) >= min && Number(text) <= max;
  const whole = (name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number => {
    const text = value(name)?.trim();
    if (text === undefined) return fallback;
    if (within(text, min, max)) return Number(text);
    problems.push(`${name} must be a whole number from ${min}${max === Number.MAX_SAFE_INTEGER ? ' up' : ` to ${max}`}, got "${value(name)}"`);
    return fallback;
  };
  const wholes = (name: string, fallback: number[], min: number, max: number): number[] => {
    const text = value(name);
    if (text === undefined) return fallback;
    const items = text.split(',').map((item) => item.trim());
    if (items.every((item) => within(item, min, max))) return items.map(Number);
    problems.push(`${name} must be whole numbers from ${min} to ${max}, separated by commas, got "${text}"`);
    return fallback;
  };

  const partsText = value('BENCH_PARTS');
  let parts: BenchPart[] = BENCH_PARTS.filter((part) => part !== 'guard');
  if (partsText !== undefined) {
    const named = partsText.split(',').map((part) => part.trim()).filter(Boolean);
    const unknown = named.filter((part) => !(BENCH_PARTS as readonly string[]).includes(part));
    if (named.length === 0 || unknown.length > 0) {
      problems.push(
        `BENCH_PARTS must name parts among ${BENCH_PARTS.join(', ')}, separated by commas, got "${partsText}"` +
          (unknown.length > 0 ? ` (no part ${unknown.map((part) => `"${part}"`).join(', ')})` : ''),
      );
    } else {
      parts = BENCH_PARTS.filter((part) => named.includes(part));
    }
  }

  const serverText = value('BENCH_SERVER');
  if (serverText !== undefined && serverText !== 'tsx' && serverText !== 'dist') {
    problems.push(`BENCH_SERVER must be dist (the compiled server, the default) or tsx (its sources), got "${serverText}"`);
  }

  const secondsText = value('BENCH_SECONDS');
  let seconds = 5;
  if (secondsText !== undefined) {
    const parsed = Number(secondsText);
    if (!/^\s*\d+(\.\d+)?\s*$/.test(secondsText) || !(parsed > 0) || parsed > 3600) {
      problems.push(`BENCH_SECONDS must be a number of seconds above 0, at most 3600, got "${secondsText}"`);
    } else {
      seconds = parsed;
    }
  }

  const rounds = whole('BENCH_ROUNDS', 20, 1, 500);
  const settings: BenchSettings = {
    parts,
    server: serverText === 'tsx' ? 'tsx' : 'dist',
    nodeArgs: value('BENCH_NODE_ARGS')?.split(' ').filter(Boolean) ?? [],
    seconds,
    runs: whole('BENCH_RUNS', 2, 1, 100),
    warmup: whole('BENCH_WARMUP', 500, 1, 10_000_000),
    connections: whole('BENCH_CONNECTIONS', 10, 1, 1000),
    connectionsSet: value('BENCH_CONNECTIONS') !== undefined,
    memoryRequests: whole('BENCH_MEMORY_REQUESTS', 100_000, 10),
    pipelineConnections: whole('BENCH_PIPELINE_CONNECTIONS', 1000, 1, 10_000),
    memoryPages: whole('BENCH_MEMORY_PAGES', 4_900, 1, REVISION_LIMITS.pages),
    sizes: wholes('BENCH_SIZES', [100, 1000, 10000, 50000], 1, 10_000_000),
    rounds,
    pages: wholes('BENCH_PAGES', [100, 1000, 4900], 1, pagesLeft(rounds)),
    pageBytes: whole('BENCH_PAGE_BYTES', 2000, 1, 1_000_000),
    idRows: whole('BENCH_ID_ROWS', 100_000, 0, 100_000_000),
    resets: whole('BENCH_RESETS', 40, 1, 10_000),
    saves: whole('BENCH_SAVES', 5, 1, 100),
    fresh: whole('BENCH_FRESH', 400, 10, 100_000),
    ...(value('BENCH_BASELINE') === undefined ? {} : { baseline: value('BENCH_BASELINE') }),
    ...(value('BENCH_BASELINE_NODE') === undefined ? {} : { baselineNode: value('BENCH_BASELINE_NODE') }),
    ...(value('BENCH_FIGURES') === undefined ? {} : { figures: value('BENCH_FIGURES') }),
  };
  const requestsText = value('BENCH_REQUESTS');
  if (requestsText !== undefined) {
    const names = requestsText.split(',').map((name) => name.trim()).filter(Boolean);
    const unknown = names.filter((name) => !REQUESTS.some((request) => request.name === name));
    if (names.length === 0 || unknown.length > 0) {
      const known = REQUESTS.map((request) => request.name).join(', ');
      problems.push(`BENCH_REQUESTS must name requests among ${known}, separated by commas, got "${requestsText}"${unknown.length > 0 ? ` (no request "${unknown.join('", "')}")` : ''}`);
    } else {
      settings.requests = names;
    }
  }
  const operationsText = value('BENCH_OPERATIONS');
  if (operationsText !== undefined) {
    const names = operationsText.split(',').map((name) => name.trim()).filter(Boolean);
    const known = new Set(benchedExamples().map((example) => example.operationId));
    const unknown = names.filter((name) => !known.has(name));
    if (names.length === 0 || unknown.length > 0) {
      problems.push(`BENCH_OPERATIONS must name operations the server implements, by operationId, separated by commas, got "${operationsText}"${unknown.length > 0 ? ` (no operation "${unknown.join('", "')}")` : ''}`);
    } else {
      settings.operations = names;
    }
  }
  if (settings.baselineNode !== undefined && (settings.baseline === undefined || !existsSync(settings.baselineNode))) {
    problems.push(`BENCH_BASELINE_NODE must be a node binary, given with BENCH_BASELINE, got "${settings.baselineNode}"`);
  }
  if (settings.baseline !== undefined && !existsSync(`${settings.baseline}/dist/server/main.js`)) {
    problems.push(`BENCH_BASELINE must be a checkout whose server is built (dist/server/main.js), got "${settings.baseline}"`);
  }
  const cores = cpus().length;
  const serverCpus = [...new Set(wholes('BENCH_SERVER_CPUS', [], 0, cores - 1))];
  if (serverCpus.length >= cores) {
    problems.push(`BENCH_SERVER_CPUS must leave one core at least for the bench and PostgreSQL (this machine has ${cores}), got "${value('BENCH_SERVER_CPUS')}"`);
  } else if (serverCpus.length > 0) {
    if (spawnSync('taskset', ['--version']).error === undefined) settings.serverCpus = serverCpus;
    else problems.push('BENCH_SERVER_CPUS needs taskset (Debian\'s util-linux) on the PATH');
  }
  if (problems.length > 0) throw new BenchSettingsError(problems.join('\n'));
  return settings;
}
