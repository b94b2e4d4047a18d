// Deep freeze: a value handed to several readers, made immutable all the way down.

/**
 * `value`, frozen with everything it holds (parsed JSON and trees built from it: objects and arrays, no cycles):
 * what several readers share (revisions, Documents) is handed out this way, so that none can change it for the others.
 */
export function frozen<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const item of Object.values(value)) frozen(item);
    Object.freeze(value);
  }
  return value;
}
