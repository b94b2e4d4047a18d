// The route of one operation of the contract: what runs after the validator accepted a request, around the handler.
// A write runs its handler inside a write transaction (or, for a handler that opens its own, outside any:
// http/route-rules.ts); a read runs in a read of its own, one snapshot of the database (`inRead`), and a list page
// read again while nothing changed is sent as kept (http/list-page-cache.ts). An operation not implemented yet is answered from the contract instead
// (`contractAnswerRoute`, http/example-answers.ts).
import type { Request, Response } from 'express';
import { bearerToken } from './bearer-token.ts';
import { membershipsAhead } from '../auth/roles.ts';
import { widerQueue } from '../store/organizations.ts';
import type { OperationId } from '../common/contract.ts';
import { opensOwnTransaction } from './route-rules.ts';
import { type AppContext, inRead, type Scope, scoped } from '../context/context.ts';
import type { ContractOperation } from './contract.ts';
import { CONTRACT_ANSWER_HEADER, type ContractAnswer } from './example-answers.ts';
import { applyFault, type Faults } from './faults.ts';
import { safeHeaders } from './headers.ts';
import { type ListPageCache, type ListAnswer, isListPage } from './list-page-cache.ts';
import { fitPage } from './pagination.ts';
import { checkIntegerParameters, type integerParameters } from './parameters.ts';

/** Handlers as the router calls them; their exact types are checked where the table is built. */
export type AnyResult = { status: number; body?: unknown; headers?: Record<string, string> };
export type AnyHandler = (request: unknown, ctx: Scope) => Promise<AnyResult>;
export type OperationRoute = (req: Request, res: Response) => Promise<void>;

/** What the routes of one app share. */
export interface RouteSetting {
  ctx: AppContext;
  /** Reads outside any transaction: handlers that open their own transactions. */
  reader: Scope;
  listPageCache: ListPageCache;
  faults?: Faults;
  onOperation?: (operationId: string, status: number, contentType: string | undefined) => void;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body?: unknown;
}

function send(res: Response, answer: Answer): void {
  res.set(answer.headers);
  if (answer.body === undefined) res.status(answer.status).end();
  else res.status(answer.status).json(answer.body);
}

const answerOf = (result: AnyResult): Answer => ({
  status: result.status,
  headers: safeHeaders(result.headers ?? {}),
  body: result.body === undefined ? undefined : fitPage(result.body),
});

export function operationRoute(
  operation: ContractOperation,
  handler: AnyHandler,
  integers: ReturnType<typeof integerParameters>,
  setting: RouteSetting,
): OperationRoute {
  const { faults, onOperation } = setting;
  const run = operation.method === 'get' ? readRun(handler, setting) : writeRun(operation, handler, setting);
  return async (req, res) => {
    if (onOperation) res.on('finish', () => onOperation(operation.operationId, res.statusCode, res.getHeader('content-type') as string | undefined));
    if (await answeredBefore(operation, integers, faults, req, res)) return;
    await run(req, res, { params: req.params, query: req.query, body: req.body, caller: req.caller! });
  };
}

/**
 * What every route checks once the validator accepted a request, before its operation answers: the integer
 * parameters' limits, then the harness's faults. True when a fault answered.
 */
async function answeredBefore(
  operation: ContractOperation,
  integers: ReturnType<typeof integerParameters>,
  faults: Faults | undefined,
  req: Request,
  res: Response,
): Promise<boolean> {
  checkIntegerParameters(req, integers);
  if (!faults) return false;
  const fault = faults.take(operation.operationId as OperationId, req, () => bearerToken(req));
  return fault !== undefined && (await applyFault(fault, req, res));
}

/**
 * The route of an operation answered from the contract (http/example-answers.ts): the same checks and faults as any
 * route, then the contract's answer with its `x-contract-answer` header, outside any transaction. It is not reported
 * to `onOperation`: it is not an implementation's answer, and covers nothing.
 */
