// JSON pointers in URI-fragment form ('#/components/schemas/Space/properties/title'), as `$ref` writes them.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function escape(part: string | number): string {
  const text = String(part);
  return text.includes('~') || text.includes('/') ? text.replace(/~/g, '~0').replace(/\//g, '~1') : text;
}

function unescape(part: string): string {
  return part.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** `path` extended by `parts`: `child('#/paths', '/v1/spaces')` is `'#/paths/~1v1~1spaces'`. */
export function child(path: string, ...parts: (string | number)[]): string {
  return `${path}/${parts.map(escape).join('/')}`;
}

/** The value at a local reference (`#/…`) of `document`, or undefined. */
export function resolvePointer(document: unknown, pointer: string): unknown {
  if (pointer === '#' || pointer === '#/') return document;
  if (!pointer.startsWith('#/')) return undefined;
  let node: unknown = document;
  for (const raw of pointer.slice(2).split('/')) {
    const part = unescape(decodeURIComponent(raw));
    if (Array.isArray(node)) node = node[Number(part)];
    else if (isObject(node)) node = Object.hasOwn(node, part) ? node[part] : undefined;
    else return undefined;
  }
  return node;
}

/** The path segments of a pointer, unescaped. */
export function segments(pointer: string): string[] {
  return pointer.replace(/^#\/?/, '').split('/').filter(Boolean).map(unescape);
}

/**
 * The component a location belongs to: `Space` for `#/components/schemas/Space/…`, `parameters/SpacePath` for
 * other kinds of components; undefined outside `#/components`.
 */
export function componentOf(pointer: string): string | undefined {
  const match = /^#\/components\/([^/]+)\/([^/]+)/.exec(pointer);
  if (!match) return undefined;
  const name = unescape(decodeURIComponent(match[2]!));
  return match[1] === 'schemas' ? name : `${match[1]}/${name}`;
}

/** Canonical JSON: object keys sorted, so two equal values print the same. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}
