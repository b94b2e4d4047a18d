// The document spec/ compiles to now, compiled in memory and never written (breaking/current.ts runs this when
// generated/ is not what spec/ compiles to): the program compiled with tspconfig.yaml's options, its document made
// from it as the breaking-change rule makes it (spec-rules/rules/breaking-change.js). Prints one JSON object:
// `{ document, refused }` (the rule's diagnostics, which the gate then judges) or `{ diagnostics }` (any other).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile, type CompilerHost, formatDiagnostic, NodeHost, resolveCompilerOptions } from '@typespec/compiler';
import { SCHEMA_DIALECT } from '../breaking/dialect.js';
import { emittedDocument } from 'docs-platform-spec-rules';

const root = path.resolve(fileURLToPath(import.meta.url), '../..');
/** The rule whose diagnostics the gate judges itself: a compile it refuses still has its document. */
const BREAKING_RULE = 'docs-platform-spec-rules/breaking-change';

export interface CurrentCompilation {
  document?: Record<string, unknown>;
  /** The breaking-change rule's diagnostics, as `tsp compile` prints them. */
  refused: string[];
  /** Any other diagnostic: no document. */
  diagnostics: string[];
}

/** The compiler's host, its log (the rules' trace lines) kept quiet: the output is the JSON alone. */
const host: CompilerHost = { ...NodeHost, logSink: { log: () => undefined } };

export async function compileCurrent(at = root): Promise<CurrentCompilation> {
  const entrypoint = path.join(at, 'spec/main.tsp');
  const format = (diagnostic: Parameters<typeof formatDiagnostic>[0]) => formatDiagnostic(diagnostic, { pathRelativeTo: at });
  const [options, configDiagnostics] = await resolveCompilerOptions(host, { entrypoint, cwd: at, env: process.env });
  if (configDiagnostics.length > 0) return { refused: [], diagnostics: configDiagnostics.map(format) };
  const program = await compile(host, entrypoint, { ...options, noEmit: true });
  const refused = program.diagnostics.filter((diagnostic) => diagnostic.code === BREAKING_RULE);
  const other = program.diagnostics.filter((diagnostic) => diagnostic.code !== BREAKING_RULE);
  if (other.length > 0) return { refused: refused.map(format), diagnostics: other.map(format) };
  const document = (await emittedDocument(program)) as Record<string, unknown> | undefined;
  if (!document) return { refused: refused.map(format), diagnostics: ['the OpenAPI emitter made no document of spec/'] };
  return { document: { openapi: document.openapi, jsonSchemaDialect: SCHEMA_DIALECT, ...document }, refused: refused.map(format), diagnostics: [] };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(JSON.stringify(await compileCurrent()));
