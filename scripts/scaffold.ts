// `npm run scaffold -- <operationId>`: the start of an operation of the contract that no handler implements yet, in
// the server's layers and typed from the generated contract: its handler, its domain function (failing "not written
// yet"), its entry in server/handlers/pending.ts and a test that is red until the operation answers for real. What
// each is, and what it refuses: server/docs/code.md ("Operations not implemented yet").
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONTRACT_ANSWER_HEADER, operationExamples, schemaValue } from '../server/http/example-answers.ts';
import { type ContractOperation, contractOperations, type OpenApiDocument, parseContractYaml } from '../server/http/contract.ts';
import { operationsInventory } from './check.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A refusal: printed as one message, exit 2. */
export class ScaffoldError extends Error {}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Node = Record<string, any>;

/** What the scaffold wrote, by file (relative to the repository), with a word on each. */
export type Written = [file: string, what: string][];

const kebab = (text: string) =>
  text
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .toLowerCase();
const camel = (text: string) => kebab(text).replace(/-([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());

/** Levenshtein's distance, for the suggestion of an unknown id. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1]!.toLowerCase() === b[j - 1]!.toLowerCase() ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/** A value as TypeScript source: objects with unquoted keys where they can be, strings in single quotes. */
export function literal(value: unknown, indent = ''): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') return `'${JSON.stringify(value).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const inner = `${indent}  `;
  const entries = Array.isArray(value)
    ? value.map((item) => literal(item, inner))
    : Object.entries(value).map(([key, item]) => `${/^[A-Za-z_$][\w$]*$/.test(key) ? key : literal(key)}: ${literal(item, inner)}`);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) return `${open}${close}`;
  const flat = Array.isArray(value) ? `[${entries.join(', ')}]` : `{ ${entries.join(', ')} }`;
  return flat.length <= 100 && !flat.includes('\n') ? flat : `${open}\n${entries.map((entry) => `${inner}${entry},`).join('\n')}\n${indent}${close}`;
}

/** `text` as comment lines of at most 120 characters, each starting with `prefix`. */
function commentLines(text: string, prefix: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && prefix.length + line.length + 1 + word.length > 120) {
      lines.push(`${prefix}${line}`);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(`${prefix}${line}`);
  return lines;
}

/** The schema name a `$ref` to a component schema gives (`#/components/schemas/Team` → `Team`). */
const componentName = (schema: Node | undefined): string | undefined => /^#\/components\/schemas\/([A-Za-z_$][\w$]*)$/.exec(String(schema?.$ref ?? ''))?.[1];

/** What the scaffold needs to know of the operation, read from the emitted contract. */
interface Shape {
  operation: ContractOperation;
  object: Node;
  tag: string | undefined;
  status: number;
  /** The success answer's schema; undefined without a JSON body. */
  answer: Node | undefined;
  /** The request body's schema; undefined without one. */
  body: Node | undefined;
  /** Its parameters, references followed. */
  parameters: Node[];
  pathNames: string[];
  queryNames: string[];
}

function shapeOf(document: OpenApiDocument, operation: ContractOperation): Shape {
  const object = document.paths[operation.path]![operation.method] as Node;
  const follow = (node: Node | undefined): Node | undefined => {
    let current = node;
    while (typeof current?.$ref === 'string' && !current.$ref.startsWith('#/components/schemas/')) {
      current = current.$ref
        .slice(2)
        .split('/')
        .reduce<Node | undefined>((at, segment) => at?.[segment], document as Node);
    }
    return current;
  };
  const status = Object.keys(object.responses ?? {})
    .filter((code) => /^2\d\d$/.test(code))
    .sort()[0];
  if (status === undefined) throw new ScaffoldError(`${operation.operationId} declares no success status`);
  const parameters = ((object.parameters ?? []) as Node[]).map((parameter) => follow(parameter)!);
  return {
    operation,
    object,
    tag: (object.tags as string[] | undefined)?.[0],
    status: Number(status),
    answer: follow(object.responses[status])?.content?.['application/json']?.schema,
    body: follow(object.requestBody)?.content?.['application/json']?.schema,
    parameters,
    pathNames: parameters.filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name as string),
    queryNames: parameters.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name as string),
  };
}

