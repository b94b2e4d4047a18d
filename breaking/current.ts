// The document spec/ compiles to now, which every judgement of the contract judges (check:breaking, the changelog, the
// release): generated/openapi.yaml when its stamp (breaking/stamp.ts) is spec/'s as it is, otherwise spec/ compiled in
// memory as the breaking-change rule compiles it (scripts/compile-current.ts), never written. A compile the rule
// refuses still has its document, which the gate then judges; any other diagnostic means no document.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { locations, parseYaml, relative } from './files.ts';
import { isObject } from '../compare/pointer.ts';
import { currentStamp, STAMP_FILE, writtenStamp } from './stamp.ts';

export interface CurrentDocument {
  document: Record<string, unknown>;
  /** `generated/openapi.yaml`, or `spec/ compiled now`: for the report's first line. */
  label: string;
  /** The text and the file it is in, when the document is generated/openapi.yaml. */
  text?: string;
  file?: string;
  /** Why generated/openapi.yaml is not the document judged (it is stale), when it is not. */
  stale?: string;
  /** The breaking-change rule's diagnostics on the compile in memory: what `npm run generate` refuses now. */
  refused: string[];
}

/** spec/ does not compile (another diagnostic than the breaking-change rule's): there is no document to judge. */
export class NoCurrentDocument extends Error {}

/**
 * Whether generated/openapi.yaml is what spec/ compiles to now, by its stamp; a tree that cannot compile spec/ (without
 * spec/main.tsp or tspconfig.yaml, such as a copy of the gate alone) has only the file.
 */
export function isGeneratedCurrent(root: string): boolean {
  if (!existsSync(path.join(root, 'spec/main.tsp')) || !existsSync(path.join(root, 'tspconfig.yaml'))) return true;
  const written = writtenStamp(root);
  return written !== undefined && written === currentStamp(root);
}

/** Why generated/ is not current: its stamp is missing, or spec/ (or the compiler) changed since it was written. */
function staleness(root: string): string {
  const file = relative(path.join(root, STAMP_FILE), root);
  return writtenStamp(root) === undefined
    ? `${relative(locations(root).document, root)} has no stamp (${file}) saying what it was compiled from`
    : `${relative(locations(root).document, root)} is not what spec/ compiles to now (spec/ or the compiler changed since npm run generate wrote it)`;
}

/** spec/ compiled in memory, in a process of its own (the TypeSpec compiler is loaded only there). */
function compileInMemory(root: string): { document: Record<string, unknown>; refused: string[] } {
  const tsx = path.join(root, 'node_modules/.bin/tsx');
  const run = spawnSync(tsx, ['scripts/compile-current.ts'], { cwd: root, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  let result: { document?: unknown; refused?: string[]; diagnostics?: string[] } | undefined;
  try {
    result = JSON.parse(run.stdout) as typeof result;
  } catch {
    throw new NoCurrentDocument(`compiling spec/ in memory failed: ${`${run.stderr ?? ''}${run.error ?? ''}`.trim() || `exit ${run.status}`}`);
  }
  if (result!.diagnostics && result!.diagnostics.length > 0) throw new NoCurrentDocument(`spec/ does not compile:\n${result!.diagnostics.join('\n')}`);
  if (!isObject(result!.document)) throw new NoCurrentDocument('compiling spec/ in memory made no document');
  return { document: result!.document, refused: result!.refused ?? [] };
}

/** The document spec/ compiles to now (see the header); throws NoCurrentDocument when spec/ does not compile. */
export function currentDocument(root = locations().root): CurrentDocument {
  const file = locations(root).document;
  if (isGeneratedCurrent(root)) {
    if (!existsSync(file)) throw new NoCurrentDocument(`${relative(file, root)} does not exist: run npm run generate`);
    const text = readFileSync(file, 'utf8');
    const document = parseYaml(text, root);
    if (!isObject(document)) throw new NoCurrentDocument(`${relative(file, root)} is not an OpenAPI document`);
    return { document, label: relative(file, root), text, file: relative(file, root), refused: [] };
  }
  const stale = staleness(root);
  return { ...compileInMemory(root), label: 'spec/ compiled now', stale };
}

/** The line a command prints when it judged spec/ compiled in memory: what is stale, and how to make it current. */
export function staleNote(current: CurrentDocument, command: string): string | undefined {
  if (current.stale === undefined) return undefined;
  const refused = current.refused.length > 0 ? `; npm run generate refuses it now (${current.refused.length} undeclared break(s) the breaking-change rule reports)` : '; npm run generate writes it';
  return `${command}: ${current.stale}: judging spec/ compiled in memory${refused}.`;
}
