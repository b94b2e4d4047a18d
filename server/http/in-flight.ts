// The requests a server has received and not answered yet, as its shutdown needs to know them (start/server.ts,
// `close`): kept without work of their own on each request. The server's one request listener (speed/app-server.ts)
// hands each response to `arrived`, which files it with its connection; a connection's answers that have closed are
// dropped when the next one arrives, and all of them when the connection closes. Only a shutdown looks at them: it
// then listens for the close of each answer still open, and of each that arrives after it began
// (server/docs/design.md, "Requests in flight at a shutdown").
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export class RequestsInFlight {
  /** Each open connection's answers that had not closed when the last one arrived, in order. */
  private readonly answers = new Map<Socket, ServerResponse[]>();
  /** Set once the shutdown began: every answer ends its connection. */
  private last = false;
  /** The answers this shutdown made the last of their connection, where Node would have kept it open. */
  private readonly ending = new WeakSet<ServerResponse>();
  /** Set once the shutdown waits: the answers it waits for, and who waits. */
  private waiting: { open: number; waiters: (() => void)[] } | undefined;

  /** Files the connections of `server` (one listener a connection). */
  attach(server: Server): void {
    server.on('connection', (socket: Socket) => {
      this.answers.set(socket, []);
      socket.once('close', () => this.answers.delete(socket));
    });
  }

  /**
   * Request `req` has arrived, to be answered by `res`: called by the server's request listener, before the app. By
   * the request's connection: a pipelined request's answer has none until those before it are sent.
   */
  arrived(req: IncomingMessage, res: ServerResponse): void {
    const list = this.answers.get(req.socket);
    if (this.waiting) this.watch(res);
    if (this.last) this.lastOfItsConnection(res, list);
    if (list === undefined) return;
    while (list.length > 0 && list[0]!.closed) list.shift();
    list.push(res);
  }

  /**
   * `res` ends its connection: the answers before it on the connection, received before it, are sent first, so the
   * one it took the part from keeps its connection open for them (were it left to end it, Node would close the
   * connection after it, and the requests behind it would go unanswered).
   */
  private lastOfItsConnection(res: ServerResponse, list: ServerResponse[] | undefined): void {
    const before = list?.at(-1);
    if (before !== undefined && this.ending.has(before) && !before.headersSent) {
      before.shouldKeepAlive = true;
      this.ending.delete(before);
    }
    if (res.shouldKeepAlive) {
      res.shouldKeepAlive = false;
      this.ending.add(res);
    }
  }

  /** How many requests have not been answered (their answer not closed). */
  get count(): number {
    if (this.waiting) return this.waiting.open;
    let open = 0;
    for (const list of this.answers.values()) for (const res of list) if (!res.closed) open++;
    return open;
  }

  /**
   * From now on each connection's last answer ends it (`Connection: close`): the last of those received, unless
   * already sent, and then each request's to come; every request received is answered first.
   */
  lastOnTheirConnections(): void {
    this.last = true;
    for (const list of this.answers.values()) {
      const res = list.at(-1);
      if (res !== undefined && !res.headersSent && !res.closed) this.lastOfItsConnection(res, undefined);
    }
  }

  /** Resolves once no request is in flight: those open now, and those that arrive meanwhile. */
  answered(): Promise<void> {
    if (!this.waiting) {
      this.waiting = { open: 0, waiters: [] };
      for (const list of this.answers.values()) for (const res of list) if (!res.closed) this.watch(res);
    }
    const waiting = this.waiting;
    return waiting.open === 0 ? Promise.resolve() : new Promise((resolve) => waiting.waiters.push(resolve));
  }

  private watch(res: ServerResponse): void {
    const waiting = this.waiting!;
    waiting.open++;
    res.once('close', () => {
      waiting.open--;
      if (waiting.open === 0) for (const resolve of waiting.waiters.splice(0)) resolve();
    });
  }
}
