// HEAD wherever the contract declares GET. HTTP (RFC 9110, section 9.3.2) gives HEAD the meaning of GET without the
// body, and a general-purpose server answers it wherever it answers GET: load balancers' health checks, link
// checkers, caches and `curl -I` send it. It is a rule of the server's HTTP layer, not a part of the contract (which
// declares no `head` operation: see server/docs/wire-behaviour.md): the document the validator reads gets a HEAD
// operation beside each GET, a copy of the GET's, so that a HEAD is authenticated, validated and answered (status,
// headers, and its body checked by the response validator) exactly as its GET, and a 405 names HEAD beside GET in
// its `Allow`; the app routes it to the GET's handler, and node:http sends the answer's headers without its body.
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
