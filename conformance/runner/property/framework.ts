// The checks `framework-answers` and `method-not-allowed`: the answers the HTTP layer of an implementation gives
// before its handlers (a body parser, a router, a validator). Each operation, on path parameters that name nothing (so
// that nothing is changed, whatever the implementation does with the body), with a body it cannot take; each path,
// with the methods it does not declare.
import fc from 'fast-check';
import type { Operation } from '../../contract/contract.ts';
import type { Answer } from '../session.ts';
import { CheckFailure, curlLine, type ExchangeRecord, isEnvelope } from './checks.ts';
import { minimal, requestArbitrary } from './generate.ts';
import { pathNames } from '../ids.ts';
import { clip, type PropertyRun } from './run.ts';

/** The body sent to find a body size limit: larger than an implementation's limit usually is (the reference server: 5 MiB). */
const DEFAULT_LARGE_BODY_BYTES = 16 * 1024 * 1024;
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/** The bodies an HTTP layer answers itself, each with what it is. */
function unreadableBodies(largeBodyBytes: number): { what: string; headers: Record<string, string>; body: string | { size: number } }[] {
  return [
    { what: 'a JSON body in latin1', headers: { 'content-type': 'application/json; charset=latin1' }, body: '{}' },
    { what: 'a text/plain body', headers: { 'content-type': 'text/plain' }, body: 'plain text' },
    { what: 'malformed JSON', headers: { 'content-type': 'application/json' }, body: '{"a":' },
    { what: 'an unknown content encoding', headers: { 'content-type': 'application/json', 'content-encoding': 'docs-conformance' }, body: '{}' },
    { what: `a body of ${largeBodyBytes} bytes`, headers: { 'content-type': 'application/json' }, body: { size: largeBodyBytes } },
  ];
}

/** The exchange to print for an answer to a raw request. */
const exchangeOf = (request: ExchangeRecord['request'], answer: Answer | undefined): ExchangeRecord => ({
  request,
  ...(answer ? { response: { status: answer.status, ...(answer.text ? { body: clip(answer.text) } : {}) } } : {}),
});

/**
 * `framework-answers`: each operation of `selected`, sent each body of `unreadableBodies` on ids that name nothing,
 * answers a status it declares (not a 5xx), with the error envelope.
 */
export async function checkFrameworkAnswers(run: PropertyRun, selected: Operation[], largeBodyBytes = DEFAULT_LARGE_BODY_BYTES): Promise<void> {
  const { contract, session } = run;
  const none = `docs-conformance-none-${run.seed}`;
  const bodies = unreadableBodies(largeBodyBytes);
  for (const operation of selected) {
    // Required query parameters as the generator makes them, so that only the body is wrong.
    const nothing = Object.fromEntries(pathNames(operation.path).map((name) => [name, none]));
    const request = minimal(contract, operation, fc.sample(requestArbitrary(contract, operation, [nothing], { ids: run.ids }), { numRuns: 1, seed: run.seedFor(operation.operationId, 'framework') })[0]!);
    const url = session.url(operation, nothing, request.query);
    const method = operation.method.toUpperCase();
    await run.recorded(operation.operationId, async () => {
      for (const { what, headers, body } of bodies) {
        const answer = await session.raw(operation, { method, url, headers, body });
        const curl = `${curlLine(method, url, undefined, 'token')} -H '${Object.entries(headers).map(([name, value]) => `${name}: ${value}`).join("' -H '")}' # ${what}`;
        const exchange = exchangeOf({ method, url, curl }, answer);
        if (!answer) throw new CheckFailure('framework-answers', `${what}: no answer (network error or timeout)`, exchange);
        if (answer.status >= 500) throw new CheckFailure('framework-answers', `${what}: answered ${answer.status}`, exchange);
        const undeclared = answer.problems.find((problem) => problem.kind === 'undeclared-status');
        if (undeclared) throw new CheckFailure('framework-answers', `${what}: ${undeclared.message}`, exchange);
        if (answer.status >= 400 && !isEnvelope(answer.json)) throw new CheckFailure('framework-answers', `${what}: the ${answer.status} answer has no {error: {code, message}} envelope`, exchange);
      }
    });
    run.pass(operation.operationId, 'framework-answers');
  }
}

/**
 * `method-not-allowed`: each path of an operation of `selected`, sent each method it does not declare (HEAD is
 * declared wherever GET is), on ids that name nothing, answers 404 or 405 with the error envelope, a 405 with an
 * Allow header naming the methods the path supports. Recorded against the path's first operation.
 */
export async function checkMethodsNotAllowed(run: PropertyRun, selected: Operation[]): Promise<void> {
  const { contract, session } = run;
  const none = `docs-conformance-none-${run.seed}`;
  for (const [template, item] of Object.entries(contract.document.paths)) {
    const owner = selected.find((operation) => operation.path === template);
    if (!owner) continue;
    const declared: string[] = HTTP_METHODS.filter((method) => (item as Record<string, unknown>)[method] !== undefined);
    // HEAD is supported wherever GET is (the check `head`): elsewhere it is a method the path does not have.
    const supported = declared.includes('get') ? [...declared, 'head'] : declared;
    const url = session.url({ path: template, parameters: [] } as unknown as Operation, Object.fromEntries(pathNames(template).map((name) => [name, none])), {});
    await run.recorded(owner.operationId, async () => {
      for (const method of [...HTTP_METHODS, 'head'].filter((candidate) => !supported.includes(candidate))) {
        const bodyless = method === 'get' || method === 'head';
        const answer = await session.raw(undefined, { method: method.toUpperCase(), url, ...(bodyless ? {} : { headers: { 'content-type': 'application/json' }, body: '{}' }) });
        const exchange = exchangeOf({ method: method.toUpperCase(), url, curl: curlLine(method.toUpperCase(), url, bodyless ? undefined : {}, 'token') }, answer);
        const where = `${method.toUpperCase()} ${template} (not declared)`;
        if (!answer) throw new CheckFailure('method-not-allowed', `${where}: no answer`, exchange);
        if (answer.status !== 404 && answer.status !== 405) throw new CheckFailure('method-not-allowed', `${where}: answered ${answer.status}, expected 405 or 404`, exchange);
        // The answer to a HEAD has no body to hold the envelope.
        if (method !== 'head' && !isEnvelope(answer.json)) throw new CheckFailure('method-not-allowed', `${where}: the ${answer.status} answer has no {error: {code, message}} envelope`, exchange);
        const allow = (answer.headers.get('allow') ?? '').split(',').map((value) => value.trim().toLowerCase()).filter(Boolean);
        // RFC 9110, section 15.5.6: a 405's Allow lists the methods the resource supports; OPTIONS may be among them.
        if (answer.status === 405 && !allowsSupported(allow, supported)) {
          throw new CheckFailure('method-not-allowed', `${where}: a 405 whose Allow (${allow.join(', ') || 'none'}) is not the supported methods (${supported.join(', ')})`, exchange);
        }
      }
    });
    run.pass(owner.operationId, 'method-not-allowed');
  }
}

/** Whether a 405's Allow (lower-case methods) names every supported method and nothing else but OPTIONS. */
export function allowsSupported(allow: string[], supported: string[]): boolean {
  return allow.length > 0 && allow.every((value) => supported.includes(value) || value === 'options') && supported.every((value) => allow.includes(value));
}
