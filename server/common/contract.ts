// The contract's schemas as the domain uses them, from the generated types: `Model<'Space'>` as the server sends it
// (read-only fields included), `Input<'CreateSpaceRequest'>` as a client sends it (read-only fields left out); and an
// operation's parameters, body and answer, for a domain function that takes them whole (as `npm run scaffold` writes
// one: `OperationPath<'getTeam'>`, the path parameters its handler is given).
import type { components, operations, Readable, Writable } from '../../generated/schema.d.ts';

/** An operation of the contract, by its operationId. */
export type OperationId = keyof operations;
export type { operations };

/** A component schema as the server sends it (read-only fields included). */
export type Model<Name extends keyof components['schemas']> = Readable<components['schemas'][Name]>;
/** A component schema as a client sends it (read-only fields left out). */
export type Input<Name extends keyof components['schemas']> = Writable<components['schemas'][Name]>;

type JsonContent<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;
type Success<Op extends keyof operations> = operations[Op]['responses'][Extract<keyof operations[Op]['responses'], 200 | 201>];

/** The path parameters of an operation. */
export type OperationPath<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['path']>;
/** The query parameters of an operation. */
export type OperationQuery<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>;
/** The JSON body of an operation's request, as a client sends it. */
export type OperationBody<Op extends keyof operations> = Writable<JsonContent<NonNullable<operations[Op]['requestBody']>>>;
/** The JSON body of an operation's success answer, as the server sends it. */
export type OperationAnswer<Op extends keyof operations> = Readable<JsonContent<Success<Op>>>;
