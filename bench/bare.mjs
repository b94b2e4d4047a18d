// The baselines of `npm run bench`: a bare node:http server answering each request of the benchmark with the very
// bytes the reference server answered it with, recorded in the JSON file given as its argument; with `express` as
// second argument, an Express app answering them (the framework alone). Run as `node bench/bare.mjs FILE` or
// `node --import tsx bench/bare.mjs FILE express`; it prints its port once it listens. More: bench/README.md.
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
