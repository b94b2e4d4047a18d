// Outbound HTTP(S) for the work the server does on a user's behalf (content import, OpenAPI sources, integration
// tunnels, Git over HTTP): a timeout, a size limit, redirects followed here one hop at a time, and only global unicast
// addresses unless ALLOW_PRIVATE_NETWORKS or ALLOW_PRIVATE_ADDRESSES opens one, checked when a name is looked up and
// again on the connected socket (server/docs/security.md, "Outbound requests").
import { type LookupAddress, promises as dns } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net, { isIP } from 'node:net';
import tls from 'node:tls';

export type OutboundFailure = 'timeout' | 'network' | 'blocked' | 'too-large' | 'invalid-url' | 'redirects';

export class OutboundError extends Error {
  constructor(
    readonly failure: OutboundFailure,
    message: string,
  ) {
    super(message);
  }
}

/** Which addresses outbound requests may connect to. */
export interface AddressRule {
  /** Every address is allowed (ALLOW_PRIVATE_NETWORKS). */
  allowPrivateNetworks: boolean;
  /** Addresses or CIDR ranges allowed even though they are not global (ALLOW_PRIVATE_ADDRESSES). */
  allowedAddresses?: readonly string[];
}

export interface OutboundOptions extends AddressRule {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Whole-request timeout in milliseconds, redirects included. */
  timeoutMs: number;
  /** Largest response body accepted, in bytes. */
  maxBytes: number;
  maxRedirects?: number;
  signal?: AbortSignal;
  /** Resolves a host name to its addresses (default: the system resolver, as `dns.lookup`); tests inject one. */
  resolve?: Resolver;
}

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (hostname) => dns.lookup(hostname, { all: true });

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The address finally answered, after redirects. */
  url: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Addresses. Each is read as a 128-bit number: an IPv4 address as its IPv4-mapped IPv6 form (::ffff:a.b.c.d).
// ---------------------------------------------------------------------------------------------------------------

const MAPPED = 0xffff_0000_0000n;

/** A dotted-quad IPv4 address (four decimal numbers 0-255 without leading zeros), or undefined. */
function parseIPv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(part) || Number(part) > 255) return undefined;
    value = value * 256 + Number(part);
  }
  return value;
}

