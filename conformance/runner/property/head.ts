// The check `head`: HEAD (RFC 9110, section 9.3.2) wherever GET is, answered as the GET, without a body.
import type { Operation } from '../../contract/contract.ts';
import type { Answer } from '../session.ts';
import { CheckFailure, curlLine, type ExchangeRecord } from './checks.ts';
import type { GeneratedRequest } from './generate.ts';
import { pathNames } from '../ids.ts';
import type { PropertyRun } from './run.ts';
import { declaresAuth } from './shapes.ts';

/**
 * HEAD on a GET operation's plainest request, with the token, without one (when the operation declares
 * authentication) and on path parameters that name nothing: each answered as the GET sent just before it. A
 * difference is checked once more with a new pair, so that a resource changed in between (by background work) is
 * not taken for one.
 */
export async function checkHead(run: PropertyRun, operation: Operation, request: GeneratedRequest): Promise<void> {
  const { session } = run;
  const names = pathNames(operation.path);
  const variants: { what: string; path: Record<string, unknown>; auth: 'token' | 'none' }[] = [
    { what: 'with the token', path: request.path, auth: 'token' },
    ...(declaresAuth(run.contract, operation) ? [{ what: 'without a token', path: request.path, auth: 'none' as const }] : []),
    ...(names.length > 0 ? [{ what: 'on ids that name nothing', path: Object.fromEntries(names.map((name) => [name, `docs-conformance-none-${run.seed}`])), auth: 'token' as const }] : []),
  ];
  for (const variant of variants) {
    const url = session.url(operation, variant.path, request.query);
    const token = variant.auth === 'none' ? null : undefined;
    let difference: string | undefined;
    let exchange: ExchangeRecord | undefined;
    for (let attempt = 0; attempt < 2; attempt++) {
      const get = await session.raw(operation, { method: 'GET', url, token });
      const head = await session.raw(operation, { method: 'HEAD', url, token });
      exchange = {
        request: { method: 'HEAD', url, curl: curlLine('HEAD', url, undefined, variant.auth).replace('-X HEAD', '-I') },
        ...(head ? { response: { status: head.status } } : {}),
      };
      difference = !get || !head ? `no answer to the ${get ? 'HEAD' : 'GET'} (network error or timeout)` : headDifference(get, head);
      if (difference === undefined) break;
    }
    if (difference !== undefined) throw new CheckFailure('head', `${variant.what}: ${difference}`, exchange);
  }
}

/** Headers of one message, not of the resource: a HEAD may answer them otherwise than its GET. */
const PER_MESSAGE_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/**
 * How a HEAD's answer differs from its GET's, or undefined: the status, a body, the Content-Type, the Content-Length
 * when the GET sent one (a GET sent without a length, in chunks, leaves the HEAD's free), and any other header the
 * GET sent (by name: a request id differs from one answer to the next).
 */
export function headDifference(get: Pick<Answer, 'status' | 'headers'>, head: Pick<Answer, 'status' | 'headers' | 'text'>): string | undefined {
  if (head.status !== get.status) return `HEAD answered ${head.status}, GET ${get.status}`;
  if (head.text !== '') return `HEAD answered a body of ${Buffer.byteLength(head.text)} bytes`;
  const same = (name: string) => head.headers.get(name) === get.headers.get(name);
  if (!same('content-type')) return `Content-Type ${JSON.stringify(head.headers.get('content-type'))} for HEAD, ${JSON.stringify(get.headers.get('content-type'))} for GET`;
  const length = get.headers.get('content-length');
  if (length !== null && !same('content-length')) return `Content-Length ${head.headers.get('content-length') ?? 'missing'} for HEAD, ${length} for GET`;
  const missing = [...get.headers.keys()].filter((name) => !PER_MESSAGE_HEADERS.has(name) && !head.headers.has(name));
  if (missing.length > 0) return `HEAD answered without ${missing.join(', ')}, which the GET sent`;
  return undefined;
}
