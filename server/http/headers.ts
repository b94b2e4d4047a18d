// Header values from stored data (an integration's content security policy, addresses holding ids) are written
// through `headerValue`: Node refuses a header holding a line break, a NUL or a character beyond U+00FF (it throws,
// which would answer 500), and a line break must never reach the wire. The contract already refuses such values on
// write; this keeps a value stored before that, or by other means, from breaking the answers that send it.

const SAFE = /^[\t\x20-\x7E]*$/;

/** `value` with every character other than printable ASCII and tab percent-encoded as its UTF-8 bytes. */
export function headerValue(value: string): string {
  if (SAFE.test(value)) return value;
  return value.replace(/[^\t\x20-\x7E]+/g, (run) =>
    [...Buffer.from(run, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
}

/** Every value of `headers` made safe with `headerValue`. */
export const safeHeaders = (headers: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, headerValue(value)]));

/**
 * The headers every answer starts with, as the OWASP REST Security Cheat Sheet asks of a JSON API; a route that knows
 * better sets its own, which replace them (server/docs/security.md, "Answer headers"):
 * - `X-Content-Type-Options: nosniff`: a browser reads an answer as its Content-Type says, never as a script or page
 *   it guessed from the bytes (a stored string that looks like HTML stays JSON);
 * - `Cache-Control: no-store`: an API answer depends on the caller's token and on the data as it is now, so no cache,
 *   shared or private, keeps it (the contract and the reference page, the same for every caller, say `no-cache`;
 *   a change request's PDF and a page's file, behind an address that is itself the secret, `private, max-age=3600`);
 * - `Content-Security-Policy: frame-ancestors 'none'`: no answer is shown inside another site's frame (the reference
 *   page, the one page meant for a browser, sets a policy of its own).
 */
export const ANSWER_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
  'content-security-policy': "frame-ancestors 'none'",
});
