// The source of an OpenAPI specification: fetching it (through the outbound rules) and parsing and validating it
// with @readme/openapi-parser, in a worker thread (see openapi-validator.worker.js). Failures are
// OpenAPISourceErrors carrying the spec's processing error code.
import { Worker } from 'node:worker_threads';
import { parse as parseYaml } from 'yaml';
import type { AppContext } from '../context/context.ts';
import { jsonShapeProblem } from '../common/json-limits.ts';
import type { Model } from '../common/contract.ts';
import { OutboundError, outboundFor } from '../net/outbound.ts';
import { MAX_STORED_JSON_DEPTH } from '../store/db.ts';
import { sha256 } from '../common/ids.ts';
import { storableText } from '../common/text.ts';

export type ProcessErrorCode = NonNullable<Model<'OpenAPISpec'>['lastProcessErrorCode']>;

export class OpenAPISourceError extends Error {
  constructor(
    readonly code: ProcessErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Largest source fetched from a URL, in bytes. */
export const MAX_SOURCE_BYTES = 4 * 1024 * 1024;

/** A processed source: its text as given, the file name and type it is served with, and the parsed document. */
export interface ParsedSpec {
  text: string;
  fileName: 'openapi.json' | 'openapi.yaml';
  contentType: 'application/json' | 'application/yaml';
  document: Record<string, unknown>;
}

/**
 * Fetches the text of a source; a timeout is FETCH_TIMEOUT, any other failure (HTTP error status too) FETCH_ERROR.
 * `signal` (the job's) stops the request, which then throws the signal's reason.
 */
export async function fetchSourceText(ctx: AppContext, url: string, signal?: AbortSignal): Promise<string> {
  let response;
  try {
    response = await outboundFor(ctx.config)(url, {
      maxBytes: MAX_SOURCE_BYTES,
      headers: { accept: 'application/yaml, application/json;q=0.9, */*;q=0.5' },
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    signal?.throwIfAborted();
    if (error instanceof OutboundError) {
      throw new OpenAPISourceError(error.failure === 'timeout' ? 'FETCH_TIMEOUT' : 'FETCH_ERROR', error.message);
    }
    throw error;
  }
  if (response.status < 200 || response.status >= 300) {
    throw new OpenAPISourceError('FETCH_ERROR', `${url} answered HTTP ${response.status}`);
  }
  return storableText(response.body.toString('utf8'));
}

/**
 * Parses JSON or YAML text and validates it as an OpenAPI 3.x (or Swagger 2.0) document. External `$ref`s (other
 * files, URLs) are not followed: they are kept as written and not checked; internal ones must resolve.
 */
export async function parseSpecText(source: string): Promise<ParsedSpec> {
  const text = source.replace(/^\uFEFF/, '');
  const json = parseJson(text);
  let document: unknown = json;
  if (document === undefined) {
    try {
      // A warning about the user's document (an unknown directive) is not the server's: not made a process warning.
      document = parseYaml(text, { logLevel: 'error' });
    } catch (error) {
      throw new OpenAPISourceError('PARSE_ERROR', `not JSON or YAML: ${(error as Error).message}`);
    }
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new OpenAPISourceError('PARSE_ERROR', 'the source is not a JSON or YAML object');
  }
  // The document is cloned to the validator thread and stored as JSON, both recursive: bound its depth first.
  const tooDeep = jsonShapeProblem(document, { maxDepth: MAX_STORED_JSON_DEPTH }, 'the document');
  if (tooDeep !== undefined) throw new OpenAPISourceError('PARSE_ERROR', tooDeep);
  const error = await validationError(text, document);
  if (error !== undefined) throw new OpenAPISourceError('PARSE_ERROR', error);
  return {
    text,
    fileName: json === undefined ? 'openapi.yaml' : 'openapi.json',
    contentType: json === undefined ? 'application/yaml' : 'application/json',
    document: document as Record<string, unknown>,
  };
}

function parseJson(text: string): unknown {
  if (!/^\s*[{[]/.test(text)) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined; // YAML flow style, or broken: the YAML parser says which
  }
}

/** Validation outcomes (an error message, or undefined when valid) of recent texts: an unchanged source costs nothing. */
const outcomes = new Map<string, string | undefined>();
const MAX_OUTCOMES = 100;

async function validationError(text: string, document: object): Promise<string | undefined> {
  const key = sha256(text);
  if (outcomes.has(key)) return outcomes.get(key);
  const error = await validator.validate(document);
  outcomes.set(key, error);
  if (outcomes.size > MAX_OUTCOMES) outcomes.delete(outcomes.keys().next().value!);
  return error;
}

/** A worker thread shared by the process, started on first use; it keeps the process alive only while it works. */
class ValidatorThread {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, { resolve(error: string | undefined): void; reject(error: Error): void }>();
  private next = 0;

  /** The validation error of a document, or undefined when it is valid; rejects when the thread dies. */
  validate(document: object): Promise<string | undefined> {
    const worker = this.start();
    const id = this.next++;
    worker.ref();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, document });
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL('./openapi-validator.worker.js', import.meta.url));
    worker.on('message', ({ id, error }: { id: number; error?: string }) => {
      this.pending.get(id)?.resolve(error);
      this.forget(id);
    });
    const lost = (reason: string) => {
      if (this.worker === worker) this.worker = undefined;
      for (const [id, { reject }] of this.pending) {
        reject(new Error(`the OpenAPI validator stopped: ${reason}`));
        this.forget(id);
      }
    };
    worker.on('error', (error) => lost(error.message));
    worker.on('exit', (code) => lost(`exit code ${code}`));
    this.worker = worker;
    return worker;
  }

  private forget(id: number): void {
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker?.unref();
  }
}

const validator = new ValidatorThread();
