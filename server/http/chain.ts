// Middlewares run one after the other inside one middleware. Express's router, between two middlewares, goes back to
// its stack: it matches the next layer against the path, allocates the match, merges parameters, and wraps the call;
// for the handful of middlewares every API request passes through, that was a large share of what a GET allocated.
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Runs `chain` as Express would run consecutive middlewares mounted at `/` (an error, a throw or a rejected promise
 * skips the rest and goes to `done`), without going back to the router between them.
 */
export function runChain(chain: readonly RequestHandler[], req: Request, res: Response, done: NextFunction): void {
  let at = 0;
  const step = (error?: unknown): void => {
    if (error) return done(error);
    const middleware = chain[at++];
    if (!middleware) return done();
    try {
      const result = middleware(req, res, step) as unknown;
      if (result instanceof Promise) result.then(undefined, done);
    } catch (thrown) {
      done(thrown);
    }
  };
  step();
}

/** One middleware running `chain` (see runChain): what `app.use(...chain)` does, with one layer instead of several. */
export function chained(...chain: RequestHandler[]): RequestHandler {
  return function chainedMiddlewares(req: Request, res: Response, next: NextFunction) {
    runChain(chain, req, res, next);
  };
}
