// The contract's schemas as the domain uses them, from the generated types: `Model<'Space'>` as the server sends it
// (read-only fields included), `Input<'CreateSpaceRequest'>` as a client sends it (read-only fields left out).
import type { components, Readable, Writable } from '../../generated/schema.d.ts';

/** A component schema as the server sends it (read-only fields included). */
export type Model<Name extends keyof components['schemas']> = Readable<components['schemas'][Name]>;
/** A component schema as a client sends it (read-only fields left out). */
export type Input<Name extends keyof components['schemas']> = Writable<components['schemas'][Name]>;