export function contractAnswerRoute(
  operation: ContractOperation,
  answer: ContractAnswer,
  integers: ReturnType<typeof integerParameters>,
  { faults }: RouteSetting,
): OperationRoute {
  const headers = { ...safeHeaders(answer.headers), [CONTRACT_ANSWER_HEADER]: answer.source };
  const json = answer.contentType === undefined || /[/+]json$/.test(answer.contentType);
  return async (req, res) => {
    if (await answeredBefore(operation, integers, faults, req, res)) return;
    if (json) return send(res, { status: answer.status, headers, body: answer.body });
    res.set(headers).status(answer.status).type(answer.contentType!).send(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
  };
}

type Run = (req: Request, res: Response, request: unknown) => Promise<void>;

/** A write: in a write transaction, queued behind the resource its path names first (on PostgreSQL). */
function writeRun(operation: ContractOperation, handler: AnyHandler, { ctx, reader }: RouteSetting): Run {
  const ownWrite = opensOwnTransaction(handler);
  // The resource a write is queued behind on PostgreSQL (Store.write's `queue`): the first one its path names, the
  // organization of /v1/orgs/{organizationId}/spaces or the space of /v1/spaces/{spaceId}/change-requests, whose
  // numbers, positions and counters concurrent writes through every instance would otherwise conflict on.
  const queueParameter = /\{([^}]+)\}/.exec(operation.path)?.[1];
  const ahead = membershipsAhead();
  // Whether a write of this operation conflicted with another and took its wider queue (see below).
  let conflicting = false;
  const widened = () => (conflicting = true);
  return async (req, res, request) => {
    const userId = req.caller?.user.id;
    const queue = queueParameter === undefined ? undefined : `${queueParameter}:${String(req.params[queueParameter])}`;
    // After a conflict, the organization's queue of the record it names, or the queue of writes whose organization
    // this instance does not know (WriteOptions.wider); at once for an operation whose writes conflicted before.
    const wider = widerQueue(ctx.store, queue);
    const queued = conflicting && wider !== undefined ? { queue: wider } : { queue, wider, widened };
    // Work the request queued starts once its write has committed (`enqueue`, jobs/runner.ts).
    const result = ownWrite
      ? await handler(request, reader)
      : await ctx.store.write(async (db) => {
          ahead.before(db, userId, organizationNamed(req));
          const answered = await handler(request, scoped(ctx, db));
          ahead.after(db);
          return answered;
        }, queued);
    send(res, answerOf(result));
  };
}

/** A read, in a read of its own (one snapshot); a list page read again while the database is unchanged is sent as kept. */
function readRun(handler: AnyHandler, { ctx, listPageCache }: RouteSetting): Run {
  // Whether this operation answers pages of a list, known from its first answer: only those are kept, and an
  // operation that answers anything else pays nothing for them.
  let lists: boolean | undefined;
  const ahead = membershipsAhead();
  // This route's requests, as the store learns how many statements they read (ReadOptions.kind).
  const kind = {};
  return async (req, res, request) => {
    const userId = req.caller?.user.id;
    // Per user and address: a handler sees nothing else of the request.
    const key = lists !== false && listPageCache.enabled ? `${userId ?? ''}\n${req.originalUrl}` : undefined;
    let changes: number | undefined;
    if (key !== undefined) {
      // The count of changes: SQLite's at no cost, PostgreSQL's with one statement.
      const count = listPageCache.changeCount();
      changes = typeof count === 'number' ? count : await count;
    }
    const kept = lists && key !== undefined ? listPageCache.find(key, changes!) : undefined;
    if (kept && !listPageCache.verifying) return send(res, kept);
    const before = key === undefined ? undefined : listPageCache.moment(changes!);
    const answer = answerOf(
      await inRead(ctx, async (scope) => {
        ahead.before(scope.db, userId, organizationNamed(req));
        const answered = await handler(request, scope);
        ahead.after(scope.db);
        return answered;
      }, { kind }),
    );
    if (kept) {
      const unchanged = listPageCache.unchangedSince(changes!);
      if (unchanged === true || (unchanged !== false && (await unchanged))) listPageCache.check(key!, kept, answer as ListAnswer);
      return send(res, kept);
    }
    if (key !== undefined) {
      const page = isListPage(answer.body);
      lists ??= page;
      if (page) {
        const after = listPageCache.momentAfter(before);
        listPageCache.keep(key, before, after instanceof Promise ? await after : after, answer as ListAnswer);
      }
    }
    send(res, answer);
  };
}

/** The organization a request's path names (`/v1/orgs/{organizationId}/…`), if it names one. */
function organizationNamed(req: Request): string | undefined {
  const named: unknown = req.params.organizationId;
  return typeof named === 'string' ? named : undefined;
}
