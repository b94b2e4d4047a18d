// Computed pages (type `computed`): their content is produced when the page is read (unless `computed=false`), from
// what `computed.type` names, `builtin:toc` or `builtin:openapi`; a page whose computation is unknown keeps its stored
// markdown (server/docs/behaviour-content-change-requests-comments.md, "Computed pages").
import type { Scope } from '../context/context.ts';
import { fromJson } from '../store/db.ts';
import * as openapi from '../store/openapi.ts';
import { pageBody, type RevisionContent, type StoredPage, walkPages } from './model.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

type OpenApiDocument = {
  info?: { title?: string; description?: string; version?: string };
  paths?: Record<string, Record<string, { summary?: string; description?: string; operationId?: string; tags?: string[] }>>;
  components?: { schemas?: Record<string, { description?: string; properties?: Record<string, { description?: string }> }> };
};

function tableOfContents(content: RevisionContent, page: StoredPage, path: string): string {
  const pages = page.pages.length > 0 ? walkPages(page.pages, path) : walkPages(content.pages);
  const lines: string[] = [];
  for (const entry of pages) {
    if (entry.page.id === page.id) continue;
    const depth = entry.path.split('/').length - (page.pages.length > 0 ? path.split('/').length + 1 : 1);
    lines.push(`${'  '.repeat(Math.max(depth, 0))}- [${entry.page.title}](/${entry.path})`);
  }
  return lines.length > 0 ? `${lines.join('\n')}\n` : '_No pages yet._\n';
}

async function openApiReference(ctx: Scope, organizationId: string, page: StoredPage): Promise<string> {
  const ref = (page.computed?.dependencies.spec as { ref?: { kind?: string; spec?: string } } | undefined)?.ref;
  if (ref?.kind !== 'openapi' || !ref.spec) return 'This page needs an OpenAPI specification: `dependencies.spec`.\n';
  const stored = await openapi.latestDocument(ctx.db, organizationId, ref.spec);
  if (stored === undefined) return `The OpenAPI specification \`${ref.spec}\` has no processed version yet.\n`;
  const document = fromJson<OpenApiDocument>(stored, {});
  const out: string[] = [];
  if (document.info?.description) out.push(document.info.description.trim());
  if (page.computed?.props.doc === 'models') {
    for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) {
      out.push(`## ${name}`);
      if (schema.description) out.push(schema.description.trim());
      const properties = Object.entries(schema.properties ?? {});
      if (properties.length > 0) {
        out.push(properties.map(([property, value]) => `- \`${property}\`${value.description ? `: ${value.description}` : ''}`).join('\n'));
      }
    }
  } else {
    for (const [route, item] of Object.entries(document.paths ?? {})) {
      for (const method of METHODS) {
        const operation = item[method];
        if (!operation) continue;
        out.push(`## ${method.toUpperCase()} ${route}`);
        const text = operation.summary ?? operation.description;
        if (text) out.push(text.trim());
      }
    }
  }
  return `${out.join('\n\n')}\n`;
}

/**
 * Whether what a read of `page` shows may change while its revision does not: a `builtin:openapi` page shows its
 * specification's latest processed version, which changes with the organization's specs. Every other page (stored
 * markdown, `builtin:toc`, an unknown computation) is made from its revision alone. A computation added here that
 * reads anything but the revision must be named in this function.
 */
export const readsBeyondRevision = (page: StoredPage): boolean =>
  pageBody(page) === 'computed' && page.computed?.type === 'builtin:openapi';

/**
 * The content of a computed page of the content `scope` reads (its space's organization, its revision), or undefined
 * when the page is not computed by a computation known here.
 */
export async function computePageMarkdown(
  ctx: Scope,
  scope: { space: { organizationId: string }; revision: { content: RevisionContent } },
  entry: { page: StoredPage; path: string },
): Promise<string | undefined> {
  const { page, path } = entry;
  if (pageBody(page) !== 'computed' || !page.computed) return undefined;
  if (page.computed.type === 'builtin:toc') return tableOfContents(scope.revision.content, page, path);
  if (page.computed.type === 'builtin:openapi') return openApiReference(ctx, scope.space.organizationId, page);
  return undefined;
}
