// Compact HS256 JSON Web Tokens, signed with a secret kept in the database.
import { createHmac, timingSafeEqual } from 'node:crypto';

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

export function signJwt(claims: Record<string, unknown>, secret: string): string {
  const unsigned = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode(claims)}`;
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

/** The claims of a token signed with `secret`, or undefined when the signature does not match. */
export function verifyJwt(token: string, secret: string): Record<string, unknown> | undefined {
  const [header, payload, signature] = token.split('.');
  if (!header || !payload || !signature) return undefined;
  const expected = Buffer.from(createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url'));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  return JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
}
