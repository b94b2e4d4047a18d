// Bounds on the shape of JSON that JSON Schema cannot state: how deep it nests and how long its property names
// are, and, in a request body, text both engines store alike in every string and property name (text.ts). They are
// checked without recursion, before anything recursive (the validator, JSON.stringify, structured clones, the
// document converters) touches the value, so a 100 000-level body is a 400 naming where it goes too deep.
import { badRequest } from './errors.ts';
import { textProblem } from './text.ts';

/** Most levels of nested objects and arrays in a request body (the body itself is level 1). */
export const MAX_JSON_DEPTH = 64;

/** Longest property name in a request body (the keys of maps: configurations, secrets, claims, data). */
export const MAX_JSON_KEY_LENGTH = 255;

/** How many path segments a message shows before it elides the rest. */
const SHOWN_SEGMENTS = 8;

interface Frame {
  value: unknown;
  depth: number;
  parent?: Frame;
  key?: string;
}

function pathOf(frame: Frame, root: string): string {
  const segments: string[] = [];
  for (let at: Frame | undefined = frame; at?.key !== undefined; at = at.parent) segments.push(at.key);
  segments.reverse();
  const shown = segments.slice(0, SHOWN_SEGMENTS).join('.');
  return [root, shown].filter(Boolean).join('.') + (segments.length > SHOWN_SEGMENTS ? '…' : '');
}

export interface JsonShapeLimits {
  /** Most levels of nested objects and arrays (the value itself is level 1). */
  maxDepth: number;
  /** Longest property name; unchecked when absent. */
  maxKeyLength?: number;
  /** Check every string and property name for what the engines cannot store alike (text.ts `textProblem`). */
  text?: boolean;
}

/**
 * What is wrong with the shape of `value`, as `<root>.<path>: <problem>` (at most 8 path segments shown), or
 * undefined when it is within `limits`. Iterative: any depth is safe.
 */
export function jsonShapeProblem(value: unknown, limits: JsonShapeLimits, root = 'body'): string | undefined {
  const stack: Frame[] = [{ value, depth: 1 }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const current = frame.value;
    if (typeof current === 'string' && limits.text) {
      const problem = textProblem(current);
      if (problem !== undefined) return `${pathOf(frame, root)}: ${problem}`;
    }
    if (typeof current !== 'object' || current === null) continue;
    if (frame.depth > limits.maxDepth) {
      return `${pathOf(frame, root)}: nests deeper than ${limits.maxDepth} levels of objects and arrays`;
    }
    if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index--) {
        stack.push({ value: current[index], depth: frame.depth + 1, parent: frame, key: String(index) });
      }
      continue;
    }
    const keys = Object.keys(current);
    for (let index = keys.length - 1; index >= 0; index--) {
      const key = keys[index]!;
      if (limits.maxKeyLength !== undefined && key.length > limits.maxKeyLength) {
        return `${pathOf(frame, root)}: has a property name longer than ${limits.maxKeyLength} characters`;
      }
      const problem = limits.text ? textProblem(key) : undefined;
      if (problem !== undefined) return `${pathOf(frame, root)}: a property name ${problem}`;
      stack.push({ value: (current as Record<string, unknown>)[key], depth: frame.depth + 1, parent: frame, key });
    }
  }
  return undefined;
}

/**
 * Throws a 400 naming where a request body nests deeper than 64 levels, has a property name over 255 characters, or
 * holds a string or property name with a NUL or an unpaired surrogate.
 */
export function checkRequestJson(value: unknown, root = 'body'): void {
  const problem = jsonShapeProblem(value, { maxDepth: MAX_JSON_DEPTH, maxKeyLength: MAX_JSON_KEY_LENGTH, text: true }, root);
  if (problem !== undefined) throw badRequest(problem);
}
