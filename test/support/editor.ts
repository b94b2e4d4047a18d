// What a consumer's editor shows of a file, asked of each consumer TypeScript the way an editor asks it: TypeScript
// 5.4's language service (getSuggestionDiagnostics with reportsDeprecated, getQuickInfoAtPosition) and TypeScript 7's
// language server (`tsc --lsp --stdio`: pull diagnostics, hover), on a project's tsconfig.json.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type ConsumerTypeScript, typescriptRelease } from './packaging.ts';
import { repoRoot } from './repo.ts';

/** A place of the file an editor marks deprecated (struck through): its 1-based line and the text marked. */
export interface Struck {
  line: number;
  text: string;
}

/** What the editor shows: the places struck through, and the hover at each asked position. */
export interface EditorView {
  release: string;
  struck: Struck[];
  hovers: string[];
}

/** The 1-based line and the text of the range [start, end) of `text`. */
const placeOf = (text: string, start: number, end: number): Struck => ({ line: text.slice(0, start).split('\n').length, text: text.slice(start, end) });

/** TypeScript 5.4's language service on the project of `tsconfig` (its `files`), for `file`, at the offsets `at`. */
function oldestView(tsconfig: string, file: string, at: readonly number[]): EditorView {
  const ts = createRequire(import.meta.url)(path.join(repoRoot, 'node_modules/typescript-oldest')) as typeof import('typescript');
  const folder = path.dirname(tsconfig);
  const parsed = ts.getParsedCommandLineOfConfigFile(tsconfig, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (diagnostic) => { throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')); } });
  if (!parsed) throw new Error(`${tsconfig} does not parse`);
  const host: import('typescript').LanguageServiceHost = {
    getCompilationSettings: () => parsed.options,
    getScriptFileNames: () => parsed.fileNames,
    getScriptVersion: () => '1',
    getScriptSnapshot: (name) => (ts.sys.fileExists(name) ? ts.ScriptSnapshot.fromString(ts.sys.readFile(name)!) : undefined),
    getCurrentDirectory: () => folder,
    getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  };
  const service = ts.createLanguageService(host, ts.createDocumentRegistry());
  const text = readFileSync(file, 'utf8');
  const struck = service
    .getSuggestionDiagnostics(file)
    .filter((diagnostic) => diagnostic.reportsDeprecated)
    .map((diagnostic) => placeOf(text, diagnostic.start!, diagnostic.start! + diagnostic.length!));
  const hovers = at.map((offset) => {
    const info = service.getQuickInfoAtPosition(file, offset);
    const tags = (info?.tags ?? []).map((tag) => `@${tag.name} ${ts.displayPartsToString(tag.text)}`);
    return [ts.displayPartsToString(info?.displayParts), ts.displayPartsToString(info?.documentation), ...tags].join('\n');
  });
  service.dispose();
  return { release: ts.version, struck, hovers };
}

/** LSP's DiagnosticTag.Deprecated: the tag an editor strikes a range through for. */
const DEPRECATED_TAG = 2;

interface LspMessage {
  id?: number;
  method?: string;
  params?: { items?: unknown[] };
  result?: unknown;
}

/** TypeScript 7's language server, in `folder`, over stdio: requests and their answers. */
function nativeServer(folder: string) {
  const server: ChildProcess = spawn(process.execPath, [path.join(repoRoot, 'node_modules/typescript-native/bin/tsc'), '--lsp', '--stdio'], { cwd: folder, stdio: ['pipe', 'pipe', 'ignore'] });
  const pending = new Map<number, (result: unknown) => void>();
  let nextId = 1;
  const send = (message: object) => {
    const body = JSON.stringify({ jsonrpc: '2.0', ...message });
    server.stdin!.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  };
  let buffer = Buffer.alloc(0);
  server.stdout!.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (let end = buffer.indexOf('\r\n\r\n'); end >= 0; end = buffer.indexOf('\r\n\r\n')) {
      const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, end).toString())?.[1]);
      if (buffer.length < end + 4 + length) return;
      const message = JSON.parse(buffer.subarray(end + 4, end + 4 + length).toString()) as LspMessage;
      buffer = buffer.subarray(end + 4 + length);
      // A request of the server (configuration, registration, progress): answered with nothing.
      if (message.method !== undefined && message.id !== undefined) send({ id: message.id, result: message.method === 'workspace/configuration' ? (message.params?.items ?? []).map(() => null) : null });
      else if (message.id !== undefined) pending.get(message.id)?.(message.result);
    }
  });
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  const request = <T>(method: string, params: object) =>
    new Promise<T>((resolve) => {
      const id = nextId++;
      pending.set(id, resolve as (result: unknown) => void);
      send({ id, method, params });
    });
  return {
    request,
    notify: (method: string, params: object) => send({ method, params }),
    async close() {
      await request('shutdown', {});
      send({ method: 'exit' });
      await exited;
    },
  };
}

interface LspPosition {
  line: number;
  character: number;
}

/** TypeScript 7's language server on the project of `file`, for `file`, at the offsets `at`. */
async function nativeView(file: string, at: readonly number[]): Promise<EditorView> {
  const folder = path.dirname(file);
  const server = nativeServer(folder);
  const text = readFileSync(file, 'utf8');
  const uri = pathToFileURL(file).href;
  const lineStarts = [0, ...[...text.matchAll(/\n/g)].map((match) => match.index + 1)];
  const offsetOf = ({ line, character }: LspPosition) => lineStarts[line]! + character;
  const positionOf = (offset: number): LspPosition => {
    let line = 0;
    while (line + 1 < lineStarts.length && lineStarts[line + 1]! <= offset) line++;
    return { line, character: offset - lineStarts[line]! };
  };
  try {
    const capabilities = { textDocument: { diagnostic: { tagSupport: { valueSet: [1, 2] } }, hover: { contentFormat: ['plaintext'] }, publishDiagnostics: { tagSupport: { valueSet: [1, 2] } } } };
    await server.request('initialize', { processId: process.pid, rootUri: pathToFileURL(folder).href, capabilities, workspaceFolders: [{ uri: pathToFileURL(folder).href, name: 'consumer' }] });
    server.notify('initialized', {});
    server.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'typescript', version: 1, text } });
    const report = await server.request<{ items: { tags?: number[]; range: { start: LspPosition; end: LspPosition } }[] }>('textDocument/diagnostic', { textDocument: { uri } });
    const struck = report.items.filter((item) => item.tags?.includes(DEPRECATED_TAG)).map((item) => placeOf(text, offsetOf(item.range.start), offsetOf(item.range.end)));
    const hovers: string[] = [];
    for (const offset of at) {
      const hover = await server.request<{ contents: string | { value: string } | { value: string }[] } | null>('textDocument/hover', { textDocument: { uri }, position: positionOf(offset) });
      const contents = hover?.contents;
      hovers.push(typeof contents === 'string' ? contents : Array.isArray(contents) ? contents.map((part) => part.value).join('\n') : (contents?.value ?? ''));
    }
    return { release: typescriptRelease('typescript-native'), struck, hovers };
  } finally {
    await server.close();
  }
}

/**
 * What `typescript`'s editor shows of `file` in the project of the tsconfig.json beside it: the places it strikes
 * through as deprecated, and its hover at each offset of `at`.
 */
export function editorView(typescript: ConsumerTypeScript, file: string, at: readonly number[]): Promise<EditorView> {
  return typescript === 'typescript-oldest' ? Promise.resolve(oldestView(path.join(path.dirname(file), 'tsconfig.json'), file, at)) : nativeView(file, at);
}
