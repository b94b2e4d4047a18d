// server/http/chain.ts: middlewares run inside one middleware as Express runs them one after the other (a throw, an
// error passed on or a rejected promise skips the rest and reaches the error handler; the chain ends in `next`).
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { expect, test } from 'vitest';
import { chained } from '../../server/http/chain.ts';

test('a chain runs its middlewares in order, ends in the next layer, and sends any failure to the error handler', async () => {
  const app = express();
  const seen: string[] = [];
  const mark = (name: string) => (_req: Request, _res: Response, next: NextFunction) => {
    seen.push(name);
    next();
  };
  app.use(
    chained(
      mark('first'),
      (req: Request, _res: Response, next: NextFunction) => {
        if (req.path === '/thrown') throw new Error('thrown');
        if (req.path === '/passed') return next(new Error('passed'));
        if (req.path === '/rejected') return Promise.reject(new Error('rejected'));
        // Later, as body parsers call it.
        setImmediate(next);
      },
      mark('third'),
    ),
  );
  app.get('/ok', (_req: Request, res: Response) => {
    res.json({ seen });
  });
  app.use((error: Error, _req: Request, res: Response, _next: NextFunction) => {
    res.status(500).json({ error: error.message, seen });
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const answers = [];
    for (const path of ['/ok', '/thrown', '/passed', '/rejected']) {
      seen.length = 0;
      const response = await fetch(base + path);
      answers.push({ path, status: response.status, body: await response.json() });
    }
    expect(answers).toEqual([
      { path: '/ok', status: 200, body: { seen: ['first', 'third'] } },
      { path: '/thrown', status: 500, body: { error: 'thrown', seen: ['first'] } },
      { path: '/passed', status: 500, body: { error: 'passed', seen: ['first'] } },
      { path: '/rejected', status: 500, body: { error: 'rejected', seen: ['first'] } },
    ]);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
