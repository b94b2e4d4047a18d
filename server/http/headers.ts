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
