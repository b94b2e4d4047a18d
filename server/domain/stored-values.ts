// Stored values brought within the contract after an upgrade: after the migrations of an opening that applied any, each
// checked column's values are validated against the contract's schema of the field they are answered as, and a refused
// value is rewritten to a valid form, so that no answer holding it is a response-validation 500 (server/docs/store.md,
// "Upgrades keep every record").
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Db } from '../store/db.ts';
import { type CheckedColumn, set, values } from '../store/stored-values.ts';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

/** Each checked column, the contract's field it is answered as, and how a refused value is rewritten. */
const CHECKED: { column: CheckedColumn; field: [schema: string, property: string]; repair: 'title' | 'drop' }[] = [
  { column: { table: 'organizations', column: 'title' }, field: ['Organization', 'title'], repair: 'title' },
  { column: { table: 'teams', column: 'title' }, field: ['Team', 'title'], repair: 'title' },
  { column: { table: 'collections', column: 'title' }, field: ['Collection', 'title'], repair: 'title' },
  { column: { table: 'spaces', column: 'title' }, field: ['Space', 'title'], repair: 'title' },
  { column: { table: 'users', column: 'email' }, field: ['User', 'email'], repair: 'drop' },
  { column: { table: 'users', column: 'photo_url' }, field: ['User', 'photoURL'], repair: 'drop' },
];

export interface RepairedValue {
  table: string;
  column: string;
  id: string;
  from: string;
  to: string | null;
}

/** `value` within `minLength`/`maxLength` (counted in code points, as the validator counts). */
function repairTitle(value: string, id: string, schema: { minLength?: number; maxLength?: number }): string {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? Infinity;
  let title = [...value];
  if (title.length < min) title = value === '' && min <= 1 ? [...'Untitled'] : [...(value === '' ? id : `${value} (${id})`)];
  if (title.length > max) title = title.slice(0, max);
  return title.join('');
}

/** Per contract object (the servers of a process share one): an Ajv holding its components, and each field's check. */
const checksOf = new WeakMap<object, { ajv: Ajv2020; checks: Map<string, ValidateFunction> }>();

/** The check of `contract`'s field, compiled on first use: a database with nothing to check (a new one) compiles none. */
function checkOf(contract: { components?: unknown }, [schema, property]: [string, string]): ValidateFunction {
  const components = contract.components as object;
  let compiled = checksOf.get(components);
  if (!compiled) {
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    ajv.addSchema({ $id: 'contract', components } as object);
    checksOf.set(components, (compiled = { ajv, checks: new Map() }));
  }
  const ref = `contract#/components/schemas/${schema}/properties/${property}`;
  let check = compiled.checks.get(ref);
  if (!check) compiled.checks.set(ref, (check = compiled.ajv.compile({ $ref: ref })));
  return check;
}

/** Validates every checked column against `contract` and rewrites what it refuses; answers what was rewritten. */
export async function repairStoredValues(db: Db, contract: { [key: string]: unknown; components?: unknown }): Promise<RepairedValue[]> {
  const schemas = (contract.components as { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> }).schemas;
  const repaired: RepairedValue[] = [];
  for (const { column, field, repair } of CHECKED) {
    for (const { id, value } of await values(db, column)) {
      const validate = checkOf(contract, field);
      if (validate(value)) continue;
      const to = repair === 'drop' ? null : repairTitle(value, id, schemas[field[0]]!.properties[field[1]]!);
      if (to !== null && !validate(to)) throw new Error(`${column.table}.${column.column} of ${id}: ${JSON.stringify(value)} cannot be made valid`);
      await set(db, column, id, to);
      repaired.push({ table: column.table, column: column.column, id, from: value, to });
    }
  }
  return repaired;
}
