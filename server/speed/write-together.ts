// Answers leave together: what the server writes to its connections during one turn of the event loop is handed to
// the operating system at the end of that turn, one connection after the other, instead of each at once.
//
// Why: node:http handles in one turn every request that arrived together (one `epoll_wait`), and writes each answer
// as soon as it is made. A client on the same machine (an integration suite, the conformance runner, a benchmark's
// load) is usually asleep waiting for answers, so each write wakes it, and on a virtual machine a wake-up across
// cores is costly: the kernel charges it to the writer. Measured under load, answers that leave together bring the
// system time a request costs down to a bare node:http server's, and the server answers more requests per second
// with the same latencies (docs/performance.md, "Answers written at the end of the turn"). The first answers of a
// turn wait for the turn's other requests (a turn's worth of handler time); a lone request waits only for the rest of
// its own turn.
//
// How: each connection's `_write` and `_writev` (net.Socket's, which hand bytes to libuv) are held until the end of
// the turn (a task per held write at the turn's `answer` stage, see turn-end.ts: after the poll phase in which
// the requests were handled, and after the store has committed the turn's writes).
// A Writable lets `_write` complete later: what is written meanwhile is kept by the stream and goes out with the next
// `_writev`, in order, so headers, bodies, pipelined answers and `end` keep their order and backpressure works as
// before. A connection destroyed during the turn first hands over what it holds, as it would have had it written at
// once: node:http answers a request it cannot parse by a write and a `destroy()` in one go (400, 431), and
// net.Socket sends what it was given before it closes.
import type { Socket } from 'node:net';
import { atTurnEnd } from '../shared/turn-end.ts';

type Write = (this: Socket, ...args: never[]) => void;

/** The write each connection holds until the end of the turn (a Writable has at most one under way). */
const held = new WeakMap<Socket, () => void>();

function release(socket: Socket): void {
  const write = held.get(socket);
  if (write === undefined) return;
  held.delete(socket);
  write();
}

/** Makes `socket`'s writes in a turn of the event loop leave at the end of the turn (see above). */
export function writeTogether(socket: Socket): void {
  const own = socket as unknown as { _write?: Write; _writev?: Write };
  const write = own._write;
  const writev = own._writev;
  // A stream given to the server as a connection (`server.emit('connection', stream)`) may lack either: a missing
  // `_writev` must stay missing, or the Writable would call it.
  // Held writes leave at the turn's `answer` stage, in the order they were held, with those their completion starts
  // (net.Socket hands its next buffered chunks over at once when a write completes at once).
  const releaseThis = () => release(socket);
  const hold = (write: () => void) => {
    held.set(socket, write);
    atTurnEnd('answer', releaseThis);
  };
  if (typeof write === 'function') own._write = (...args) => hold(() => write.apply(socket, args));
  if (typeof writev === 'function') own._writev = (...args) => hold(() => writev.apply(socket, args));
  const destroy = socket.destroy;
  socket.destroy = (...args: Parameters<Socket['destroy']>) => {
    release(socket);
    return destroy.apply(socket, args);
  };
}
