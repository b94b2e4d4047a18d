// The app's `res.json`: JSON answers written by the server itself, with the very status, headers and bytes Express's
// `res.json` gives them, in one write and without copying the text, wherever those bytes cannot differ; any other
// answer goes to Express's own (server/docs/design.md, "The app's res.json").
import type { Express, Response } from 'express';
import { serialized, serializedText } from '../common/response-bodies.ts';

/** Whether the app's settings change the JSON Express makes of a body (`json spaces`, `json replacer`, `json escape`). */
const customJson = (settings: Record<string, unknown>) =>
  settings['json spaces'] !== undefined || settings['json replacer'] !== undefined || Boolean(settings['json escape']);

/** Whether Express's res.json would answer this response with exactly the headers and bytes written here. */
function plainAnswer(res: Response, settings: Record<string, unknown>): boolean {
  const headers = res.req.headers;
  return (
    typeof settings['etag fn'] !== 'function' &&
    res.statusCode !== 204 &&
    res.statusCode !== 304 &&
    !res.hasHeader('content-type') &&
    !res.hasHeader('etag') &&
    !res.hasHeader('last-modified') &&
    headers['if-none-match'] === undefined &&
    headers['if-modified-since'] === undefined
  );
}

/** Installs the server's res.json on `app` (its `response` prototype). */
export function installJsonAnswer(app: Express): void {
  const expressJson = app.response.json;
  const settings = app.settings as Record<string, unknown>;
  app.response.json = function json(this: Response, body: unknown) {
    // The JSON fitPage made is JSON.stringify's, without the app's JSON settings.
    if (customJson(settings)) return expressJson.call(this, body);
    const known = body !== null && typeof body === 'object' ? serialized.get(body) : undefined;
    if (!plainAnswer(this, settings)) {
      if (known === undefined) return expressJson.call(this, body);
      if (!this.get('Content-Type')) this.set('Content-Type', 'application/json');
      // As text: Express's res.send gives a string its charset, and a Buffer none.
      return this.send(serializedText(body as object)!);
    }
    const json = known ?? JSON.stringify(body);
    // No JSON (undefined, a function): Express sends an empty body.
    if (json === undefined) return expressJson.call(this, body);
    this.setHeader('Content-Type', 'application/json; charset=utf-8');
    this.setHeader('Content-Length', String(typeof json === 'string' ? Buffer.byteLength(json) : json.length));
    // For HEAD, node:http sends the headers alone, as Express does.
    this.end(json);
    return this;
  };
}
