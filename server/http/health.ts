// GET /health: whether this server can answer, for container health checks and load balancers. No token; not part
// of the contract (it is a property of this reference server, not of the API: other implementations need not have
// it). 503 when a query on the database fails; 200 otherwise, `degraded` while its storage is full (reads are served,
// writes refused until space is freed: a restart would not help, so a health check must not cause one). The body
// names the engine (sqlite or postgres).
import type { Request, Response } from 'express';
import type { AppContext } from '../context/context.ts';
import { Refusal } from '../common/errors.ts';
import { packageVersion } from './version.ts';
import type { Engine } from '../store/db.ts';
import type { OpenApiDocument } from './contract.ts';

export interface Health {
  status: 'ok' | 'degraded' | 'unavailable';
  /** Version of this package (the server's release). */
  version: string;
  /** `info.version` of the contract the server implements. */
  contractVersion: string;
  database: 'reachable' | 'unreachable';
  /** Whether writes fit: `full` from a write refused for want of room until a write fits again. */
  storage: 'ok' | 'full';
  /** The database engine: SQLite embedded, or PostgreSQL (DATABASE_URL). */
  engine: Engine;
  /** The operations this server answers from the contract, not implemented yet (http/example-answers.ts); only when there are some. */
  answeredFromContract?: string[];
}

export function healthRoute(ctx: AppContext, contract: OpenApiDocument, answeredFromContract: readonly string[] = []) {
  const version = packageVersion();
  const contractVersion = String((contract.info as { version?: unknown } | undefined)?.version ?? '');
  return async (_req: Request, res: Response) => {
    let reachable = true;
    try {
      // A real read of the database, not a constant: a closed, lost or locked database fails it.
      await ctx.store.ping();
    } catch (error) {
      reachable = false;
      // The database unreachable is a condition of the store, logged when it starts and ends (store/conditions.ts).
      if (!(error instanceof Refusal)) ctx.log.warn({ err: error }, 'health: the database query failed');
    }
    const full = ctx.store.conditions.has('storage-full');
    const body: Health = {
      status: !reachable ? 'unavailable' : full ? 'degraded' : 'ok',
      version,
      contractVersion,
      database: reachable ? 'reachable' : 'unreachable',
      storage: full ? 'full' : 'ok',
      engine: ctx.store.engine,
      ...(answeredFromContract.length > 0 ? { answeredFromContract: [...answeredFromContract] } : {}),
    };
    res.set('cache-control', 'no-store').status(reachable ? 200 : 503).json(body);
  };
}