/** The request the test sends: the first example's that has one, or one made from the contract. */
function requestOf(document: OpenApiDocument, shape: Shape): { path: Record<string, unknown>; query: Record<string, unknown>; body?: unknown; response?: unknown; from: string } {
  const examples = operationExamples(document, shape.operation);
  const example = examples.find((candidate) => Object.keys(candidate.parameters.path).length > 0 || candidate.body !== undefined) ?? examples[0];
  const made = (parameter: Node) => schemaValue(document, (parameter.schema ?? {}) as Node, 'request');
  const path: Record<string, unknown> = {};
  const query: Record<string, unknown> = {};
  for (const parameter of shape.parameters) {
    if (parameter.in === 'path') path[parameter.name] = example?.parameters.path[parameter.name] ?? made(parameter);
    if (parameter.in === 'query') {
      const value = example?.parameters.query[parameter.name] ?? (parameter.required ? made(parameter) : undefined);
      if (value !== undefined) query[parameter.name] = value;
    }
  }
  const body = shape.body === undefined ? undefined : (example?.body ?? schemaValue(document, shape.body, 'request'));
  const answered = examples.find((candidate) => candidate.response !== undefined);
  return {
    path,
    query,
    ...(body === undefined ? {} : { body }),
    ...(answered ? { response: answered.response } : {}),
    from: example ? `the example${example.name === 'default' ? '' : ` "${example.name}"`}` : 'the contract (the operation has no example)',
  };
}

/** The handler module an operation goes in: the one implementing most operations of its tag, or a new one. */
async function groupOf(repo: string, operations: ContractOperation[], document: OpenApiDocument, shape: Shape): Promise<{ file: string; stem: string; existing: boolean }> {
  const inventory = await operationsInventory(repo);
  for (const [file, names] of inventory.handlers) {
    if (names.includes(shape.operation.operationId)) throw new ScaffoldError(`${shape.operation.operationId} already has a handler, in ${file}`);
  }
  const siblings = new Set(
    operations
      .filter((other) => other.operationId !== shape.operation.operationId && shape.tag !== undefined && (document.paths[other.path]![other.method] as Node).tags?.[0] === shape.tag)
      .map((other) => other.operationId),
  );
  const ranked = [...inventory.handlers]
    .map(([file, names]) => ({ file, count: names.filter((name) => siblings.has(name)).length }))
    .filter((entry) => entry.count > 0)
    .sort((a, b) => b.count - a.count);
  if (ranked[0]) return { file: ranked[0].file, stem: path.basename(ranked[0].file, '.ts'), existing: true };
  const stem = kebab(shape.tag ?? shape.operation.operationId);
  return { file: `server/handlers/${stem}.ts`, stem, existing: false };
}

/** Adds `names` to the import from `module` in `source` (type-only names as `type X` where the import is not), or a new import line. */
function withImport(source: string, module: string, names: string[], typeOnly: boolean): string {
  const escaped = module.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const existing = new RegExp(`import (type )?\\{([^}]*)\\} from '${escaped}';`).exec(source);
  if (existing) {
    const have = existing[2]!.split(',').map((name) => name.trim().replace(/^type /, '')).filter(Boolean);
    const missing = names.filter((name) => !have.includes(name));
    if (missing.length === 0) return source;
    // Values beside a type-only import: an import of their own.
    if (existing[1] && !typeOnly) return source.replace(existing[0], `${existing[0]}\nimport { ${missing.join(', ')} } from '${module}';`);
    const added = missing.map((name) => (typeOnly && !existing[1] ? `type ${name}` : name));
    const list = existing[2]!.includes('\n')
      ? `${existing[2]!.replace(/,?\s*$/, ',')}\n  ${added.join(',\n  ')},\n`
      : ` ${[...existing[2]!.split(',').map((name) => name.trim()).filter(Boolean), ...added].join(', ')} `;
    return source.replace(existing[0], `import ${existing[1] ?? ''}{${list}} from '${module}';`);
  }
  const imports = [...source.matchAll(/^import [^;]+;$/gm)];
  const line = `import ${typeOnly ? 'type ' : ''}{ ${names.join(', ')} } from '${module}';`;
  const last = imports.at(-1);
  if (!last) return `${line}\n${source}`;
  const end = last.index + last[0].length;
  return `${source.slice(0, end)}\n${line}${source.slice(end)}`;
}

