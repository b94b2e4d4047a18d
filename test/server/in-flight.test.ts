// The requests in flight at a shutdown (start/server.ts `close`, from what http/connection-bound.ts counts): every one
// is known when the shutdown begins, pipelined requests waiting behind another included, and every one is answered
// before close() resolves, the last of the connection with `Connection: close`; with every speed mechanism on and off.
import { connect, type Socket } from 'node:net';
import { describe, expect, test } from 'vitest';
import { readConfig } from '../../server/common/config.ts';
import { startServer } from '../../server/start/server.ts';

const TOKEN = 'in-flight-token';

/** Everything the connection receives, as text, until it closes. */
function received(socket: Socket): { text: () => string; closed: Promise<void> } {
  let text = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  return { text: () => text, closed: new Promise((resolve) => socket.once('close', () => resolve())) };
}

const until = async (condition: () => boolean) => {
  for (let tries = 0; !condition(); tries++) {
    if (tries > 500) throw new Error('the condition did not hold within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe.each([{ off: '' }, { off: 'all' }])('SPEEDUPS_OFF=$off', ({ off }) => {
  test('a request under way and two pipelined behind it are in flight at close(), and all three are answered before it resolves', async () => {
    const running = await startServer(readConfig({ PORT: '0', DATA_DIR: ':memory:', LOG_LEVEL: 'silent', DOCS_API_TOKEN: TOKEN, SPEEDUPS_OFF: off }), { faults: true });
    // The POST takes a second and a half; the two GETs behind it wait for its answer.
    running.faults!.add({ operation: 'createSpace', delayMs: 1500, times: 1 });
    const { port } = new URL(running.url);
    const socket = connect(Number(port), '127.0.0.1');
    const answers = received(socket);
    const body = JSON.stringify({ title: 'Written during a shutdown' });
    const head = `Authorization: Bearer ${TOKEN}\r\nHost: 127.0.0.1\r\n`;
    socket.write(
      `POST /v1/orgs/demo/spaces HTTP/1.1\r\n${head}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}` +
        `GET /v1/orgs/demo HTTP/1.1\r\n${head}\r\nGET /v1/orgs/demo/spaces HTTP/1.1\r\n${head}\r\n`,
    );
    await until(() => running.unfinished().requests === 3);

    let closed = false;
    const closing = running.close().then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(closed).toBe(false);
    expect(running.unfinished().requests).toBe(3);
    await closing;
    await answers.closed;

    const statuses = [...answers.text().matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((match) => Number(match[1]));
    expect(statuses).toEqual([201, 200, 200]);
    // The GETs waited for the POST's answer (a connection's requests are served one at a time): the last ends it.
    const connections = [...answers.text().matchAll(/\r\nconnection: (\S+)\r\n/gi)].map((match) => match[1]!.toLowerCase());
    expect(connections).toEqual(['keep-alive', 'keep-alive', 'close']);
    expect(answers.text()).toContain('Written during a shutdown');
    expect(running.unfinished().requests).toBe(0);
  });
});
