// Reads the resources of the API document ("## Resources and their fields"): every field each resource lists,
// nested fields of the shapes it gives (`{a, b: {c}}`), `object` constants, R/O flags, closed enumerations and
// length/pattern rules, so that a test can hold the emitted schemas to them without restating them by hand.
import { splitRow } from './api-document.ts';

export type Rules = { minLength?: number; maxLength?: number; pattern?: string };

export type FieldSpec = {
  /** Property names from the resource down; `*` stands for any key of a map. */
  path: string[];
  /** true for R, false for O, absent where the document gives no flag. */
  required?: boolean;
  /** The value of a constant field, such as `object`. */
  constant?: string;
  /** The full list of values of an enumeration the document closes. */
  enumValues?: string[];
  rules: Rules;
};

export type ResourceSpec = { heading: string; line: number; fields: FieldSpec[] };

export function parseResources(markdown: string): ResourceSpec[] {
  const resources: ResourceSpec[] = [];
  let inResources = false;
  let current: (ResourceSpec & { sawText: boolean; sawHeader: boolean }) | undefined;

  markdown.split('\n').forEach((line, index) => {
    if (line.startsWith('## ')) {
      inResources = line.trim() === '## Resources and their fields';
      current = undefined;
      return;
    }
    if (!inResources) return;
    if (line.startsWith('### ')) {
      current = { heading: line.slice(4).trim(), line: index + 1, fields: [], sawText: false, sawHeader: false };
      resources.push(current);
      return;
    }
    if (!current || line.trim() === '') return;

    if (line.startsWith('|')) {
      const cells = splitRow(line);
      if (!current.sawHeader) {
        current.sawHeader = true;
        return;
      }
      if (cells.every((cell) => /^:?-+:?$/.test(cell))) return;
      const [names = '', type = ''] = cells;
      for (const name of names.split(',').map((part) => part.trim())) {
        current.fields.push(...fieldsOfRow(name.split('.'), type));
      }
    } else if (!current.sawText) {
      // A resource given inline: its first paragraph opens with its shape, "`{id, name, ...}`".
      current.sawText = true;
      const inline = line.match(/^`(\{.*?\})`/);
      if (inline) current.fields.push(...parseShape(inline[1]!, []));
    }
  });
  return resources.filter((resource) => resource.fields.length > 0);
}

function fieldsOfRow(path: string[], type: string): FieldSpec[] {
  const flag = type.match(/^(R|O)\b/)?.[1];
  const field: FieldSpec = { path, rules: type.includes('on write') ? {} : rulesOf(type) };
  if (flag) field.required = flag === 'R';
  const backticked = [...withoutParentheticals(type).matchAll(/`([^`{}]+)`/g)].map((match) => match[1]!);
  if (path.at(-1) === 'object' && backticked.length === 1) field.constant = backticked[0];
  if (/\benum\b/.test(type) && !/example/.test(type) && backticked.length > 1) field.enumValues = backticked;

  const fields = [field];
  const shape = type.match(/`(\{.*?\})`/);
  if (shape) {
    const isMap = /\bmap\b[^`]*`\{/.test(type);
    fields.push(...parseShape(shape[1]!, isMap ? [...path, '*'] : path));
  }
  const list = type.match(/^(?:[RO], )?(?:booleans|numbers): (.+)$/);
  if (list) fields.push(...list[1]!.split(',').map((name) => ({ path: [...path, name.trim()], rules: {} })));
  return fields;
}

/** Fields of a shape such as `{a, b (R), c: {d, e: 'x'}, f: [{g}]}`, prefixed with `prefix`. */
function parseShape(shape: string, prefix: string[]): FieldSpec[] {
  const inner = shape.trim().replace(/^\{/, '').replace(/\}$/, '');
  return splitTopLevel(inner).flatMap((item) => {
    const annotations = [...topLevelParentheticals(item)];
    const text = withoutParentheticals(item).trim();
    const colon = text.indexOf(':');
    const name = (colon < 0 ? text : text.slice(0, colon)).trim();
    const value = colon < 0 ? '' : text.slice(colon + 1).trim();
    if (!/^[A-Za-z_$][\w$]*$/.test(name)) return []; // prose inside a shape ("plus free-form entries")

    const path = [...prefix, name];
    const field: FieldSpec = { path, rules: {} };
    for (const annotation of annotations) {
      const flag = annotation.match(/^(R|O)\b/)?.[1];
      if (flag) field.required = flag === 'R';
      Object.assign(field.rules, rulesOf(annotation));
    }
    const constant = value.match(/^'([^']*)'$/);
    if (constant) field.constant = constant[1];

    const nested = value.match(/^\[?\s*(\{.*\})\s*\]?$/);
    return [field, ...(nested ? parseShape(nested[1]!, path) : [])];
  });
}

function rulesOf(text: string): Rules {
  const rules: Rules = {};
  const range = text.match(/\b(\d+)\.\.(\d+)\b/);
  if (range) {
    rules.minLength = Number(range[1]);
    rules.maxLength = Number(range[2]);
  }
  const max = text.match(/\bmax (\d+)\b/);
  if (max) rules.maxLength = Number(max[1]);
  const pattern = text.match(/pattern `([^`]+)`/) ?? text.match(/pattern (\^\S+\$)/);
  if (pattern) rules.pattern = pattern[1];
  return rules;
}

/** Splits on commas that are not inside (), {} or []. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if ('({['.includes(char)) depth++;
    else if (')}]'.includes(char)) depth--;
    else if (char === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((part) => part.trim()).filter(Boolean);
}

/** The contents of the parentheses that are not nested in other parentheses. */
function* topLevelParentheticals(text: string): Generator<string> {
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(' && depth++ === 0) start = i + 1;
    else if (text[i] === ')' && --depth === 0) yield text.slice(start, i);
  }
}

function withoutParentheticals(text: string): string {
  let result = text;
  for (const annotation of topLevelParentheticals(text)) result = result.replace(`(${annotation})`, '');
  return result;
}
