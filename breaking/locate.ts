// Where a finding is in the files a person edits, for CI annotations: the TypeSpec declaration it comes from when the
// revision is this repository's contract (found by reading spec/*.tsp, not by compiling), else the line of its JSON
// path in the document (lines.ts). How declarations are found, and why: breaking/README.md ("Decisions").
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Finding } from '../compare/index.ts';
import type { SourceLocation } from './lines.ts';
import { segments } from '../compare/pointer.ts';

export { documentLocator, type SourceLocation } from './lines.ts';

export type Locator = (finding: Finding) => SourceLocation | undefined;

interface Declaration {
  kind: string;
  name: string;
  file: string;
  /** 0-based line of the declaration's name. */
  line: number;
  /** Its body (between the braces) or signature, as lines, with the first line's number. */
  body: { start: number; lines: string[] };
  /** Models it takes properties from: `is X<…>`, `extends X`, `...X`. */
  sources: string[];
}

interface SpecIndex {
  declarations: Map<string, Declaration>;
  /** Operation id → the operation's declaration. */
  operations: Map<string, Declaration>;
}

const DECLARATION = /^\s*(?:(?:export|extern)\s+)?(model|enum|union|scalar|op|interface|alias)\s+([A-Za-z_]\w*)/;

/** Reads the declarations of every `.tsp` file under `specDir`. */
function indexSpec(specDir: string, root: string): SpecIndex {
  const declarations = new Map<string, Declaration>();
  const operations = new Map<string, Declaration>();
  for (const entry of readdirSync(specDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.tsp')) continue;
    const absolute = path.join(entry.parentPath, entry.name);
    const file = path.relative(root, absolute);
    const lines = readFileSync(absolute, 'utf8').split('\n');
    let operationId: string | undefined;
    lines.forEach((text, line) => {
      const id = /@operationId\("([^"]+)"\)/.exec(text);
      if (id) {
        operationId = id[1];
        return;
      }
      const declared = DECLARATION.exec(text);
      if (declared) {
        const declaration = read(lines, line, declared[1]!, declared[2]!, file);
        if (!declarations.has(declaration.name)) declarations.set(declaration.name, declaration);
      }
      if (operationId && !/^\s*(@|\/\/|\/\*|\*)/.test(text) && text.trim() !== '') {
        const name = /^\s*(?:op\s+)?([A-Za-z_]\w*)/.exec(text)?.[1] ?? operationId;
        operations.set(operationId, read(lines, line, 'op', name, file));
        operationId = undefined;
      }
    });
  }
  return { declarations, operations };
}

/** A declaration starting at `line`: its body runs to the brace, parenthesis or `;` that closes it. */
function read(lines: string[], line: number, kind: string, name: string, file: string): Declaration {
  let depth = 0;
  let end = line;
  let opened = false;
  outer: for (let index = line; index < lines.length; index += 1) {
    const text = lines[index]!.replace(/\/\/.*$/, '').replace(/"(?:[^"\\]|\\.)*"/g, '""');
    for (const character of text) {
      if (character === '{' || character === '(') {
        depth += 1;
        opened = true;
      } else if (character === '}' || character === ')') depth -= 1;
      else if (character === ';' && depth === 0) {
        end = index;
        break outer;
      }
    }
    end = index;
    // An operation runs to its `;`: its return type may start on a line after its parameters close.
    if (opened && depth <= 0 && kind !== 'op') break;
  }
  const bodyLines = lines.slice(line, end + 1);
  const header = bodyLines.join('\n');
  const sources = [
    ...[...header.matchAll(/\b(?:is|extends)\s+([A-Za-z_]\w*)/g)].map((match) => match[1]!),
    ...[...header.matchAll(/\.\.\.([A-Za-z_]\w*)/g)].map((match) => match[1]!),
  ];
  return { kind, name, file, line, body: { start: line, lines: bodyLines }, sources };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The line declaring `property` in `declaration` or in the models it takes properties from. */