/** The handler module with the operation added: its `Operations` union, its table, the domain function's import. */
function addHandler(source: string, file: string, shape: Shape, operations: ContractOperation[], domainModule: string, handler: string): string {
  const id = shape.operation.operationId;
  const group = /export const (\w+Handlers): HandlerGroup<([^>]+)> = \{/.exec(source);
  if (!group) throw new ScaffoldError(`${file} has no \`export const …Handlers: HandlerGroup<…> = {\`: add the handler of ${id} by hand`);
  let updated = source;
  const argument = group[2]!;
  if (/'/.test(argument)) {
    updated = updated.replace(group[0], group[0].replace(argument, `${argument} | '${id}'`));
  } else {
    // The union of the operation's siblings whose paths share the most with its own (comments: the space's or the
    // change request's).
    const aliases = argument.split('|').map((name) => name.trim());
    const common = (a: string, b: string) => {
      let index = 0;
      while (index < a.length && a[index] === b[index]) index++;
      return index;
    };
    const scored = aliases.map((alias) => {
      const declaration = new RegExp(`type ${alias} =([^;]*);`).exec(updated);
      const members = [...(declaration?.[1] ?? '').matchAll(/'(\w+)'/g)].map((match) => match[1]!);
      const score = Math.max(-1, ...members.map((member) => operations.find((operation) => operation.operationId === member)).filter(Boolean).map((operation) => common(operation!.path, shape.operation.path)));
      return { alias, declaration, score };
    });
    const best = scored.filter((entry) => entry.declaration).sort((a, b) => b.score - a.score)[0];
    if (!best) throw new ScaffoldError(`${file}: the union of its operations (${argument}) is not a \`type X = 'a' | …;\` of the module: add ${id} to it by hand`);
    const [whole, body] = [best.declaration![0], best.declaration![1]!];
    updated = updated.replace(whole, `type ${best.alias} =${body.includes('\n') ? `${body}\n  | '${id}'` : `${body} | '${id}'`};`);
  }
  const start = updated.indexOf(group[0]);
  const end = updated.indexOf('\n};', start);
  if (end < 0) throw new ScaffoldError(`${file}: the end of ${group[1]} (a line \`};\`) was not found`);
  updated = `${updated.slice(0, end)}\n\n${handler}${updated.slice(end)}`;
  return withImport(updated, domainModule, [id], false);
}

/** The handler of the operation: its request's parts to its domain function, its answer's status and body back. */
function handlerSource(shape: Shape): string {
  const id = shape.operation.operationId;
  const parts = [...(shape.pathNames.length > 0 ? ['params'] : []), ...(shape.queryNames.length > 0 ? ['query'] : []), ...(shape.body ? ['body'] : [])];
  const call = `${id}(ctx, caller${parts.map((part) => `, ${part}`).join('')})`;
  const result = shape.answer ? `return { status: ${shape.status}, body: await ${call} };` : `await ${call};\n    return { status: ${shape.status} };`;
  return `  async ${id}({ ${[...parts, 'caller'].join(', ')} }, ctx) {\n    ${result}\n  },`;
}

/** The domain function: typed from the contract, failing "not written yet". */
function domainSource(shape: Shape, domainFile: string): { source: string; types: string[] } {
  const id = shape.operation.operationId;
  const types: string[] = [];
  const use = (type: string) => {
    types.push(type.replace(/<.*$/, ''));
    return type;
  };
  const parameters = [`_ctx: Scope`, `_caller: Caller`];
  if (shape.pathNames.length > 0) parameters.push(`_path: ${use(`OperationPath<'${id}'>`)}`);
  if (shape.queryNames.length > 0) parameters.push(`_query: ${use(`OperationQuery<'${id}'>`)}`);
  if (shape.body) {
    const name = componentName(shape.body);
    parameters.push(`_body: ${name ? use(`Input<'${name}'>`) : use(`OperationBody<'${id}'>`)}`);
  }
  const answer = shape.answer ? (componentName(shape.answer) ? use(`Model<'${componentName(shape.answer)}'>`) : use(`OperationAnswer<'${id}'>`)) : 'void';
  const what = String(shape.object.description ?? shape.object.summary ?? id)
    .split('\n')[0]!
    .replace(/\.?$/, '.');
  return {
    source: [
      '',
      '/**',
      ...commentLines(`${what} Not written yet (\`npm run scaffold\` wrote this start): the server answers ${id} from the contract while it is listed in server/handlers/pending.ts.`, ' * '),
      ' */',
      `export async function ${id}(${parameters.join(', ')}): Promise<${answer}> {`,
      `  throw new Error('${id} is not written yet: write it in ${domainFile}, then remove its entry from server/handlers/pending.ts');`,
      '}',
      '',
    ].join('\n'),
    types,
  };
}

/** The test of the operation: red until it answers for real. */
function testSource(document: OpenApiDocument, shape: Shape, domainFile: string): string {
  const { operation } = shape;
  const id = operation.operationId;
  const request = requestOf(document, shape);
  const seeded: Node = { id: String(request.path.organizationId ?? 'acme'), title: 'Organization', members: [{ user: 'admin', role: 'admin' }] };
  const named: string[] = [];
  if (request.path.teamId !== undefined) seeded.teams = [{ id: String(request.path.teamId), title: 'Technical writers' }];
  if (request.path.collectionId !== undefined) seeded.collections = [{ id: String(request.path.collectionId), title: 'Guides' }];
  if (request.path.spaceId !== undefined) {
    seeded.spaces = [{ id: String(request.path.spaceId), title: 'Handbook', ...(request.path.pageId !== undefined ? { pages: [{ id: String(request.path.pageId), title: 'Welcome' }] } : {}) }];
  }
  const seedable = new Set(['organizationId', 'teamId', 'collectionId', 'spaceId', ...(request.path.spaceId !== undefined ? ['pageId'] : [])]);
  for (const name of shape.pathNames) if (!seedable.has(name)) named.push(name);
  const fixture = { users: [{ id: 'admin', displayName: 'Admin', tokens: ['admin'] }], organizations: [seeded] };
  const params = [
    ...(shape.pathNames.length > 0 ? [`path: ${literal(request.path, '      ')}`] : []),
    ...(Object.keys(request.query).length > 0 ? [`query: ${literal(request.query, '      ')}`] : []),
  ];
  const init = [...(params.length > 0 ? [`params: { ${params.join(', ')} }`] : []), ...('body' in request ? [`body: ${literal(request.body, '    ')}`] : [])];
  const call = `ctx.server.as('admin').${operation.method.toUpperCase()}('${operation.path}'${init.length > 0 ? `, {\n    ${init.join(',\n    ')},\n  }` : ''})`;
  const fields = request.response && typeof request.response === 'object' && !Array.isArray(request.response) ? Object.keys(request.response) : [];
  const method = `${operation.method.toUpperCase()} ${operation.path}`;
  return [
    ...commentLines(
      `${id} (${method}), written by \`npm run scaffold -- ${id}\`: its request, from ${request.from}, sent to a test server seeded with the records its path names. Red until the operation answers for real: while it is listed in server/handlers/pending.ts the server answers it from the contract (${CONTRACT_ANSWER_HEADER}). Make it tell what ${id} does.`,
      '// ',
    ),
    "import { expect, test } from 'vitest';",
    "import { CONTRACT_ANSWER_HEADER } from '../../server/http/example-answers.ts';",
    "import type { SeedFixture } from '../../server/start/seed.ts';",
    "import { useTestServer } from '../support/server.ts';",
    '',
    ...commentLines(
      `The records the request names${named.length > 0 ? ` (not ${named.join(', ')}: the seed cannot hold them; make them through the client before the request)` : ''}, and their organization's admin, who sends it.`,
      '// ',
    ),
    `const fixture: SeedFixture = ${literal(fixture)};`,
    '',
    'const ctx = useTestServer({ fixture });',
    '',
    `test('${id} answers for real', async () => {`,
    `  const { response, data, error } = await ${call};`,
    '  expect(',
    `    response.headers.get(CONTRACT_ANSWER_HEADER),`,
    `    '${id} is answered from the contract: it is pending. Write ${id} in ${domainFile}, then remove its entry from server/handlers/pending.ts',`,
    '  ).toBeNull();',
    `  expect(response.status, \`${id} answered \${response.status}: \${JSON.stringify(error ?? data)}\`).toBe(${shape.status});`,
    ...(fields.length > 0
      ? ["  // The fields of the example's answer (the values are the server's).", `  expect(Object.keys(data ?? {})).toEqual(expect.arrayContaining(${literal(fields, '  ')}));`]
      : shape.answer
        ? []
        : ['  expect(data).toBeUndefined();']),
    '});',
    '',
  ].join('\n');
}

/** The pending list with the operation added. */
function addPending(source: string, id: string, reason: string): string {
  const entry = `  ${id}: ${literal(reason)},`;
  if (/export const pendingOperations = \{\} as const/.test(source)) return source.replace('export const pendingOperations = {} as const', `export const pendingOperations = {\n${entry}\n} as const`);
  const end = source.indexOf('} as const satisfies');
  if (end < 0) throw new ScaffoldError('server/handlers/pending.ts has no `pendingOperations = { … } as const satisfies …`: add the entry by hand');
  return `${source.slice(0, end)}${entry}\n${source.slice(end)}`;
}

/** Writes the start of `operationId` into `repo`; what it wrote, by file. */
export async function scaffold(operationId: string, repo = root): Promise<Written> {
  const document = parseContractYaml(readFileSync(path.join(repo, 'generated/openapi.yaml'), 'utf8'));
  const operations = contractOperations(document);
  const operation = operations.find((candidate) => candidate.operationId === operationId);
  if (!operation) {
    const nearest = operations
      .map((candidate) => ({ id: candidate.operationId, distance: distance(operationId, candidate.operationId) }))
      .sort((a, b) => a.distance - b.distance)
      .slice(0, 3)
      .map((candidate) => candidate.id);
    throw new ScaffoldError(
      `${operationId} is not an operation of generated/openapi.yaml (did you mean ${nearest.join(', ')}?); after changing spec/, \`npm run generate\` (or a running \`npm run dev\`) brings generated/ up to date`,
    );
  }
  const shape = shapeOf(document, operation);
  const group = await groupOf(repo, operations, document, shape);
  const domainFile = `server/domain/${group.stem}.ts`;
  const testFile = `test/api/${kebab(operationId)}.test.ts`;
  if (existsSync(path.join(repo, testFile))) throw new ScaffoldError(`${testFile} exists already: move it away, or write the operation's test there by hand`);
  const read = (file: string) => readFileSync(path.join(repo, file), 'utf8');
  const written: Written = [];
  const write = (file: string, content: string, what: string) => {
    mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
    writeFileSync(path.join(repo, file), content);
    written.push([file, what]);
  };

  const domain = domainSource(shape, domainFile);
  let domainText = existsSync(path.join(repo, domainFile))
    ? read(domainFile)
    : `// ${shape.tag ?? group.stem}: ${String((document.tags as Node[] | undefined)?.find((tag) => tag.name === shape.tag)?.description ?? `the operations of ${group.stem}`)}\n`;
  if (new RegExp(`export (async )?function ${operationId}\\b|export const ${operationId}\\b`).test(domainText)) {
    throw new ScaffoldError(`${domainFile} already exports ${operationId}: rename it, or write the handler of ${operationId} by hand`);
  }
  domainText = withImport(domainText, '../auth/caller.ts', ['Caller'], true);
  domainText = withImport(domainText, '../context/context.ts', ['Scope'], true);
  domainText = withImport(domainText, '../common/contract.ts', [...new Set(domain.types)], true);
  const handler = handlerSource(shape);
  const handlerText = group.existing
    ? addHandler(read(group.file), group.file, shape, operations, `../domain/${group.stem}.ts`, handler)
    : [
        `// ${shape.tag ?? group.stem}: the handlers of its operations.`,
        `import { ${operationId} } from '../domain/${group.stem}.ts';`,
        "import type { HandlerGroup } from './types.ts';",
        '',
        `type Operations = '${operationId}';`,
        '',
        `export const ${camel(group.stem)}Handlers: HandlerGroup<Operations> = {`,
        handler,
        '};',
        '',
      ].join('\n');

  write(group.file, handlerText, group.existing ? `the handler of ${operationId}` : `a handler group of its own (${camel(group.stem)}Handlers), with the handler`);
  if (!group.existing) {
    const index = read('server/handlers/index.ts');
    const name = `${camel(group.stem)}Handlers`;
    const imported = withImport(index, `./${group.stem}.ts`, [name], false);
    const lastSpread = [...imported.matchAll(/^ {4}\.\.\.\w+Handlers,$/gm)].at(-1);
    if (!lastSpread) throw new ScaffoldError(`server/handlers/index.ts: createHandlers spreads no group: add ...${name} by hand`);
    const at = lastSpread.index + lastSpread[0].length;
    write('server/handlers/index.ts', `${imported.slice(0, at)}\n    ...${name},${imported.slice(at)}`, `${name} in the handler table`);
  }
  write(domainFile, `${domainText.replace(/\n*$/, '\n')}${domain.source}`, `${operationId}, failing "not written yet"`);
  const reason = `scaffolded: answered from the contract until ${operationId} in ${domainFile} is written`;
  write('server/handlers/pending.ts', addPending(read('server/handlers/pending.ts'), operationId, reason), `${operationId}: ${reason}`);
  write(testFile, testSource(document, shape, domainFile), `red until ${operationId} answers for real`);
  return written;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const ids = process.argv.slice(2).filter((arg) => arg !== '--');
  if (ids.length !== 1 || ids[0]!.startsWith('-')) {
    process.stderr.write('Usage: npm run scaffold -- <operationId>   (an operation of generated/openapi.yaml that has no handler yet)\n');
    process.exit(2);
  }
  const id = ids[0]!;
  try {
    const written = await scaffold(id);
    const width = Math.max(...written.map(([file]) => file.length)) + 2;
    const testFile = written.at(-1)![0];
    process.stdout.write(
      [
        `scaffold: ${id}`,
        ...written.map(([file, what]) => `  ${file.padEnd(width)}${what}`),
        `Next: write ${id} in ${written.find(([, what]) => what.includes('not written yet'))![0]}, remove its entry from server/handlers/pending.ts, and run`,
        `  npx vitest run --project sqlite ${testFile}`,
        '',
      ].join('\n'),
    );
  } catch (error) {
    if (!(error instanceof ScaffoldError)) throw error;
    process.stderr.write(`scaffold: refused: ${error.message}\n`);
    process.exit(2);
  }
}
