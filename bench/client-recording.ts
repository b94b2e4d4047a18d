// The `client` part: what the typed client's recording mode (conformance/records/recording.ts) adds to a call, against the
// plain client in the same run, their calls interleaved, on a server in this process. Off, `recordingClient` is the
// plain client itself, which the part checks and says. More: bench/README.md.
//   npx tsx bench/client-recording.ts        BENCH_PARTS=client npm run bench
import { fileURLToPath } from 'node:url';
import { createDocsClient, type DocsClient } from '../client/index.ts';
import { flushUsage, recordingClient } from '../conformance/records/recording.ts';
import { readConfig } from '../server/common/config.ts';
import { startServer } from '../server/start/server.ts';
import { removeTemporary, temporaryDirectory } from './cleanup.ts';
import { median, rotated } from './measure.ts';

/** Interleaved runs, and calls of each request per client in a run. */
const RUNS = 9;
const CALLS = 100;

export interface ClientFigures {
  request: string;
  /** The CPU time of a call, µs (the client's and the server's, both in this process), medians of the runs. */
  plainUs: number;
  recordingUs: number;
  /** The median of the runs' own ratios, recording / plain: of the CPU time, and of the wall time. */
  ratio: number;
  wallRatio: number;
}

export async function benchClient(): Promise<ClientFigures[]> {
  const token = 'bench-token';
  const running = await startServer(readConfig({ PORT: '0', DATA_DIR: ':memory:', LOG_LEVEL: 'silent', DOCS_API_TOKEN: token }));
  const folder = temporaryDirectory('bench-client-recording-');
  try {
    const plain = createDocsClient({ baseUrl: running.url, token, retry: false });
    if (recordingClient(plain, { folder: false }) !== plain) throw new Error('recordingClient off is not the plain client itself');
    const recording = recordingClient(plain, { folder, consumer: { name: 'bench' } });
    const organization = { params: { path: { organizationId: 'demo' } } };
    let spaceId = '';
    for (let made = 0; made < 20; made++) {
      const created = await plain.POST('/v1/orgs/{organizationId}/spaces', { ...organization, body: { title: `Space ${made}` } });
      if (!created.data) throw new Error(`POST a space: ${created.response.status}`);
      spaceId = created.data.id;
    }
    // What a test does with an answer: reads a few fields of it.
    const requests: Record<string, (client: DocsClient) => Promise<unknown>> = {
      'GET a space, 2 fields read': async (client) => {
        const { data } = await client.GET('/v1/spaces/{spaceId}', { params: { path: { spaceId } } });
        return [data!.id, data!.title];
      },
      'GET 20 spaces, each title read': async (client) => {
        const { data } = await client.GET('/v1/orgs/{organizationId}/spaces', { params: { ...organization.params, query: { limit: 20 } } });
        return data!.items.map((space) => space.title);
      },
    };
    const figures: ClientFigures[] = [];
    for (const [request, call] of Object.entries(requests)) {
      const clients = [['plain', plain], ['recording', recording]] as const;
      for (const [, client] of clients) for (let warm = 0; warm < CALLS; warm++) await call(client);
      const runs: Record<'plain' | 'recording', { wallUs: number; cpuUs: number }>[] = [];
      for (let run = 0; run < RUNS; run++) {
        const measured = {} as (typeof runs)[number];
        for (const [name, client] of rotated(clients, run)) {
          const [wall, cpu] = [process.hrtime.bigint(), process.cpuUsage()];
          for (let made = 0; made < CALLS; made++) await call(client);
          const spent = process.cpuUsage(cpu);
          measured[name] = { wallUs: Number(process.hrtime.bigint() - wall) / 1e3 / CALLS, cpuUs: (spent.user + spent.system) / CALLS };
        }
        runs.push(measured);
      }
      figures.push({
        request,
        plainUs: median(runs.map((each) => each.plain.cpuUs)),
        recordingUs: median(runs.map((each) => each.recording.cpuUs)),
        ratio: median(runs.map((each) => each.recording.cpuUs / each.plain.cpuUs)),
        wallRatio: median(runs.map((each) => each.recording.wallUs / each.plain.wallUs)),
      });
    }
    flushUsage();
    return figures;
  } finally {
    removeTemporary(folder);
    await running.close();
  }
}

export function clientTable(figures: ClientFigures[]): string {
  return [
    `A call of the typed client, plain and in recording mode, on a server in this process (${RUNS} interleaved runs of ${CALLS} calls each, medians; CPU time, the client's and the server's). Off, recordingClient is the plain client itself (the same object): a call costs what a plain call costs.`,
    '',
    '| request | plain, CPU µs | recording, CPU µs | recording / plain, CPU | recording / plain, wall time |',
    '|---|---:|---:|---:|---:|',
    ...figures.map(({ request, plainUs, recordingUs, ratio, wallRatio }) => `| ${request} | ${plainUs.toFixed(0)} | ${recordingUs.toFixed(0)} | ${ratio.toFixed(2)} | ${wallRatio.toFixed(2)} |`),
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(clientTable(await benchClient()));