function propertyLine(index: SpecIndex, declaration: Declaration, property: string, seen = new Set<string>()): { file: string; line: number } | undefined {
  if (seen.has(declaration.name)) return undefined;
  seen.add(declaration.name);
  const name = escapeRegExp(property);
  const pattern = new RegExp(`^\\s*(?:@\\w+(?:\\([^)]*\\))?\\s+)*(?:\`${name}\`|"${name}"|${name})\\??\\s*:`);
  const found = declaration.body.lines.findIndex((text, offset) => offset > 0 && pattern.test(text));
  if (found > 0) return { file: declaration.file, line: declaration.body.start + found };
  for (const source of declaration.sources) {
    const from = index.declarations.get(source);
    const line = from && propertyLine(index, from, property, seen);
    if (line) return line;
  }
  return undefined;
}

/** The line of an enum member (`git,`, `git: "git"`, `` `in-collection`, ``) or of a union variant. */
function memberLine(declaration: Declaration, value: unknown): number | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const text = escapeRegExp(String(value));
  const pattern = new RegExp(`^\\s*(?:\`${text}\`|${text}|"${text}")\\s*(?::|,|$)|:\\s*"${text}"|^\\s*${text}\\s*,?$`);
  const found = declaration.body.lines.findIndex((line, offset) => offset > 0 && pattern.test(line));
  return found > 0 ? declaration.body.start + found : undefined;
}

/** Locates findings in the TypeSpec sources under `specDir` (paths relative to `root`). */
export function specLocator(specDir: string, root: string): Locator {
  let index: SpecIndex | undefined;
  return (finding) => {
    index ??= indexSpec(specDir, root);
    const at = (declaration: Declaration, line = declaration.line) => ({ file: declaration.file, line: line + 1 });
    const parts = segments(finding.path);
    if (parts[0] === 'components' && parts[2] !== undefined) {
      const [name, member] = parts[2].split('.');
      const declaration = index.declarations.get(name!);
      if (!declaration) return undefined;
      if (member) {
        const line = propertyLine(index, declaration, member);
        return line ? { file: line.file, line: line.line + 1 } : at(declaration);
      }
      const rest = parts.slice(3);
      const property = rest[0] === 'properties' ? rest[1] : rest.indexOf('properties') >= 0 ? rest[rest.indexOf('properties') + 1] : undefined;
      if (property !== undefined) {
        const line = propertyLine(index, declaration, property);
        if (line) return { file: line.file, line: line.line + 1 };
      }
      // A new value is at its member; a removed one is gone from the sources: the enum's declaration.
      if (finding.values !== undefined && finding.rule.endsWith('-enum-value-added')) {
        const line = memberLine(declaration, finding.values[0]);
        if (line !== undefined) return at(declaration, line);
      }
      if (parts[1] === 'parameters' && (rest.length === 0 || rest[0] === 'schema')) {
        // A parameter model of one property (`SpacePath`): the property is the parameter.
        const properties = declaration.body.lines.filter((text, offset) => offset > 0 && /^\s*(?:@\w+(?:\([^)]*\))?\s+)*[`"]?[\w-]+[`"]?\??\s*:/.test(text));
        if (properties.length === 1) return at(declaration, declaration.body.start + declaration.body.lines.indexOf(properties[0]!));
      }
      return at(declaration);
    }
    const operation = finding.operation ?? finding.operations[0];
    const declaration = operation && index.operations.get(operation.operationId);
    if (!declaration) return undefined;
    const field = finding.fields[0];
    if (field && /^[\w-]+$/.test(field)) {
      const line = propertyLine(index, declaration, field);
      if (line) return { file: line.file, line: line.line + 1 };
    }
    return at(declaration);
  };
}

/** The spec folder of a repository, when it has one. */
export function specDirOf(root: string): string | undefined {
  const dir = path.join(root, 'spec');
  return existsSync(dir) ? dir : undefined;
}
