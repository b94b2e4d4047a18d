// Path parameters and query values hold text both engines store alike (server/common/text.ts): a NUL, which a URL can only
// carry percent-encoded (`%00`: Node's parser refuses a raw one), is a 400 naming the parameter, before the validator
// or any handler sees the request. An unpaired surrogate cannot come through a URL (an escape that is not UTF-8 is
// already a 400, or U+FFFD in a query value); JSON bodies are checked by json-limits.ts.
import type { Request } from 'express';
import { badRequest } from '../common/errors.ts';
import { textProblem } from '../common/text.ts';
import type { OpenApiDocument } from './contract.ts';
import { RouteIndex } from './route-index.ts';

/** A check of a request's path parameters and query values, for the operations of `contract`. */
export function textInputCheck(contract: OpenApiDocument): (req: Request) => void {
  const index = new RouteIndex(contract.paths);
  return (req) => {
    // The common case, decided without parsing anything: no `%00` anywhere in the address.
    if (!req.url.includes('%00')) return;
    const path = req.path.length > 1 && req.path.endsWith('/') ? req.path.slice(0, -1) : req.path;
    const match = index.find(path);
    if (!match) return; // not an operation: a 404 or 405 whatever it holds
    for (const { name, raw } of match.params) {
      let value: string;
      try {
        value = decodeURIComponent(raw);
      } catch {
        continue; // an undecodable escape: the validator's 400
      }
      const problem = textProblem(value);
      if (problem !== undefined) throw badRequest(`path.${name}: ${problem}`);
    }
    const query = req.query as Record<string, unknown>;
    for (const [name, value] of Object.entries(query)) {
      const nameProblem = textProblem(name);
      if (nameProblem !== undefined) throw badRequest(`query: a parameter name ${nameProblem}`);
      for (const item of Array.isArray(value) ? value : [value]) {
        const problem = typeof item === 'string' ? textProblem(item) : undefined;
        if (problem !== undefined) throw badRequest(`query.${name}: ${problem}`);
      }
    }
  };
}
