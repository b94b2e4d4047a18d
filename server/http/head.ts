// HEAD wherever the contract declares GET (RFC 9110, section 9.3.2), a rule of the server's HTTP layer, not of the
// contract: the validator's document gets a copy of each GET operation as HEAD, so a HEAD is checked and answered as
// its GET, and node:http sends the answer's headers without its body (server/docs/wire-behaviour.md, "HEAD").
import type { OpenApiDocument } from './contract.ts';

/**
 * `document` with a `head` operation right after each `get` (a copy of it: the validator annotates the operations
 * it is given); a path item that declares its own `head` keeps it. The document's other objects are shared.
 */
export function withHead(document: OpenApiDocument): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const [template, item] of Object.entries(document.paths)) {
    if (item.get === undefined || item.head !== undefined) {
      paths[template] = item;
      continue;
    }
    const withHeadItem: OpenApiDocument['paths'][string] = {};
    for (const [key, value] of Object.entries(item)) {
      withHeadItem[key] = value;
      if (key === 'get') withHeadItem.head = structuredClone(value);
    }
    paths[template] = withHeadItem;
  }
  return { ...document, paths };
}
