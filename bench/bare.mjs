// The baselines of `npm run bench`: a bare node:http server answering, for each request the benchmark sends, the
// very bytes the reference server answered it with (status, headers, body), recorded in the JSON file given as its
// argument. It reads each request's body before answering, as any server must. With `express` as second argument
// the same answers come from an Express app that parses JSON bodies (the framework alone, without validation or
// handlers), served as the reference server serves its app (server/speed/app-server.ts: requests and responses born
// with the app's prototypes). Run as `node bench-bare.mjs FILE` or `node --import tsx bench-bare.mjs FILE express`;
// it prints its port once it listens.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import express from 'express';

const recorded = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const answers = new Map(
  recorded.map(({ method, path, status, headers, body }) => [`${method} ${path}`, { status, headers, body: Buffer.from(body) }]),
);

const answer = (req, res) => {
  const recordedAnswer = answers.get(`${req.method} ${req.originalUrl ?? req.url}`);
  if (!recordedAnswer) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(recordedAnswer.status, recordedAnswer.headers);
  res.end(recordedAnswer.body);
};

let server;
if (process.argv[3] === 'express') {
  const { appServer } = await import('../server/speed/app-server.ts');
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(express.json());
  app.use(answer);
  const http = appServer();
  http.serve(app);
  server = http.server;
} else {
  server = createServer((req, res) => {
    req.on('data', () => {});
    req.on('end', () => answer(req, res));
  });
}
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => console.log(`port ${server.address().port}`));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
