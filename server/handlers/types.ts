// The handler table, derived from the generated `operations`: one handler per operation of the contract but those
// pending (pending.ts). What a handler takes and returns is http/handler.ts's.
import type { Handler, OperationId } from '../http/handler.ts';
import type { PendingOperation } from './pending.ts';

export type { Handler, HandlerRequest, HandlerResult, Input, Model, OperationId, PathParams, QueryParams, RequestBody } from '../http/handler.ts';

/**
 * One handler per operation of the contract, but for the pending ones (pending.ts), which may have one (a handler
 * `npm run scaffold` wrote) and are answered from the contract all the same until their entry goes.
 */
export type HandlerTable = { [K in Exclude<OperationId, PendingOperation>]: Handler<K> } & { [K in PendingOperation]?: Handler<K> };

/** Handlers of one resource group: any subset of the table, each with its exact type. */
export type HandlerGroup<K extends OperationId> = { [P in K]: Handler<P> };
