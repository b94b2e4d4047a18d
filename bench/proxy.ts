// The cost and the findings of the validating proxy (`docs-conformance proxy`, conformance/proxy/proxy.ts) beside Prism's
// proxy (`prism proxy`): `npx tsx bench/proxy.ts`. Overhead: the reference server loaded directly and through each
// proxy, interleaved; findings: the same seeded mistakes through both. What it sends and prints, and its settings:
// bench/README.md; its figures: docs/performance-harness-and-proxy.md.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, createServer, type IncomingMessage, request, type Server } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { ProxyReport } from '../conformance/proxy/proxy-report.ts';
import { leadsGroup, removeTemporary, started, stop, temporaryDirectory } from './cleanup.ts';
import { buildConformance, CONFORMANCE_BIN } from '../scripts/build-conformance.ts';
import { startNodeOptions } from '../scripts/build-server.ts';
import { BENCH_TOKEN, fixture } from './fixture.ts';
import { answered, cpuMs, freePort, type Measure, median, rotated } from './measure.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PRISM = '@stoplight/prism-cli@5.16.0';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const RUNS = Number(process.env.BENCH_RUNS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
/** Requests sent one at a time per target and request, for the latency of one request. */
const SEQUENTIAL = 300;

interface BenchRequest {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  /** Sent without the token. */
  anonymous?: boolean;
}

const REQUESTS: BenchRequest[] = [
  { name: 'GET a space', method: 'GET', path: '/v1/spaces/bench-space' },
  { name: 'GET a list page (50 spaces)', method: 'GET', path: '/v1/orgs/bench/spaces?limit=50' },
  { name: 'POST a space', method: 'POST', path: '/v1/orgs/bench/spaces', body: { title: 'Bench space' } },
];

/** The seeded mistakes: the client's, sent to the reference server, and the implementation's, answered by `faulty`. */
const MISTAKES: (BenchRequest & { side: 'client' | 'implementation'; tellApart?: unknown })[] = [
  // The two POSTs share a method and path: the value the violation names tells them apart in the report.
  { side: 'client', name: 'body field the contract does not declare', method: 'POST', path: '/v1/orgs/bench/spaces', body: { title: 'Seeded', titel: 'misspelt' }, tellApart: 'misspelt' },
  { side: 'client', name: 'body field of the wrong type', method: 'POST', path: '/v1/orgs/bench/spaces', body: { title: 42 }, tellApart: 42 },
  { side: 'client', name: 'query parameter of the wrong type', method: 'GET', path: '/v1/orgs/bench/spaces?limit=many' },
  { side: 'client', name: 'query parameter out of range', method: 'GET', path: '/v1/orgs/bench/spaces?limit=0' },
  { side: 'client', name: 'query parameter not declared', method: 'GET', path: '/v1/orgs/bench/spaces?colour=blue' },
  { side: 'client', name: 'path of no operation', method: 'GET', path: '/v1/no-such-thing' },
  { side: 'client', name: 'no token', method: 'GET', path: '/v1/orgs/bench/spaces', anonymous: true },
  { side: 'implementation', name: 'status not declared (418)', method: 'GET', path: '/v1/spaces/bench-space' },
  { side: 'implementation', name: 'answer without its required fields', method: 'GET', path: '/v1/orgs/bench' },
];

const headersOf = (request: BenchRequest): Record<string, string> => ({
  ...(request.anonymous ? {} : { authorization: `Bearer ${BENCH_TOKEN}` }),
  ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
});

interface Target {
  name: string;
  url: string;
  /** The process whose CPU is the proxy's (none for the server itself). */
  child?: ChildProcess;
  /** Collected output (Prism's log). */
  output?: () => string;
}

function collect(child: ChildProcess): () => string {
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk));
  return () => output;
}

