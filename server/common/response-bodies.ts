// Answers whose JSON is made once: bodies already serialised (`serialized`: the app's res.json sends their text as it
// is), and answers made from data that never changes (`immutableBody`: a revision's content, domain/content-presenters.ts),
// frozen all the way down, serialised once, and remembered by the response check once it accepted them
// (http/immutable-bodies.ts). Presenters below http/ and the http layer both use them.
import { frozen } from './deep-freeze.ts';

/**
 * The JSON of bodies already serialised, which the app's `res.json` sends instead of serialising them again: pages
 * fitPage has measured, made from the JSON of their items it already has (a second JSON.stringify of a page's
 * items would do again what fitPage did), as text; answers kept and sent again (http/immutable-bodies.ts),
 * as UTF-8 bytes, encoded once. A body that is not in it is serialised as usual.
 */
export const serialized = new WeakMap<object, string | Buffer>();

/** The JSON text `serialized` holds for `body` (a Buffer decoded), or undefined when it holds none. */
export function serializedText(body: object): string | undefined {
  const known = serialized.get(body);
  return typeof known === 'string' || known === undefined ? known : known.toString('utf8');
}

const immutable = new WeakSet<object>();

/** Whether `body` was made by `immutableBody`. */
export const isImmutable = (body: object): boolean => immutable.has(body);

/**
 * Freezes `body` all the way down, keeps its JSON for res.json, and lets the response check remember it. The JSON is
 * kept as UTF-8 bytes: sent as they are, they are neither measured (Content-Length) nor encoded again per answer
 * (two passes over the text of a space's content, on every answer). `json`: its JSON text, when already made.
 */
export function immutableBody<T extends object>(body: T, json = JSON.stringify(body)): T {
  frozen(body);
  serialized.set(body, Buffer.from(json, 'utf8'));
  immutable.add(body);
  return body;
}

/** The size of the JSON `immutableBody` kept for `body`, in bytes (0 for any other body). */
export const immutableBodySize = (body: object): number => (immutable.has(body) ? (serialized.get(body) as Buffer).length : 0);

