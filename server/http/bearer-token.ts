// The caller's token as a request carries it: the one place that reads the Authorization header (the app's token
// check, the harness's faults and the routes outside the contract that serve private documents).
import type { Request } from 'express';

/** The token of an `Authorization: Bearer <token>` header. */
export function bearerToken(req: Request): string | undefined {
  const match = req.headers.authorization?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1];
}
