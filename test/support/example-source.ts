// The examples of spec/ as TypeSpec source: where each `@opExample` is, and how its answer (`returnType`) is written.
// Used by test/api/examples.test.ts when EXAMPLES_UPDATE=1: the answer of each example the server answers otherwise
// is written into spec/ as the server's (a new field of a model, a changed default, …), the way `vitest -u` writes
// snapshots. An example's request (its parameters and body) is never written: it is the author's.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  compile,
  type DecoratorApplication,
  type Enum,
  formatTypeSpec,
  getSourceLocation,
  isArrayModelType,
  isNullType,
  isRecordModelType,
  type Model,
  type ModelProperty,
  navigateProgram,
  NodeHost,
  type Operation,
  type Program,
  type Scalar,
  type Type,
} from '@typespec/compiler';
import { type ObjectLiteralNode, SyntaxKind } from '@typespec/compiler/ast';
import { getHttpOperation } from '@typespec/http';

/** An example's place in the source: its operation, its name as the emitted document gives it, its argument. */
interface ExampleSite {
  operation: Operation;
  operationId: string;
  name: string;
  argument: ObjectLiteralNode;
  file: string;
}

/** The spec compiled, without emitting: the program the examples are read from. */
export async function compileSpec(repo: string): Promise<Program> {
  const program = await compile(NodeHost, path.join(repo, 'spec/main.tsp'), { noEmit: true });
  if (program.hasError()) throw new Error('spec/ does not compile: run `npm run generate` to see why');
  return program;
}

const operationIdOf = (operation: Operation): string | undefined => {
  const applied = operation.decorators.find((decorator) => decorator.decorator.name === '$operationId');
  const value = applied?.args[0]?.jsValue;
  return typeof value === 'string' ? value : undefined;
};

/** Every `@opExample` of the program, with the name the emitted document gives it. */
function exampleSites(program: Program): ExampleSite[] {
  const sites: ExampleSite[] = [];
  navigateProgram(program, {
    operation(operation) {
      const operationId = operationIdOf(operation);
      if (operationId === undefined) return;
      const applied = operation.decorators.filter((decorator: DecoratorApplication) => decorator.decorator.name === '$opExample');
      // Decorators are listed innermost first; the emitted document lists the examples in source order.
      const ordered = [...applied].reverse();
      ordered.forEach((decorator, index) => {
        const node = decorator.node;
        if (!node || node.kind !== SyntaxKind.DecoratorExpression) return;
        const argument = node.arguments[0];
        if (!argument || argument.kind !== SyntaxKind.ObjectLiteral) return;
        const title = decorator.args[1]?.jsValue as { title?: string } | undefined;
        const name = title?.title ?? (ordered.length === 1 ? 'default' : `example${index}`);
        sites.push({ operation, operationId, name, argument, file: getSourceLocation(argument).file.path });
      });
    },
  });
  return sites;
}

/**
 * The type of the success answer's body, whether the example's answer names its status (`#{ statusCode, body }`), and
 * the headers it declares (by property name: the header's name and type).
 */
function successShape(
  program: Program,
  operation: Operation,
): { status: number; body?: Type; bodyName?: string; withStatus: boolean; headers: { property: string; header: string; type: Type }[] } {
  const [http] = getHttpOperation(program, operation);
  for (const response of http.responses) {
    const status = typeof response.statusCodes === 'number' ? response.statusCodes : undefined;
    if (status === undefined || status < 200 || status > 299) continue;
    const content = response.responses[0];
    const withStatus = content?.properties.some((property) => property.kind === 'statusCode') ?? false;
    const bodyProperty = content?.properties.find((property) => property.kind === 'body' || property.kind === 'bodyRoot');
    const headers = (content?.properties ?? []).flatMap((property) =>
      property.kind === 'header' ? [{ property: property.property.name, header: property.options.name.toLowerCase(), type: property.property.type }] : [],
    );
    return { status, body: content?.body?.type, bodyName: bodyProperty?.property.name, withStatus, headers };
  }
  throw new Error(`${operationIdOf(operation)} declares no success status`);
}

/**
 * The server's answer to an example: its body (none for an answer without one), its headers (by lower-case name: an
 * example names those its response declares), and whether the example differs.
 */
export interface ExampleAnswer {
  body: unknown;
  headers: Record<string, string>;
  differs: boolean;
}

/**
 * Writes the answers into the examples of spec/ (`answers` by operation id and example name): those that differ, and
 * those the example does not write (a 204's). Returns how many it wrote and the files it changed.
 */
