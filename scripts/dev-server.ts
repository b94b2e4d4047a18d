// The server process of `npm run dev`, started ahead of need. It loads the server's modules (through tsx: most of a
// start from the sources), tells dev it is ready over IPC, and waits; told to
// start, it runs the server's command (server/main.ts), as `npx tsx server/main.ts` does, and the server sends dev its
// address over the same channel. dev keeps one waiting
// beside the running server, so that a contract change restarts the server in the time of its start-up proper. A
// change under server/ makes dev drop it (its modules are the old ones) and start the server afresh. Nothing here
// reads the contract: the server reads generated/openapi.yaml when it starts.
import { runCommand } from '../server/main.ts';

process.send!('ready');
// The channel stays open: the server tells dev its address over it once it listens.
process.once('message', () => runCommand(process.argv.slice(2)));