/** An IPv6 address (with `::`, and a dotted-quad tail), as a number; undefined when not one, or with a zone id. */
function parseIPv6(text: string): bigint | undefined {
  let source = text;
  if (source.includes('.')) {
    const colon = source.lastIndexOf(':');
    const v4 = parseIPv4(source.slice(colon + 1));
    if (colon < 0 || v4 === undefined) return undefined;
    source = `${source.slice(0, colon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = source.split('::');
  if (halves.length > 2) return undefined;
  const groups = halves.map((half) => (half === '' ? [] : half.split(':')));
  const count = groups.reduce((sum, list) => sum + list.length, 0);
  if (halves.length === 1 ? count !== 8 : count > 7) return undefined;
  const all = halves.length === 1 ? groups[0]! : [...groups[0]!, ...Array<string>(8 - count).fill('0'), ...groups[1]!];
  let value = 0n;
  for (const group of all) {
    if (!/^[0-9a-f]{1,4}$/i.test(group)) return undefined;
    value = (value << 16n) | BigInt(parseInt(group, 16));
  }
  return value;
}

/** An IP address as a 128-bit number (IPv4 as IPv4-mapped), or undefined when the text is not an address. */
function addressValue(text: string): bigint | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const v4 = parseIPv4(bare);
  return v4 !== undefined ? MAPPED | BigInt(v4) : parseIPv6(bare);
}

/** Whether `value` lies in `prefix`/`bits` (both 128-bit numbers). */
const within = (value: bigint, prefix: bigint, bits: number) => value >> BigInt(128 - bits) === prefix >> BigInt(128 - bits);

/**
 * IPv4 blocks that are not global unicast: the IANA special-purpose registry's blocks that are not globally
 * reachable, plus multicast and the reserved class E (with the broadcast address). Everything else in IPv4 is
 * global unicast, so this list is complete in a way a list of IPv6 "bad ranges" would not be.
 */
const IPV4_NOT_GLOBAL: [string, number][] = [
  ['0.0.0.0', 8], // "this network" (0.0.0.0 reaches the local host on Linux)
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation (TEST-NET-1)
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation (TEST-NET-2)
  ['203.0.113.0', 24], // documentation (TEST-NET-3)
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and 255.255.255.255
];
const IPV4_BLOCKS = IPV4_NOT_GLOBAL.map(([address, bits]) => [MAPPED | BigInt(parseIPv4(address)!), bits + 96] as const);

const globalIPv4 = (v4: number) => !IPV4_BLOCKS.some(([prefix, bits]) => within(MAPPED | BigInt(v4), prefix, bits));

/** The IPv4 address in the low 32 bits, or at bits 16-47 (6to4). */
const low32 = (value: bigint) => Number(value & 0xffff_ffffn);

/**
 * Whether an address is global unicast, the only kind outbound requests reach by default.
 *
 * IPv6 is decided by a positive rule: only 2000::/3 is global unicast, so everything outside it is refused without
 * being named (unspecified, loopback, IPv4-compatible ::a.b.c.d, IPv4-translated, discard, unique local fc00::/7,
 * link-local fe80::/10, site-local fec0::/10, multicast, local-use NAT64 64:ff9b:1::/48, and whatever gets assigned
 * later). Inside 2000::/3 the non-global blocks are refused too: 2001::/23 (IETF protocol assignments: Teredo,
 * whose embedded addresses are obfuscated and reached through a relay, benchmarking, ORCHID) and the documentation
 * blocks 2001:db8::/32 and 3fff::/20. Three forms carry an IPv4 address and are judged by it: IPv4-mapped
 * ::ffff:a.b.c.d, NAT64 64:ff9b::a.b.c.d (RFC 6052; DNS64 networks hand these out for every IPv4-only host) and
 * 6to4 2002:AABB:CCDD::/48. Anything that does not parse as an address is not global.
 */
export function isGlobalUnicast(address: string): boolean {
  const value = addressValue(address);
  if (value === undefined) return false;
  if (value >> 32n === 0xffffn) return globalIPv4(low32(value)); // IPv4, or IPv4-mapped IPv6
  if (value >> 32n === 0x0064_ff9b_0000_0000_0000_0000n) return globalIPv4(low32(value)); // NAT64, 64:ff9b::/96
  const top = Number(value >> 112n);
  if (top === 0x2002) return globalIPv4(low32(value >> 80n)); // 6to4: 2002:AABB:CCDD::/48
  if (top >> 13 !== 0b001) return false; // outside 2000::/3
  const second = Number((value >> 96n) & 0xffffn);
  if (top === 0x2001 && second < 0x200) return false; // 2001::/23
  if (top === 0x2001 && second === 0xdb8) return false; // 2001:db8::/32
  if (top === 0x3fff && second < 0x1000) return false; // 3fff::/20
  return true;
}

/** Whether an IP address is anything but global unicast (see isGlobalUnicast). */
export const isInternalAddress = (address: string): boolean => !isGlobalUnicast(address);

/** Reads an address or CIDR range (`10.1.2.3`, `10.0.0.0/8`, `fd00::/8`); throws on anything else. */
export function parseAddressRange(text: string): { prefix: bigint; bits: number } {
  const [address = '', bits, ...rest] = text.trim().split('/');
  const value = addressValue(address);
  const v4 = parseIPv4(address) !== undefined;
  const max = v4 ? 32 : 128;
  const length = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
  if (value === undefined || rest.length > 0 || !(length >= 0 && length <= max)) {
    throw new Error(`"${text}" is not an IP address or a CIDR range`);
  }
  return { prefix: value, bits: v4 ? length + 96 : length };
}

/** Whether outbound requests under `rule` may not connect to `address`. */
export function isRefusedAddress(address: string, rule: AddressRule): boolean {
  if (rule.allowPrivateNetworks || isGlobalUnicast(address)) return false;
  const value = addressValue(address);
  if (value === undefined) return true;
  return !(rule.allowedAddresses ?? []).some((range) => {
    const { prefix, bits } = parseAddressRange(range);
    return within(value, prefix, bits);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Connections and requests.
// ---------------------------------------------------------------------------------------------------------------

const blocked = (what: string) => Object.assign(new Error(`${what} is not a public address`), { code: 'EBLOCKED' });

/**
 * Why `target`'s host is refused, when that is known without the network: an address literal (or `localhost`) the
 * rule refuses. A host name is judged when it is resolved, at the connection. For a request that starts background
 * work, so that a refused address is a 400 when the request comes rather than a failure of the work later.
 */
export function refusedHost(target: string, rule: AddressRule): string | undefined {
  let host: string;
  try {
    host = new URL(target).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return undefined;
  }
  const literal = host.toLowerCase() === 'localhost' ? '127.0.0.1' : host;
  if (!isIP(literal) || !isRefusedAddress(literal, rule)) return undefined;
  return `${host} is not a public address; only public addresses are called`;
}

/**
 * Whether a host name is under `.invalid`, which RFC 6761 (section 6.4) reserves never to name a host, and asks
 * resolvers to answer at once, without a query, as a name that does not exist: what this server does.
 */
const isInvalidName = (hostname: string): boolean => /(^|\.)invalid\.?$/i.test(hostname);

/**
 * The `lookup` of every connection: resolves, and fails when a name resolves to any refused address; a name under
 * `.invalid` fails at once, unresolved.
 */
function guardedLookup(rule: AddressRule, resolve: Resolver) {
  return (
    hostname: string,
    options: { family?: number | string; all?: boolean },
    callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    if (isInvalidName(hostname)) {
      return callback(Object.assign(new Error(`${hostname} names no host (.invalid is reserved never to resolve, RFC 6761): not looked up`), { code: 'ENOTFOUND' }), []);
    }
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : Number(options.family ?? 0);
    resolve(hostname).then(
      (addresses) => {
        const list = addresses.filter((entry) => !family || entry.family === family);
        const refused = list.find((entry) => isRefusedAddress(entry.address, rule));
        if (refused) return callback(blocked(`${hostname} resolves to ${refused.address}, which`), []);
        if (list.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
        if (options.all) return callback(null, list);
        return callback(null, list[0]!.address, list[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };
}

/**
 * Opens a connection to the URL's host, checks the address actually connected to, then (for https) starts TLS on
 * it. Nothing is written to the socket before the check.
 */
function connect(url: URL, options: OutboundOptions, signal: AbortSignal): Promise<net.Socket> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const secure = url.protocol === 'https:';
  const port = Number(url.port) || (secure ? 443 : 80);
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error('aborted'));
    const socket = net.connect({ host, port, lookup: guardedLookup(options, options.resolve ?? systemResolver) as never });
    const abort = () => socket.destroy(new Error('aborted'));
    signal.addEventListener('abort', abort, { once: true });
    const fail = (error: Error) => {
      signal.removeEventListener('abort', abort);
      socket.destroy();
      reject(error);
    };
    socket.once('error', fail);
    socket.once('connect', () => {
      const peer = socket.remoteAddress ?? '';
      if (isRefusedAddress(peer, options)) return fail(blocked(`${host} connected to ${peer}, which`));
      if (!secure) {
        socket.off('error', fail);
        signal.removeEventListener('abort', abort);
        return resolve(socket);
      }
      const secured = tls.connect({
        socket,
        host,
        ...(isIP(host) ? {} : { servername: host }),
        ALPNProtocols: ['http/1.1'],
      });
      secured.once('error', fail);
      secured.once('secureConnect', () => {
        socket.off('error', fail);
        secured.off('error', fail);
        signal.removeEventListener('abort', abort);
        resolve(secured);
      });
    });
  });
}

/** Fetches a URL under the rules above; throws OutboundError, never hangs past `timeoutMs`. */
export async function outboundFetch(target: string, options: OutboundOptions): Promise<OutboundResponse> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  const abort = () => controller.abort();
  options.signal?.addEventListener('abort', abort);
  let url = target;
  try {
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
      const via = url === target ? '' : ` (redirected to ${url})`;
      throw new OutboundError('blocked', `${target}${via} is refused: ${(error as Error).message}; only public addresses are called`);
    }
    throw new OutboundError('network', `${target} could not be reached: ${(error as Error).message}`);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', abort);
  }
}

async function requestOnce(target: string, options: OutboundOptions, signal: AbortSignal): Promise<Omit<OutboundResponse, 'url'>> {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new OutboundError('invalid-url', `${target} is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundError('invalid-url', `${target}: only http and https addresses are fetched`);
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // An address literal is refused before any connection is attempted (the connect check would refuse it too).
  if (isIP(host) && isRefusedAddress(host, options)) throw blocked(host);
  const socket = await connect(url, options, signal);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: options.method ?? 'GET',
        headers: { 'user-agent': 'docs-platform-reference-server', ...options.headers },
        createConnection: () => socket,
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
    request.on('error', (error) => {
      socket.destroy();
      reject(error);
    });
    if (options.body !== undefined) request.write(options.body);
    request.end();
  });
}

/** outboundFetch with the server's configured timeout and address rule. */
export function outboundFor(config: { outboundTimeoutMs: number } & AddressRule) {
  return (target: string, options: Partial<OutboundOptions> & { maxBytes: number }) =>
    outboundFetch(target, {
      timeoutMs: config.outboundTimeoutMs,
      allowPrivateNetworks: config.allowPrivateNetworks,
      ...(config.allowedAddresses ? { allowedAddresses: config.allowedAddresses } : {}),
      ...options,
    });
}
