// conformance/exceptions.json: the fields the round-trip check does not compare (each with its reason), and the
// volatile fields a comparison of two readings leaves out.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface Exceptions {
  /** `value`: the exception holds only when that value was sent (an empty string that clears a field). */
  roundTrip: { operation: string; field: string; kind: string; reason: string; value?: unknown }[];
  volatile: { field: string; reason: string }[];
}

export const EXCEPTIONS_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../exceptions.json');
let exceptionsCache: Exceptions | undefined;
/** conformance/exceptions.json: the round-trip fields that do not come back as sent, and the volatile fields. */
export function exceptions(): Exceptions {
  exceptionsCache ??= JSON.parse(readFileSync(EXCEPTIONS_FILE, 'utf8')) as Exceptions;
  return exceptionsCache;
}

/** `value` without its volatile fields, at any depth. */
export function withoutVolatile(value: unknown): unknown {
  const volatile = new Set(exceptions().volatile.map((entry) => entry.field));
  const strip = (current: unknown): unknown => {
    if (Array.isArray(current)) return current.map(strip);
    if (typeof current !== 'object' || current === null) return current;
    return Object.fromEntries(Object.entries(current).filter(([key]) => !volatile.has(key)).map(([key, inner]) => [key, strip(inner)]));
  };
  return strip(value);
}
