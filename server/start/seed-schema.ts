// A seed file checked against the contract before anything of it is stored: each field against the contract's schema of
// the field it becomes (the response schema every answer is validated against), each id against `ResourceId`, every
// string as text both engines store alike (server/docs/seed-file.md).
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { OpenApiDocument } from '../http/contract.ts';
import { SEED_SCHEMA } from './seed-format.ts';
import { textProblem } from '../common/text.ts';

// ajv-formats is CommonJS: its function is the default export's default under ES module interop, or the export itself.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

export type SeedCheck = (fixture: unknown) => string | undefined;

/**
 * A checker of seed files against `contract`: undefined for a valid fixture, otherwise the first problem in one
 * line naming the record and the field (`organizations[0] (acme): title must NOT have fewer than 2 characters`).
 */
export function seedChecker(contract: OpenApiDocument): SeedCheck {
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  addFormats(ajv);
  ajv.addSchema({ $id: 'contract', components: contract.components } as object);
  const validate = ajv.compile(SEED_SCHEMA);
  return (fixture) => {
    if (!validate(fixture)) return describe(fixture, validate.errors ?? []);
    const text = textError(fixture);
    return text === undefined ? undefined : describe(fixture, [text]);
  };
}

/**
 * The first string of the file that the engines would not store alike (text.ts: a NUL, an unpaired surrogate), as
 * an error at its place; iterative, since the schema has bounded the file's depth only where it has one.
 */
function textError(fixture: unknown): ErrorObject | undefined {
  const stack: { value: unknown; path: string }[] = [{ value: fixture, path: '' }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem !== undefined) return { keyword: 'text', instancePath: path, schemaPath: '', params: {}, message: problem };
    } else if (typeof value === 'object' && value !== null) {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i]!;
        stack.push({ value: item, path: `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}` });
      }
    }
  }
  return undefined;
}

/** `/organizations/0/spaces/1/title` as `organizations[0] (acme) › spaces[1] (Handbook): title`, with the problem. */
function describe(fixture: unknown, errors: ErrorObject[]): string {
  const error = errors.find((candidate) => candidate.keyword !== 'allOf' && candidate.keyword !== 'anyOf') ?? errors[0]!;
  const segments = error.instancePath.split('/').slice(1).map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  const records: string[] = [];
  const fields: string[] = [];
  let at: unknown = fixture;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const next = (at as Record<string, unknown>)?.[segment];
    const index = segments[i + 1];
    const isRecordList = Array.isArray(next) && index !== undefined && /^\d+$/.test(index) && typeof (next as unknown[])[Number(index)] === 'object';
    if (isRecordList && fields.length === 0) {
      const item = (next as Record<string, unknown>[])[Number(index)]!;
      const name = item.id ?? item.title ?? item.user ?? item.displayName;
      const shown = typeof name === 'string' && name !== '' ? ` (${name.length > 40 ? `${name.slice(0, 40)}…` : name})` : '';
      records.push(`${segment}[${index}]${shown}`);
      at = item;
      i++;
      continue;
    }
    fields.push(/^\d+$/.test(segment) ? `[${segment}]` : fields.length === 0 ? segment : `.${segment}`);
    at = next;
  }
  let problem = error.message ?? 'is not valid';
  if (error.keyword === 'additionalProperties') {
    fields.push(`${fields.length ? '.' : ''}${String(error.params.additionalProperty)}`);
    problem = 'is not a field of the seed format';
  } else if (error.keyword === 'required') {
    fields.push(`${fields.length ? '.' : ''}${String(error.params.missingProperty)}`);
    problem = 'is required';
  } else if (error.keyword === 'enum') {
    problem = `must be one of ${(error.params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}, got ${JSON.stringify(at)}`;
  } else if (error.keyword === 'minLength' || error.keyword === 'maxLength' || error.keyword === 'format' || error.keyword === 'pattern' || error.keyword === 'type') {
    problem = `${problem}, got ${JSON.stringify(at)?.slice(0, 80)}`;
  }
  const where = records.length ? records.join(' › ') : 'the file';
  return `${where}: ${fields.length ? `${fields.join('')} ` : ''}${problem}`;
}
