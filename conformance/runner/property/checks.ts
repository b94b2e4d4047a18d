// The checks of the property phase, each with a stable id (documented in conformance/README.md), and the
// judgement of one answer by the checks that apply to every answer.
import type { Answer } from '../session.ts';

export const CHECKS = {
  'no-5xx': 'no answer is a 5xx',
  'status-declared': 'the status is declared for the operation',
  'response-conforms': 'body, content type and headers as the contract declares them for that status',
  'error-envelope': 'a 4xx answer carries {error: {code, message}} with code equal to the status',
  'invalid-refused': 'a request breaking one rule of the contract is refused with a 4xx',
  'invalid-named': 'a request breaking one rule is a 400 whose message names the field (off by default: the reference server\'s rule)',
  'invalid-unchanged': 'a refused request changes nothing (the resource read back before and after is the same)',
  'round-trip': 'fields written come back as written, in the answer and when read back',
  'use-after-delete': 'a deleted resource answers 404 afterwards',
  'auth-required': 'no token and a wrong token answer 401',
  pagination: 'following next.page yields every item once, and count agrees',
  'response-size': 'an answer is under the size bound (--max-response-bytes)',
  'framework-answers':
    'a request the HTTP layer answers itself (a body in another charset, not JSON, malformed, over any size bound, in an unknown encoding) gets a status the operation declares, with the error envelope',
  'method-not-allowed':
    'a method a path does not declare is refused with 404 or 405 (a 405 with an Allow header naming the declared methods, HEAD beside GET), with the error envelope',
  head: 'HEAD on an operation that has GET is answered as the GET (status, Content-Type, Content-Length, every header the GET sent), without a body',
} as const;

export type CheckId = keyof typeof CHECKS;

export interface ExchangeRecord {
  request: { method: string; url: string; body?: unknown; curl: string };
  response?: { status: number; body?: string };
}

/** A failed check: thrown inside a property so that fast-check shrinks the request that made it. */
export class CheckFailure extends Error {
  constructor(
    readonly checkId: CheckId,
    message: string,
    readonly exchange?: ExchangeRecord,
  ) {
    super(`[${checkId}] ${message}`);
  }
}

const SHAPE_KINDS = new Set(['content-type', 'body-schema', 'invalid-json', 'missing-header', 'header-schema', 'unexpected-body']);

export const isEnvelope = (json: unknown): boolean => {
  const error = (json as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  return typeof error?.code === 'number' && typeof error.message === 'string';
};

/** The checks every answer must pass, in order; the first that fails is thrown. Returns the ids checked. */
export function judgeAnswer(answer: Answer, exchange: ExchangeRecord, maxResponseBytes: number): CheckId[] {
  if (answer.status >= 500) throw new CheckFailure('no-5xx', `answered ${answer.status}${excerpt(answer.text)}`, exchange);
  const undeclared = answer.problems.find((problem) => problem.kind === 'undeclared-status');
  if (undeclared) throw new CheckFailure('status-declared', undeclared.message, exchange);
  const shape = answer.problems.filter((problem) => SHAPE_KINDS.has(problem.kind));
  if (shape.length > 0) throw new CheckFailure('response-conforms', shape.map((problem) => problem.message).join('; '), exchange);
  if (answer.status >= 400) {
    const envelope = answer.problems.find((problem) => problem.kind === 'error-envelope');
    if (envelope) throw new CheckFailure('error-envelope', envelope.message, exchange);
    if (!isEnvelope(answer.json)) throw new CheckFailure('error-envelope', `the ${answer.status} answer has no {error: {code, message}} envelope`, exchange);
  }
  const bytes = Buffer.byteLength(answer.text);
  if (bytes > maxResponseBytes) throw new CheckFailure('response-size', `the answer is ${bytes} bytes, over the bound of ${maxResponseBytes}`, exchange);
  return ['no-5xx', 'status-declared', 'response-conforms', 'error-envelope', 'response-size'];
}

export function excerpt(text: string): string {
  if (!text) return '';
  const flat = text.replace(/\s+/g, ' ').trim();
  return `: ${flat.length > 200 ? `${flat.slice(0, 200)}…` : flat}`;
}

/** A `curl` line that sends the request again (the token from $DOCS_CONFORMANCE_TOKEN, or none, or the wrong one). */
export function curlLine(method: string, url: string, body: unknown, auth: 'token' | 'none' | { wrong: string }): string {
  const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
  const parts = ['curl', '-sS', '-X', method, quote(url)];
  if (auth === 'token') parts.push('-H', '"authorization: Bearer $DOCS_CONFORMANCE_TOKEN"');
  else if (auth !== 'none') parts.push('-H', quote(`authorization: Bearer ${auth.wrong}`));
  if (body !== undefined) parts.push('-H', quote('content-type: application/json'), '--data', quote(JSON.stringify(body)));
  return parts.join(' ');
}
