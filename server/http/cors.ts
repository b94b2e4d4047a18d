// CORS, on when CORS_ORIGINS is set: what a preflight allows (the methods the contract declares on the path, HEAD
// beside GET, the request headers the contract uses) and the response headers exposed to the page are derived from the
// contract once; off, nothing is installed (server/docs/own-pages-cors-logs.md, "CORS").
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { OpenApiDocument } from './contract.ts';
import { CONTRACT_ANSWER_HEADER } from './example-answers.ts';
import { RouteIndex } from './route-index.ts';

/** Paths of this server outside the contract (docs, served contract, health): read only. */
const OWN_PATHS = new Set(['/health', '/openapi.json', '/openapi.yaml', '/docs']);

/** How long a browser may keep a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE = 600;

type Item = Record<string, { parameters?: { $ref?: string; in?: string; name?: string }[]; requestBody?: unknown; responses?: Record<string, unknown> }>;

/** What the contract lets a browser send and read. */
export function corsPolicy(contract: OpenApiDocument): { requestHeaders: string[]; exposedHeaders: string[] } {
  const components = (contract.components ?? {}) as {
    parameters?: Record<string, { in?: string; name?: string }>;
    responses?: Record<string, { headers?: Record<string, unknown> }>;
    securitySchemes?: Record<string, { type?: string; scheme?: string; in?: string; name?: string }>;
  };
  const deref = <T>(value: T & { $ref?: string }, pool: Record<string, T> | undefined): T | undefined =>
    value.$ref ? pool?.[value.$ref.split('/').pop()!] : value;

  const requestHeaders = new Set<string>();
  const exposedHeaders = new Set<string>(['x-request-id', CONTRACT_ANSWER_HEADER]);
  for (const scheme of Object.values(components.securitySchemes ?? {})) {
    if (scheme.type === 'http' || scheme.type === 'oauth2' || scheme.type === 'openIdConnect') requestHeaders.add('authorization');
    if (scheme.type === 'apiKey' && scheme.in === 'header' && scheme.name) requestHeaders.add(scheme.name.toLowerCase());
  }
  for (const item of Object.values(contract.paths) as Item[]) {
    for (const operation of Object.values(item)) {
      if (operation.requestBody) requestHeaders.add('content-type');
      for (const parameter of operation.parameters ?? []) {
        const resolved = deref(parameter, components.parameters);
        if (resolved?.in === 'header' && resolved.name) requestHeaders.add(resolved.name.toLowerCase());
      }
      for (const response of Object.values(operation.responses ?? {}) as { $ref?: string; headers?: Record<string, unknown> }[]) {
        for (const name of Object.keys(deref(response, components.responses)?.headers ?? {})) exposedHeaders.add(name.toLowerCase());
      }
    }
  }
  return { requestHeaders: [...requestHeaders].sort(), exposedHeaders: [...exposedHeaders].sort() };
}

/** The CORS middleware for `origins` (`['*']` for every origin). */
export function cors(contract: OpenApiDocument, origins: string[]): RequestHandler {
  const any = origins.includes('*');
  const allowed = new Set(origins.map((origin) => origin.toLowerCase()));
  const { requestHeaders, exposedHeaders } = corsPolicy(contract);
  const allowHeaders = requestHeaders.join(', ');
  const exposeHeaders = exposedHeaders.join(', ');
  const index = new RouteIndex(contract.paths);
  /** Allowed methods per path template, computed on first preflight. */
  const methodsOf = new Map<string, string>();

  return function corsMiddleware(req: Request, res: Response, next: NextFunction) {
    res.vary('Origin');
    const origin = req.headers.origin;
    if (!origin || !(any || allowed.has(origin.toLowerCase()))) return next();
    res.set('access-control-allow-origin', any ? '*' : origin);
    const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
    if (!preflight) {
      res.set('access-control-expose-headers', exposeHeaders);
      return next();
    }
    const path = req.path;
    let methods: string | undefined;
    if (OWN_PATHS.has(path)) methods = 'GET, HEAD';
    else {
      const match = index.find(path);
      if (match) {
        methods = methodsOf.get(match.template);
        if (!methods) {
          const declared = [...match.methods, ...(match.methods.has('GET') ? ['HEAD'] : [])];
          methodsOf.set(match.template, (methods = declared.sort().join(', ')));
        }
      }
    }
    // A path the server does not serve: answered as without CORS (404 or 405), so the browser refuses the call.
    if (!methods) return next();
    res.set({
      'access-control-allow-methods': methods,
      'access-control-allow-headers': allowHeaders,
      'access-control-max-age': String(PREFLIGHT_MAX_AGE),
    });
    res.status(204).end();
  };
}
