// The baseline of `npm run bench`: a bare node:http server answering, for each request the benchmark sends, the
// very bytes the reference server answered it with (status, headers, body), recorded in the JSON file given as its
// argument. It reads each request's body before answering, as any server must. Run as `node bench-bare.mjs FILE`;
// it prints its port once it listens.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const recorded = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const answers = new Map(
  recorded.map(({ method, path, status, headers, body }) => [`${method} ${path}`, { status, headers, body: Buffer.from(body) }]),
);

const server = createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    const answer = answers.get(`${req.method} ${req.url}`);
    if (!answer) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body);
  });
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => console.log(`port ${server.address().port}`));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