export async function writeExampleAnswers(repo: string, answers: Map<string, Map<string, ExampleAnswer>>): Promise<{ answers: number; files: string[] }> {
  const program = await compileSpec(repo);
  const edits = new Map<string, { pos: number; end: number; text: string }[]>();
  let written = 0;
  for (const site of exampleSites(program)) {
    const answer = answers.get(site.operationId)?.get(site.name);
    if (!answer) continue;
    const existing = site.argument.properties.find((property) => property.kind === SyntaxKind.ObjectLiteralProperty && property.id.sv === 'returnType');
    if (existing && !answer.differs) continue;
    written++;
    const shape = successShape(program, site.operation);
    const body = answer.body;
    const rendered = body === undefined || shape.body === undefined ? undefined : valueText(program, body, shape.body);
    const headers = shape.headers.flatMap(({ property, header, type }) =>
      answer.headers[header] === undefined ? [] : [`${name(property)}: ${valueText(program, answer.headers[header], type)}`],
    );
    const text = shape.withStatus
      ? `#{ ${[`statusCode: ${shape.status}`, ...headers, ...(rendered === undefined ? [] : [`${shape.bodyName ?? 'body'}: ${rendered}`])].join(', ')} }`
      : (rendered ?? `#{}`);
    const edit =
      existing && existing.kind === SyntaxKind.ObjectLiteralProperty
        ? { pos: existing.value.pos, end: existing.value.end, text }
        : { pos: site.argument.properties.at(-1)?.end ?? site.argument.end - 1, end: site.argument.properties.at(-1)?.end ?? site.argument.end - 1, text: `${site.argument.properties.length > 0 ? ', ' : ''}returnType: ${text}` };
    edits.set(site.file, [...(edits.get(site.file) ?? []), edit]);
  }
  for (const [file, changes] of edits) {
    let source = readFileSync(file, 'utf8');
    for (const change of changes.sort((a, b) => b.pos - a.pos)) source = source.slice(0, change.pos) + change.text + source.slice(change.end);
    let formatted: string;
    try {
      formatted = await formatTypeSpec(source);
    } catch (error) {
      writeFileSync(file, source);
      throw new Error(`${path.relative(repo, file)}: the answers written do not parse (${(error as Error).message}); the file is left unformatted to see why`);
    }
    writeFileSync(file, formatted);
  }
  return { answers: written, files: [...edits.keys()].map((file) => path.relative(repo, file)) };
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const RESERVED = new Set(['model', 'op', 'enum', 'union', 'scalar', 'interface', 'namespace', 'import', 'using', 'alias', 'is', 'extends', 'true', 'false', 'null', 'void', 'never', 'unknown', 'valueof', 'typeof', 'const', 'fn', 'dec', 'if', 'else', 'return', 'projection', 'extern', 'init', 'this']);
const name = (text: string) => (IDENTIFIER.test(text) && !RESERVED.has(text) ? text : `\`${text.replaceAll('`', '\\`')}\``);

/** The root scalar of a scalar (`utcDateTime`, `string`, `int32`…). */
function rootScalar(scalar: Scalar): string {
  let current = scalar;
  while (current.baseScalar) current = current.baseScalar;
  return current.name;
}

/** All the properties of a model, its bases' included. */
function properties(model: Model): Map<string, ModelProperty> {
  const all = new Map<string, ModelProperty>();
  for (let current: Model | undefined = model; current; current = current.baseModel) {
    for (const [key, property] of current.properties) if (!all.has(key)) all.set(key, property);
  }
  return all;
}

/** Whether `value` can be a value of `type` (enough to choose among a union's variants). */
function fits(value: unknown, type: Type): boolean {
  switch (type.kind) {
    case 'String':
    case 'Number':
    case 'Boolean':
      return value === type.value;
    case 'Intrinsic':
      return isNullType(type) ? value === null : type.name === 'unknown';
    case 'Enum':
      return [...type.members.values()].some((member) => (member.value ?? member.name) === value);
    case 'Scalar': {
      const root = rootScalar(type);
      if (root === 'boolean') return typeof value === 'boolean';
      if (['string', 'utcDateTime', 'offsetDateTime', 'plainDate', 'plainTime', 'url', 'bytes', 'duration'].includes(root)) return typeof value === 'string';
      return typeof value === 'number';
    }
    case 'Union':
      return [...type.variants.values()].some((variant) => fits(value, variant.type));
    case 'Model': {
      if (isArrayModelType(type)) return Array.isArray(value);
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
      if (isRecordModelType(type) && type.properties.size === 0) return true;
      const known = properties(type);
      const record = value as Record<string, unknown>;
      if (!Object.keys(record).every((key) => known.has(key))) return false;
      return [...known].every(([key, property]) => (key in record ? fits(record[key], property.type) : property.optional));
    }
    default:
      return true;
  }
}

/** `value` written as a TypeSpec value of `type` (enumerations by member, times with `fromISO`). */
export function valueText(program: Program, value: unknown, type: Type): string {
  if (value === null) return 'null';
  switch (type.kind) {
    case 'Enum': {
      const member = [...(type as Enum).members.values()].find((entry) => (entry.value ?? entry.name) === value);
      return member ? `${type.name}.${name(member.name)}` : JSON.stringify(value);
    }
    case 'Scalar': {
      const root = rootScalar(type);
      if (root === 'utcDateTime' || root === 'offsetDateTime') return `${type.name}.fromISO(${JSON.stringify(value)})`;
      return JSON.stringify(value);
    }
    case 'Union': {
      const variant = [...type.variants.values()].find((entry) => !isNullType(entry.type) && fits(value, entry.type));
      return variant ? valueText(program, value, variant.type) : untyped(value);
    }
    case 'Model': {
      if (isArrayModelType(type) && Array.isArray(value)) return `#[${value.map((item) => valueText(program, item, type.indexer!.value)).join(', ')}]`;
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return untyped(value);
      const known = properties(type);
      const entries = Object.entries(value as Record<string, unknown>).map(([key, item]) => {
        const propertyType = known.get(key)?.type ?? type.indexer?.value;
        return `${name(key)}: ${propertyType ? valueText(program, item, propertyType) : untyped(item)}`;
      });
      return `#{${entries.join(', ')}}`;
    }
    default:
      return untyped(value);
  }
}

/** A value written without a type to follow (`unknown`). */
function untyped(value: unknown): string {
  if (Array.isArray(value)) return `#[${value.map(untyped).join(', ')}]`;
  if (value !== null && typeof value === 'object') return `#{${Object.entries(value).map(([key, item]) => `${name(key)}: ${untyped(item)}`).join(', ')}}`;
  return JSON.stringify(value);
}
