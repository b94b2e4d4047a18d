// Git's own smart HTTP server (`git http-backend`, a CGI program) behind a node:http request: the repositories under
// `root`, every one exported. Tests put it behind servers of their own (credentials, redirects, held requests).
import { spawn } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Answers `req` with what `git http-backend` answers for the repositories under `root`; `user`: REMOTE_USER. */
export function serveWithGitHttpBackend(req: IncomingMessage, res: ServerResponse, root: string, user?: string): void {
  const url = new URL(req.url!, 'http://localhost');
  const backend = spawn('git', ['http-backend'], {
    env: {
      ...process.env,
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: url.pathname,
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: req.method!,
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      ...(user === undefined ? {} : { REMOTE_USER: user }),
      REMOTE_ADDR: '127.0.0.1',
    },
  });
  req.pipe(backend.stdin);
  const chunks: Buffer[] = [];
  backend.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  backend.on('close', () => {
    // A CGI answer: header lines (`Status: 404 Not Found` among them), an empty line, the body.
    const output = Buffer.concat(chunks);
    const split = output.indexOf('\r\n\r\n');
    const headers: Record<string, string> = {};
    let status = 200;
    for (const line of output.subarray(0, split).toString().split('\r\n')) {
      const [name, ...value] = line.split(':');
      if (name!.toLowerCase() === 'status') status = Number.parseInt(value.join(':'), 10);
      else headers[name!] = value.join(':').trim();
    }
    if (!res.destroyed) res.writeHead(status, headers).end(output.subarray(split + 4));
  });
}
