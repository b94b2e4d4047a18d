// Answers leave together: what the server writes to its connections during one turn of the event loop is handed to the
// operating system at the end of that turn (the `answer` stage of turn-end.ts), one connection after the other, so that
// a client waiting on several answers is woken once; order, backpressure and a destroy during the turn are kept
// (server/docs/design.md, "Answers written at the end of the turn").
import type { Socket } from 'node:net';
import { atTurnEnd } from '../common/turn-end.ts';

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
