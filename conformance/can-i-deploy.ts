// can-i-deploy: whether a contract still has, and still accepts, everything consumers' usage records say they use
// (docs/consumers.md, "can-i-deploy"). Each use that is gone or no longer accepted is named; nothing else is judged.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { load, CORE_SCHEMA } from 'js-yaml';
import { type Contract, DEFAULT_CONTRACT, declaredResponse, loadContract, type OpenApiDocument, type Operation, type Schema } from './contract.ts';
import { alternatives, responseSchema } from './usage-fields.ts';
import { isObject, type OperationUsage, type UsageRecord } from './usage-format.ts';

/** The schemas found at `pointer` (`/items/*\/title`) below `schema`; empty when the contract no longer has it there. */
function schemasAt(contract: Contract, schema: Schema | undefined, pointer: string): Schema[] {
  let here: Schema[] = schema ? [schema] : [];
  for (const segment of pointer.split('/').slice(1).map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))) {
    const next: Schema[] = [];
    for (const each of here.flatMap((one) => alternatives(contract, one))) {
      if (segment === '*') {
        if (each.items) next.push(each.items as Schema);
        if (isObject(each.additionalProperties)) next.push(each.additionalProperties as Schema);
      } else if (each.properties?.[segment]) next.push(each.properties[segment]);
      else if (isObject(each.additionalProperties)) next.push(each.additionalProperties as Schema);
    }
    here = next;
    if (here.length === 0) return [];
  }
  return here;
}

/** Whether the schemas at a place still allow a value (an enumeration that lost it does not). */
function allows(contract: Contract, schemas: Schema[], value: string | number | boolean): boolean {
  const all = schemas.flatMap((schema) => alternatives(contract, schema));
  const enums = all.filter((schema) => Array.isArray(schema.enum) || 'const' in schema);
  if (enums.length === 0) return true;
  return enums.some((schema) => (Array.isArray(schema.enum) ? schema.enum.includes(value) : schema.const === value));
}

/** Each use of `usage` (an operation's) that `operation` no longer has or accepts, as a sentence. */
function missingUses(contract: Contract, operationId: string, operation: Operation | undefined, usage: OperationUsage): string[] {
  if (!operation) return [`${operationId}: the operation is gone`];
  const gone: string[] = [];
  for (const [key, used] of Object.entries(usage.parameters)) {
    const [place, name] = [key.slice(0, key.indexOf('.')), key.slice(key.indexOf('.') + 1)];
    const declared = operation.parameters.find((parameter) => parameter.in === place && parameter.name.toLowerCase() === name.toLowerCase());
    if (!declared) gone.push(`${operationId}: parameter ${key} is gone`);
    else for (const value of used.values ?? []) if (!allows(contract, [declared.schema ?? {}], value)) gone.push(`${operationId}: parameter ${key} no longer accepts ${JSON.stringify(value)}`);
  }
  for (const [pointer, used] of Object.entries(usage.body)) {
    const schemas = schemasAt(contract, operation.body?.schema, pointer);
    if (schemas.length === 0) gone.push(`${operationId}: request field ${pointer} is gone`);
    else for (const value of used.values ?? []) if (!allows(contract, schemas, value)) gone.push(`${operationId}: request field ${pointer} no longer accepts ${JSON.stringify(value)}`);
  }
  for (const [key, response] of Object.entries(usage.responses)) {
    const [status, mediaType] = key.split(' ') as [string, string | undefined];
    const declared = declaredResponse(operation, Number(status))?.response;
    if (!declared) {
      gone.push(`${operationId}: status ${status} is no longer declared`);
      continue;
    }
    if (!mediaType) continue;
    if (!declared.contentTypes.includes(mediaType)) {
      gone.push(`${operationId}: ${status} is no longer answered as ${mediaType}`);
      continue;
    }
    const schema = responseSchema(contract, operation, Number(status), mediaType);
    for (const pointer of response.read ?? response.present) {
      if (schemasAt(contract, schema, pointer).length === 0) gone.push(`${operationId}: response field ${pointer} (${status}) is gone`);
    }
  }
  return gone;
}

/** Every use of `record` that `contract` no longer has or accepts; empty: the consumer can deploy against it. */
export function canIDeploy(record: UsageRecord, contract: Contract): string[] {
  return Object.entries(record.operations).flatMap(([operationId, usage]) => missingUses(contract, operationId, contract.operations.get(operationId), usage));
}

/** The releases this package carries: generated/releases/<version>/openapi.yaml, as the toolkit records them. */
export const PACKAGE_RELEASES = path.resolve(path.dirname(DEFAULT_CONTRACT), 'releases');

const RELEASE_VERSION = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;
const isUrl = (source: string) => /^https?:\/\//.test(source);

/** The versions recorded in a folder of releases, oldest first. */
function recordedVersions(folder: string): string[] {
  try {
    return readdirSync(folder)
      .filter((version) => RELEASE_VERSION.test(version) && existsSync(path.join(folder, version, 'openapi.yaml')))
      .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  } catch {
    return [];
  }
}

/**
 * Where a contract is: a file path, an http(s) URL, or a bare release version (`1.2.0`), looked up in `releases` (a
 * folder or a URL holding `<version>/openapi.yaml`, as generated/releases/ does), by default the releases this
 * package carries.
 */
export function contractSource(source: string, releases: string = PACKAGE_RELEASES): string {
  if (!RELEASE_VERSION.test(source) || existsSync(source)) return source;
  if (isUrl(releases)) return `${releases.replace(/\/+$/, '')}/${source}/openapi.yaml`;
  const file = path.join(releases, source, 'openapi.yaml');
  if (existsSync(file)) return file;
  const known = recordedVersions(releases);
  throw new Error(`no release ${source} in ${releases}${known.length > 0 ? ` (it has ${known.join(', ')})` : ' (no release recorded there)'}`);
}

/** A contract from a file path, an http(s) URL (YAML or JSON) or a release version (`contractSource`). */
export async function contractFrom(source: string, releases?: string): Promise<Contract> {
  const where = contractSource(source, releases);
  if (!isUrl(where)) return loadContract(where);
  const answer = await fetch(where, { signal: AbortSignal.timeout(30_000) });
  if (!answer.ok) throw new Error(`${where}: answered ${answer.status}`);
  return loadContract(load(await answer.text(), { schema: CORE_SCHEMA }) as OpenApiDocument);
}

/** The consumers × contracts table, in Markdown: each cell ✓, or ✗ with the count of uses gone. */
export function deployTable(records: UsageRecord[], contracts: { label: string; contract: Contract }[]): { markdown: string; json: Record<string, Record<string, string[]>> } {
  const json: Record<string, Record<string, string[]>> = {};
  const rows = records.map((record) => {
    const cells = contracts.map(({ label, contract }) => {
      const gone = canIDeploy(record, contract);
      (json[record.consumer.name] ??= {})[label] = gone;
      return gone.length === 0 ? '✓' : `✗ ${gone.length} use${gone.length === 1 ? '' : 's'} gone`;
    });
    return `| ${record.consumer.name}${record.consumer.version ? ` ${record.consumer.version}` : ''} | ${cells.join(' | ')} |`;
  });
  const header = `| Consumer | ${contracts.map(({ label }) => label).join(' | ')} |\n|---|${contracts.map(() => '---|').join('')}`;
  return { markdown: `${header}\n${rows.join('\n')}\n`, json };
}