async function startReference(dataDir: string, seedFile: string): Promise<Target & { child: ChildProcess }> {
  const port = await freePort();
  const child = started(
    spawn(process.execPath, [...startNodeOptions(), 'dist/server/main.js'], {
      cwd: root,
      env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn', DOCS_API_TOKEN: 'bench-demo-token', SEED_FILE: seedFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  const output = collect(child);
  const url = `http://127.0.0.1:${port}`;
  await answered(`${url}/v1/orgs`, child, output, 60_000);
  return { name: 'direct', url, child, output };
}

/** `docs-conformance proxy` as users run it: the built command, a process of its own. */
async function startOurs(targetUrl: string, reportFile: string): Promise<Target & { child: ChildProcess }> {
  const port = await freePort();
  const child = started(spawn(process.execPath, [CONFORMANCE_BIN, 'proxy', '--target', targetUrl, '--port', String(port), '--report', reportFile], { stdio: ['ignore', 'ignore', 'pipe'] }));
  const output = collect(child);
  const url = `http://127.0.0.1:${port}`;
  await answered(`${url}/v1/orgs`, child, output, 30_000);
  return { name: 'docs-conformance proxy', url, child, output };
}

/** Prism's proxy through npm exec, in a process group of its own (npm, sh, node), with or without its log kept. */
async function startPrism(targetUrl: string, keepLog: boolean): Promise<Target & { child: ChildProcess }> {
  const port = await freePort();
  const args = ['exec', '--yes', `--package=${PRISM}`, '--', 'prism', 'proxy', '--host', '127.0.0.1', '--port', String(port), path.join(root, 'generated/openapi.yaml'), targetUrl, '--errors=false'];
  const child = started(spawn('npm', args, { cwd: temporaryDirectory('docs-bench-prism-'), detached: true, stdio: ['ignore', keepLog ? 'pipe' : 'ignore', 'pipe'] }), true);
  const output = collect(child);
  const url = `http://127.0.0.1:${port}`;
  // Installing it the first time and reading the document take a while.
  await answered(`${url}/v1/orgs`, child, output, 180_000);
  return { name: 'prism proxy', url, child, output };
}

/** Resident memory of a process (or its group), in MB, from /proc. */
function rssMb(child: ChildProcess): number | undefined {
  const rss = (pid: string | number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  try {
    if (!leadsGroup(child)) return rss(child.pid!);
    let total = 0;
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === child.pid) total += rss(entry);
      } catch {
        // Ended meanwhile.
      }
    }
    return total;
  } catch {
    return undefined;
  }
}

async function load(target: Target, bench: BenchRequest, options: { duration?: number; amount?: number }): Promise<Measure> {
  const before = target.child ? cpuMs(target.child) : undefined;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    autocannon(
      {
        url: `${target.url}${bench.path}`,
        method: bench.method,
        headers: headersOf(bench),
        ...(bench.body === undefined ? {} : { body: JSON.stringify(bench.body) }),
        connections: CONNECTIONS,
        ...options,
      },
      (error, outcome) => (error ? reject(error) : resolve(outcome)),
    );
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${target.name}: ${bench.method} ${bench.path}: ${result.non2xx} answers not 2xx, ${result.errors} errors`);
  const after = target.child ? cpuMs(target.child) : undefined;
  const cpuUs = before === undefined || after === undefined ? undefined : ((after - before) * 1000) / result.requests.total;
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, ...(cpuUs === undefined ? {} : { cpuUs }) };
}

/** One request and its answer over a kept-alive connection. */
function exchange(agent: Agent, base: string, bench: BenchRequest): Promise<{ status: number; headers: IncomingMessage['headers']; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(`${base}${bench.path}`, { method: bench.method, agent, headers: headersOf(bench) }, (answer) => {
      let body = '';
      answer.setEncoding('utf8');
      answer.on('data', (chunk: string) => (body += chunk));
      answer.on('end', () => resolve({ status: answer.statusCode ?? 0, headers: answer.headers, body }));
    });
    outgoing.on('error', reject);
    outgoing.end(bench.body === undefined ? undefined : JSON.stringify(bench.body));
  });
}

/** The median time of one request at a time, in ms. */
async function sequentialMs(target: Target, bench: BenchRequest): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  try {
    for (let index = 0; index < SEQUENTIAL; index++) {
      const start = performance.now();
      await exchange(agent, target.url, bench);
      times.push(performance.now() - start);
    }
  } finally {
    agent.destroy();
  }
  return median(times);
}

/**
 * A target that passes every request on to the reference server, except two it answers wrongly on purpose: the space
 * with 418 (no status getSpace declares), the organization without most of the fields it requires (`id` among them).
 */
async function startFaulty(referenceUrl: string): Promise<{ url: string; server: Server }> {
  const upstream = new URL(referenceUrl);
  const agent = new Agent({ keepAlive: true });
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/v1/spaces/bench-space') {
      req.resume();
      res.writeHead(418, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 418, message: 'I am a teapot' } }));
      return;
    }
    if (req.method === 'GET' && req.url === '/v1/orgs/bench') {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'organization', title: 'Bench' }));
      return;
    }
    const outgoing = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    outgoing.on('error', () => res.destroy());
    req.pipe(outgoing);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server };
}

/** What Prism reported for one request: its `sl-violations` header and its log lines that name a violation. */
function prismFindings(headers: IncomingMessage['headers'], log: string): string[] {
  const found: string[] = [];
  const header = headers['sl-violations'];
  if (typeof header === 'string') {
    for (const violation of JSON.parse(header) as { location: string[]; severity: string; message: string }[]) found.push(`${violation.location.join('.')}: ${violation.message}`);
  }
  for (const line of log.split('\n')) {
    // The log's own lines for a violation (the header carries the same, but the log has those of every severity).
    const match = /\[VALIDATOR\].*?(?:error|warning)\s+(.*)$/.exec(line.replace(/\x1b\[[0-9;]*m/g, ''));
    if (match && !found.some((item) => match[1]!.includes(item.split(': ').slice(1).join(': ')))) found.push(match[1]!.trim());
  }
  return found;
}

const cell = (items: string[]) => (items.length === 0 ? '—' : items.map((item) => item.replace(/\|/g, '\\|')).join('<br>'));
const fixed = (value: number | undefined, digits = 0) => (value === undefined ? '-' : value.toFixed(digits));

async function main(): Promise<void> {
  if (!existsSync(path.join(root, 'dist/server/main.js'))) throw new Error('dist/server/main.js is missing: run `npm run build:server`');
  if (!existsSync(CONFORMANCE_BIN)) await buildConformance();
  const workDir = temporaryDirectory('docs-bench-proxy-');
  const seedFile = path.join(workDir, 'seed.json');
  writeFileSync(seedFile, JSON.stringify(fixture));
  const children: ChildProcess[] = [];
  let faulty: Server | undefined;
  try {
    const reference = await startReference(path.join(workDir, 'data'), seedFile);
    children.push(reference.child);
    const direct: Target = { name: 'direct', url: reference.url };
    const ours = await startOurs(reference.url, path.join(workDir, 'load.json'));
    children.push(ours.child);
    const prism = await startPrism(reference.url, false);
    children.push(prism.child);
    const targets: Target[] = [direct, ours, prism];

    // Warm every target on every request (the JIT, compiled schemas).
    for (const bench of REQUESTS) for (const target of targets) await load(target, bench, { amount: 300 });
    const results = new Map<string, Measure[]>();
    for (let run = 0; run < RUNS; run++) {
      for (const [index, bench] of REQUESTS.entries()) {
        for (const target of rotated(targets, run + index)) {
          const key = `${bench.name}\n${target.name}`;
          results.set(key, [...(results.get(key) ?? []), await load(target, bench, { duration: SECONDS })]);
        }
      }
    }
    const sequential = new Map<string, number>();
    for (const bench of REQUESTS) for (const target of rotated(targets, REQUESTS.indexOf(bench))) sequential.set(`${bench.name}\n${target.name}`, await sequentialMs(target, bench));

    console.log(`\n### Overhead: ${CONNECTIONS} connections, ${RUNS} interleaved runs of ${SECONDS} s each (median), one request at a time ×${SEQUENTIAL} (median); node ${process.version}\n`);
    console.log('| Request | Target | req/s | p50 / p99 ms | one at a time, ms | added per request, ms | proxy CPU µs/request |');
    console.log('|---|---|--:|--:|--:|--:|--:|');
    for (const bench of REQUESTS) {
      const alone = sequential.get(`${bench.name}\ndirect`)!;
      for (const target of targets) {
        const runs = results.get(`${bench.name}\n${target.name}`)!;
        const cpu = runs.map((run) => run.cpuUs).filter((us): us is number => us !== undefined);
        const one = sequential.get(`${bench.name}\n${target.name}`)!;
        console.log(
          `| ${bench.name} | ${target.name} | ${fixed(median(runs.map((run) => run.rps)))} | ${fixed(median(runs.map((run) => run.p50)))} / ${fixed(median(runs.map((run) => run.p99)))} | ${one.toFixed(2)} | ${target === direct ? '-' : `+${(one - alone).toFixed(2)}`} | ${target.child && cpu.length ? fixed(median(cpu)) : '-'} |`,
        );
      }
    }
    console.log(`\nResident memory after the load: docs-conformance proxy ${fixed(rssMb(ours.child))} MB, Prism (npm, sh and node) ${fixed(rssMb(prism.child))} MB.`);
    await stop(ours.child);
    await stop(prism.child);

    // The seeded mistakes, through both proxies in front of the faulty target.
    const faultyTarget = await startFaulty(reference.url);
    faulty = faultyTarget.server;
    const reportFile = path.join(workDir, 'mistakes.json');
    const oursFaulty = await startOurs(faultyTarget.url, reportFile);
    children.push(oursFaulty.child);
    const prismFaulty = await startPrism(faultyTarget.url, true);
    children.push(prismFaulty.child);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const prismSaw: string[][] = [];
    const statuses: number[] = [];
    for (const mistake of MISTAKES) {
      statuses.push((await exchange(agent, oursFaulty.url, mistake)).status);
      const logBefore = prismFaulty.output!().length;
      const answer = await exchange(agent, prismFaulty.url, mistake);
      // Prism writes its log as the exchange ends: a moment for it to arrive.
      await new Promise((resolve) => setTimeout(resolve, 300));
      prismSaw.push(prismFindings(answer.headers, prismFaulty.output!().slice(logBefore)));
    }
    agent.destroy();
    await stop(oursFaulty.child);
    await stop(prismFaulty.child);
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as ProxyReport;

    console.log('\n### Seeded mistakes: what each proxy reports\n');
    console.log('| Mistake | Side | Status | docs-conformance proxy | Prism proxy |');
    console.log('|---|---|--:|---|---|');
    let oursFound = 0;
    let prismFound = 0;
    for (const [index, mistake] of MISTAKES.entries()) {
      const mine = report.violations
        .filter((violation) => violation.method === mistake.method && violation.path === mistake.path)
        .filter((violation) => mistake.tellApart === undefined || violation.value === mistake.tellApart)
        .map((violation) => `${violation.side} ${violation.kind} ${violation.pointer ?? ''}${violation.value === undefined ? '' : ` = ${JSON.stringify(violation.value)}`}: ${violation.message}`);
      if (mine.length > 0) oursFound++;
      if (prismSaw[index]!.length > 0) prismFound++;
      console.log(`| ${mistake.name} | ${mistake.side} | ${statuses[index]} | ${cell([...new Set(mine)])} | ${cell(prismSaw[index]!)} |`);
    }
    console.log(`\nFound: docs-conformance proxy ${oursFound}/${MISTAKES.length}, Prism ${prismFound}/${MISTAKES.length}.`);

    // The conformance run itself through each proxy, and directly: its time, and what each proxy reported of the
    // traffic (the runner sends invalid inputs on purpose: each is a client's violation; the reference server's
    // answers should give no implementation violation).
    console.log('\n### The conformance run (scenario, no property phase) through each proxy\n');
    console.log('| Through | run s | requests | client violations | implementation violations |');
    console.log('|---|--:|--:|--:|--:|');
    const lastLines: string[] = [];
    const runnerFor = async (baseUrl: string) => {
      const began = performance.now();
      let output = '';
      await new Promise<void>((resolve) => {
        const runner = spawn(process.execPath, [CONFORMANCE_BIN, '--base-url', baseUrl, '--token', 'bench-demo-token', '--examples', '0'], { stdio: ['ignore', 'pipe', 'ignore'] });
        runner.stdout!.on('data', (chunk: Buffer) => (output += chunk));
        runner.once('exit', () => resolve());
      });
      lastLines.push(output.trim().split('\n').at(-1) ?? '');
      return (performance.now() - began) / 1000;
    };
    console.log(`| (directly) | ${(await runnerFor(reference.url)).toFixed(1)} | | | |`);
    const runReport = path.join(workDir, 'run.json');
    const oursRun = await startOurs(reference.url, runReport);
    children.push(oursRun.child);
    const oursSeconds = await runnerFor(oursRun.url);
    await stop(oursRun.child);
    const ran = JSON.parse(readFileSync(runReport, 'utf8')) as ProxyReport;
    const bySide = (side: string) => ran.violations.filter((violation) => violation.side === side).length;
    const requests = Object.values(ran.operations).reduce((sum, operation) => sum + operation.requests, 0);
    console.log(`| docs-conformance proxy | ${oursSeconds.toFixed(1)} | ${requests} | ${bySide('client')} | ${bySide('implementation')} |`);
    const prismRun = await startPrism(reference.url, true);
    children.push(prismRun.child);
    const prismSeconds = await runnerFor(prismRun.url);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const prismLog = prismRun.output!().replace(/\x1b\[[0-9;]*m/g, '');
    await stop(prismRun.child);
    const prismViolations = prismLog.split('\n').filter((line) => /\[VALIDATOR\].*?(?:error|warning)\s/.test(line));
    const prismResponse = prismViolations.filter((line) => /\bresponse\b/i.test(line)).length;
    console.log(`| Prism proxy | ${prismSeconds.toFixed(1)} | | ${prismViolations.length - prismResponse} (log lines) | ${prismResponse} (log lines) |`);
    console.log(`\nThe runner's last line: ${[...new Set(lastLines)].join('; ')}`);
  } finally {
    for (const child of children) await stop(child);
    if (faulty) {
      faulty.closeAllConnections();
      faulty.close();
    }
    removeTemporary(workDir);
  }
}

await main();
