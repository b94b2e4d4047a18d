// The rendering of an integration's blocks: a block's element tree for a render request, its markdown with the
// request's props substituted.
import LZString from 'lz-string';
import { badRequest } from '../common/errors.ts';
import { jsonShapeProblem, MAX_JSON_DEPTH, MAX_JSON_KEY_LENGTH } from '../common/json-limits.ts';
import type { Model } from '../common/contract.ts';
import { fromJson } from '../store/db.ts';
import type { IntegrationRow } from './integrations.ts';

/** Longest JSON a render request decompresses to (the request itself is at most 8192 characters). */
const MAX_RENDER_REQUEST_LENGTH = 256 * 1024;

/**
 * The element tree of a block for `request`, the URI-safe LZ-string encoding of `{"blockId": string, "props"?:
 * object}`: `{type: 'block', blockId, props, children: [{type: 'card', title, hint?, icon?, children:
 * [{type: 'markdown', content}]?}]}`, where `content` is the block's markdown body with `{{props.<path>}}` replaced.
 */
export function renderBlock(integration: IntegrationRow, request: string): Record<string, unknown> {
  const invalid = (why: string) => badRequest(`request: ${why}`);
  let text = '';
  let decoded: unknown;
  try {
    text = LZString.decompressFromEncodedURIComponent(request) ?? '';
    if (!text) throw new Error('empty');
    if (text.length <= MAX_RENDER_REQUEST_LENGTH) decoded = JSON.parse(text);
  } catch {
    throw invalid('not JSON compressed with lz-string (compressToEncodedURIComponent)');
  }
  if (text.length > MAX_RENDER_REQUEST_LENGTH) throw invalid(`decompresses to more than ${MAX_RENDER_REQUEST_LENGTH} characters`);
  // The props are echoed in the answer and substituted as JSON: the same bounds as a request body.
  const shape = jsonShapeProblem(decoded, { maxDepth: MAX_JSON_DEPTH, maxKeyLength: MAX_JSON_KEY_LENGTH }, 'request');
  if (shape !== undefined) throw badRequest(shape);
  if (typeof decoded !== 'object' || decoded === null || Array.isArray(decoded)) {
    throw invalid('expected {"blockId": string, "props"?: object}');
  }
  const { blockId, props = {} } = decoded as { blockId?: unknown; props?: unknown };
  if (typeof blockId !== 'string') throw invalid('blockId: expected a string');
  if (typeof props !== 'object' || props === null || Array.isArray(props)) throw invalid('props: expected an object');
  const blocks = fromJson<Model<'IntegrationBlock'>[]>(integration.blocks, []);
  const block = blocks.find((candidate) => candidate.id === blockId);
  if (!block) throw invalid(`the integration ${integration.name} has no block "${blockId}"`);

  const content = block.markdown ? substituteProps(block.markdown.body, props as Record<string, unknown>) : undefined;
  return {
    type: 'block',
    blockId,
    props,
    children: [
      {
        type: 'card',
        title: block.title,
        ...(block.description !== undefined ? { hint: block.description } : {}),
        ...(block.icon !== undefined ? { icon: block.icon } : {}),
        children: content !== undefined ? [{ type: 'markdown', content }] : [],
      },
    ],
  };
}

/** The Content-Security-Policy the integration's rendered blocks are served with (`renderBlock`); null when it sets none. */
export const blockContentSecurityPolicy = (integration: IntegrationRow): string | null => integration.contentSecurityPolicy;

/** Replaces `{{props.a.b}}` with the prop's value: strings as they are, other values as JSON, missing ones by nothing. */
export function substituteProps(template: string, props: Record<string, unknown>): string {
  return template.replace(/\{\{\s*props\.([\w$-]+(?:\.[\w$-]+)*)\s*\}\}/g, (_match, path: string) => {
    let value: unknown = props;
    for (const key of path.split('.')) {
      value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
    }
    if (value === undefined || value === null) return '';
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

