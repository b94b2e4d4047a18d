// Outbound HTTP(S) for the work the server does on a user's behalf (content import, OpenAPI sources, integration
// tunnels, Git over HTTP): every request has a timeout and a size limit, follows at most a few redirects, and is
// refused when it would connect to a loopback, private, link-local or otherwise internal address, unless
// ALLOW_PRIVATE_NETWORKS is on. Addresses are checked as the connection is made, so DNS rebinding cannot slip past.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP } from 'node:net';

export type OutboundFailure = 'timeout' | 'network' | 'blocked' | 'too-large' | 'invalid-url' | 'redirects';

export class OutboundError extends Error {
  constructor(
    readonly failure: OutboundFailure,
    message: string,
  ) {
    super(message);
  }
}

export interface OutboundOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Whole-request timeout in milliseconds, redirects included. */
  timeoutMs: number;
  /** Largest response body accepted, in bytes. */
  maxBytes: number;
  allowPrivateNetworks: boolean;
  maxRedirects?: number;
  signal?: AbortSignal;
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The address finally answered, after redirects. */
  url: string;
}

const internal = new BlockList();
for (const [address, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  internal.addSubnet(address, prefix, 'ipv4');
}
for (const [address, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  internal.addSubnet(address, prefix, 'ipv6');
}

/** Whether an IP address is loopback, private, link-local, multicast or reserved. */
export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 6 && address.toLowerCase().startsWith('::ffff:')) {
    const mapped = address.slice(7);
    if (isIP(mapped) === 4) return internal.check(mapped, 'ipv4');
  }
  return internal.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** A DNS lookup that fails for internal addresses (used as the `lookup` of every outbound connection). */
function guardedLookup(allowPrivate: boolean) {
  return (
    hostname: string,
    options: object,
    callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const list = addresses as LookupAddress[];
      const refused = !allowPrivate && list.some((entry) => isInternalAddress(entry.address));
      if (refused) {
        const blocked = Object.assign(new Error(`${hostname} resolves to an internal address`), { code: 'EBLOCKED' });
        return callback(blocked, []);
      }
      if ((options as { all?: boolean }).all) return callback(null, list);
      return callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

/** Fetches a URL under the rules above; throws OutboundError, never hangs past `timeoutMs`. */
export async function outboundFetch(target: string, options: OutboundOptions): Promise<OutboundResponse> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  const abort = () => controller.abort();
  options.signal?.addEventListener('abort', abort);
  try {
    let url = target;
    for (let hop = 0; ; hop++) {
      const response = await requestOnce(url, options, controller.signal);
      const location = response.headers.location;
      if (response.status >= 300 && response.status < 400 && location && response.status !== 304) {
        if (hop >= (options.maxRedirects ?? 5)) throw new OutboundError('redirects', `too many redirects from ${target}`);
        url = new URL(location, url).href;
        continue;
      }
      return { ...response, url };
    }
  } catch (error) {
    if (error instanceof OutboundError) throw error;
    if (controller.signal.aborted) {
      throw new OutboundError('timeout', `no complete answer from ${target} within ${options.timeoutMs} ms`);
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EBLOCKED') {
      throw new OutboundError('blocked', `${target} is refused: it is on a loopback or private network`);
    }
    throw new OutboundError('network', `${target} could not be reached: ${(error as Error).message}`);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', abort);
  }
}

function requestOnce(
  target: string,
  options: OutboundOptions,
  signal: AbortSignal,
): Promise<Omit<OutboundResponse, 'url'>> {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return Promise.reject(new OutboundError('invalid-url', `${target} is not an absolute URL`));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return Promise.reject(new OutboundError('invalid-url', `${target}: only http and https addresses are fetched`));
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && !options.allowPrivateNetworks && isInternalAddress(host)) {
    return Promise.reject(new OutboundError('blocked', `${target} is refused: it is on a loopback or private network`));
  }
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: options.method ?? 'GET',
        headers: { 'user-agent': 'docs-platform-reference-server', ...options.headers },
        lookup: guardedLookup(options.allowPrivateNetworks) as never,
        signal,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) {
            response.destroy();
            reject(new OutboundError('too-large', `the answer of ${target} is larger than ${options.maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    if (options.body !== undefined) request.write(options.body);
    request.end();
  });
}

/** outboundFetch with the server's configured timeout and private-network rule. */
export function outboundFor(config: { outboundTimeoutMs: number; allowPrivateNetworks: boolean }) {
  return (target: string, options: Partial<OutboundOptions> & { maxBytes: number }) =>
    outboundFetch(target, {
      timeoutMs: config.outboundTimeoutMs,
      allowPrivateNetworks: config.allowPrivateNetworks,
      ...options,
    });
}
