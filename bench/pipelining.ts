// Connections that pipeline and never read (the `bounds` part, bench/bounds.ts; server/docs/limits.md, "Requests
// pipelined on one connection"): `connections` connections each write `requests` pipelined GETs of a list in one go and
// read nothing, while a well-behaved client asks on a connection of its own, one request after the other. What it
// reports: the server's RSS before, at its peak under the load, and after the attackers close, the growth per
// connection, and the well-behaved client's slowest answer during the load and in the 5 s after it.
import { readFileSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export interface PipelineFigures {
  baseMb: number;
  peakMb: number;
  afterMb: number;
  /** (peak - base) / connections, in kB. */
  perConnectionKb: number;
  /** The well-behaved client's usual answer (median before the load), its slowest during the load and after it, in ms. */
  usualMs: number;
  slowestMs: number;
  slowestAfterMs: number;
  /** The well-behaved client's requests left unanswered. */
  failures: number;
}

export const rssMb = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** The load above on the server at `url` (process `pid`), asking for `path`, with `authorization` or without. */
export async function pipelineLoad(
  url: string,
  pid: number,
  options: { path: string; authorization?: string; connections: number; requests: number; holdMs: number },
): Promise<PipelineFigures> {
  const { hostname, port } = new URL(url);
  const headers = options.authorization === undefined ? '' : `Authorization: ${options.authorization}\r\n`;
  const one = `GET ${options.path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n${headers}\r\n`;
  const burst = Buffer.from(one.repeat(options.requests));

  // The well-behaved client: sequential requests on its own keep-alive connection, each timed.
  const times: { at: number; ms: number }[] = [];
  let asking = true;
  let failures = 0;
  const polite = (async () => {
    const deadline = Date.now() + options.holdMs + 120_000;
    for (let count = 0; asking && count < 100_000 && Date.now() < deadline; count++) {
      const started = performance.now();
      try {
        const answer = await fetch(`${url}${options.path}`, options.authorization === undefined ? {} : { headers: { authorization: options.authorization } });
        await answer.arrayBuffer();
        times.push({ at: Date.now(), ms: performance.now() - started });
      } catch {
        // Unanswered (its connection closed under it): counted as the slowest answer there can be.
        failures++;
        times.push({ at: Date.now(), ms: Number.POSITIVE_INFINITY });
      }
      await sleep(20);
    }
  })();
  await sleep(1500);
  const usual = [...times.map((each) => each.ms)].sort((a, b) => a - b)[Math.floor(times.length / 2)] ?? 1;
  const baseMb = rssMb(pid);

  const loadStart = Date.now();
  const sockets: Socket[] = [];
  let peakMb = baseMb;
  const sample = setInterval(() => (peakMb = Math.max(peakMb, rssMb(pid))), 50);
  for (let index = 0; index < options.connections; index++) {
    const socket = createConnection({ host: hostname, port: Number(port) });
    socket.on('error', () => undefined);
    socket.pause();
    socket.on('connect', () => socket.write(burst));
    sockets.push(socket);
    if (index % 50 === 49) await sleep(10);
  }
  await sleep(options.holdMs);
  peakMb = Math.max(peakMb, rssMb(pid));
  const closedAt = Date.now();
  for (const socket of sockets) socket.destroy();
  await sleep(5000);
  clearInterval(sample);
  const afterMb = rssMb(pid);
  asking = false;
  await polite;

  const during = times.filter((each) => each.at >= loadStart && each.at < closedAt);
  const after = times.filter((each) => each.at >= closedAt);
  return {
    baseMb,
    peakMb,
    afterMb,
    perConnectionKb: ((peakMb - baseMb) * 1024) / options.connections,
    usualMs: usual,
    slowestMs: Math.max(0, ...during.map((each) => each.ms)),
    slowestAfterMs: Math.max(0, ...after.map((each) => each.ms)),
    failures,
  };
}
