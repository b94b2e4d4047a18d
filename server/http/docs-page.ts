// GET /docs: an interactive reference of the served contract (Swagger UI, from the swagger-ui-dist package); GET /
// redirects there. Every asset comes from this server (node_modules), none from a CDN: the page works offline, and
// its Content-Security-Policy refuses anything from elsewhere. The page reads /openapi.json, whose `servers` is this
// server, so "Try it out" calls this server with the token set through "Authorize" (kept in the browser's local
// storage).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Express, Request, Response } from 'express';

/** The files of swagger-ui-dist the page uses, served under /docs/. */
const ASSETS = ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'favicon-16x16.png'];

/**
 * The folder of swagger-ui-dist, resolved from this module (its source address also in the compiled server). The
 * server package holds a copy of the assets the page uses instead of the package (scripts/build-server-package.ts).
 */
function swaggerUiFolder(): string | undefined {
  const copied = fileURLToPath(new URL('../../vendor/swagger-ui-dist', import.meta.url));
  if (existsSync(path.join(copied, ASSETS[0]!))) return copied;
  try {
    return path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  } catch {
    return undefined;
  }
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The page. `base` is the path of the server's root as clients reach it (PUBLIC_URL's path), `''` at the root. */
function page(title: string, base: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" type="image/png" href="${base}/docs/favicon-32x32.png" sizes="32x32">
<link rel="stylesheet" href="${base}/docs/swagger-ui.css">
</head>
<body>
<div id="docs"></div>
<script src="${base}/docs/swagger-ui-bundle.js"></script>
<script src="${base}/docs/init.js"></script>
</body>
</html>
`;
}

/** Starts Swagger UI on the served contract: no validator badge (it would call an outside service), no top bar. */
const initScript = (base: string) => `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(`${base}/openapi.json`)},
  dom_id: '#docs',
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
  deepLinking: true,
  displayOperationId: true,
  displayRequestDuration: true,
  filter: true,
  persistAuthorization: true,
  defaultModelsExpandDepth: -1,
  validatorUrl: null,
});
`;

export function docsRoutes(app: Express, options: { title: string; publicUrl: string }): void {
  const publicUrl = new URL(options.publicUrl);
  const base = publicUrl.pathname.replace(/\/+$/, '');
  const html = page(`${options.title}: reference`, base);
  const init = initScript(base);
  // Only this server: scripts, styles (Swagger UI sets inline styles), images (and data: icons), and the calls of
  // "Try it out", which go to PUBLIC_URL (this origin unless the server is reached through another address).
  const csp = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `connect-src 'self' ${publicUrl.origin}`,
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'self'",
  ].join('; ');
  let folder: string | undefined | null = null;

  // The server's root has no page of its own: it leads a newcomer to the reference.
  app.get('/', (_req: Request, res: Response) => {
    res.redirect(302, `${base}/docs`);
  });
  app.get('/docs', (_req: Request, res: Response) => {
    res.set({ 'content-security-policy': csp, 'cache-control': 'no-cache' }).type('html').send(html);
  });
  app.get('/docs/init.js', (_req: Request, res: Response) => {
    res.set('cache-control', 'no-cache').type('js').send(init);
  });
  app.get('/docs/:asset', (req: Request, res: Response, next) => {
    const asset = req.params.asset as string;
    if (!ASSETS.includes(asset)) return next();
    if (folder === null) folder = swaggerUiFolder();
    const file = folder && path.join(folder, asset);
    if (!file || !existsSync(file)) {
      res.status(503).type('text').send('The docs page needs the swagger-ui-dist package: run npm ci.\n');
      return;
    }
    res.sendFile(file, { maxAge: '1h' });
  });
}
