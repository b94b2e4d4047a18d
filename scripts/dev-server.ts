// The server process of `npm run dev`, started ahead of need: it loads the server's modules, tells dev it is ready
// over IPC and waits; told to start, it runs the server's command (server/main.ts), and the server sends dev its
// address over the same channel. Why: docs/development.md ("The dev loop").
import { runCommand } from '../server/main.ts';

process.send!('ready');
// The channel stays open: the server tells dev its address over it once it listens.
process.once('message', () => runCommand(process.argv.slice(2)));
