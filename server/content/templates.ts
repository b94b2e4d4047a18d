// Built-in templates (`getting-started`, `api-reference`, `knowledge-base`, `changelog`): each adds pages at the top
// level of the content (a slug already taken gets `-2`, `-3`…) and may use files of the content named in
// `params.contentRefs` (server/docs/behaviour-content-change-requests-comments.md, "Templates").
import { badRequest } from '../common/errors.ts';
import { newPage, slugify, unique } from './edit.ts';
import { findFile, pageBody, type RevisionContent, type StoredFile, type StoredPage } from './model.ts';

interface TemplateInput {
  /** Files of the content, by the names the template gives them. */
  refs: Record<string, StoredFile>;
  spaceTitle: string;
  now: string;
  /** Slug of the template's top-level page (made unique by the caller). */
  slug: string;
}

interface Template {
  /** The content references the template uses (all optional). */
  contentRefs: string[];
  /** Title and slug of the page it adds at the top level. */
  title: string;
  build(input: TemplateInput): { page: StoredPage; variables?: Record<string, string> };
}

/** Markdown of a file reference: an image for images, a link for anything else. */
const fileMarkdown = (file: StoredFile, label: string) =>
  file.contentType.startsWith('image/') ? `![${label}](${file.name})` : `[${label}](${file.name})`;

export const TEMPLATES: Record<string, Template> = {
  'getting-started': {
    contentRefs: ['logo'],
    title: 'Getting started',
    build: ({ refs, spaceTitle, now, slug }) => {
      const logo = refs.logo;
      const page = (title: string, markdown: string, extra: Partial<StoredPage> = {}) =>
        newPage({ title, markdown, ...extra }, now);
      return {
        variables: { product: spaceTitle },
        page: newPage(
          {
            title: 'Getting started',
            slug,
            type: 'group',
            pages: [
              page(
                'Introduction',
                `${logo ? `${fileMarkdown(logo, 'Logo')}\n\n` : ''}Welcome to {{ variables.product }}.\n\n` +
                  '## Where to go next\n\n- [Quickstart](quickstart): set it up in five minutes.\n' +
                  '- [FAQ](faq): answers to common questions.\n',
                logo?.contentType.startsWith('image/') ? { cover: { ref: { kind: 'file', file: logo.id } } } : {},
              ),
              page(
                'Quickstart',
                '## Install\n\nDescribe how to install {{ variables.product }}.\n\n' +
                  '## First steps\n\nWalk through a first task. Back to the [introduction](introduction).\n',
              ),
              page('FAQ', '## Who is this for?\n\nEveryone getting started with {{ variables.product }}.\n'),
            ],
          },
          now,
        ),
      };
    },
  },
  'api-reference': {
    contentRefs: ['spec'],
    title: 'API reference',
    build: ({ refs, now, slug }) => ({
      page: newPage(
        {
          title: 'API reference',
          slug,
          markdown:
            `${refs.spec ? `${fileMarkdown(refs.spec, 'Download the specification')}\n\n` : ''}` +
            '## Authentication\n\nSend your token in the `Authorization: Bearer <token>` header.\n\n' +
            '## Errors\n\nErrors answer `{"error": {"code", "message"}}`.\n\n' +
            `## Pagination\n\nLists return \`next.page\`; pass it as \`page\`. See the [endpoints](/${slug}/endpoints).\n`,
          pages: [newPage({ title: 'Endpoints', markdown: '## Endpoints\n\nList the operations of the API here.\n' }, now)],
        },
        now,
      ),
    }),
  },
  'knowledge-base': {
    contentRefs: ['cover'],
    title: 'Knowledge base',
    build: ({ refs, now, slug }) => ({
      page: newPage(
        {
          title: 'Knowledge base',
          slug,
          type: 'computed',
          computed: { type: 'builtin:toc', dependencies: {}, props: {} },
          ...(refs.cover ? { cover: { ref: { kind: 'file', file: refs.cover.id } } } : {}),
          pages: [
            newPage({ title: 'How-to guides', markdown: 'Step-by-step guides for common tasks.\n' }, now),
            newPage({ title: 'Troubleshooting', markdown: 'What to do when something goes wrong.\n' }, now),
          ],
        },
        now,
      ),
    }),
  },
  changelog: {
    contentRefs: [],
    title: 'Changelog',
    build: ({ now, slug }) => ({
      page: newPage({ title: 'Changelog', slug, markdown: `## ${now.slice(0, 10)}\n\nThe changelog starts.\n` }, now),
    }),
  },
};

/** The content with the template applied; a 400 naming the field for an unknown template or reference. */
export function applyTemplate(
  content: RevisionContent,
  request: { id: string; params?: { contentRefs?: Record<string, { kind: 'file'; file: string }> } },
  context: { spaceTitle: string; now: string },
): RevisionContent {
  const template = Object.hasOwn(TEMPLATES, request.id) ? TEMPLATES[request.id] : undefined;
  if (!template) throw badRequest(`id: no template "${request.id}"; templates: ${Object.keys(TEMPLATES).join(', ')}`);
  const refs: Record<string, StoredFile> = {};
  for (const [name, ref] of Object.entries(request.params?.contentRefs ?? {})) {
    if (!template.contentRefs.includes(name)) {
      throw badRequest(
        `params.contentRefs.${name}: template ${request.id} takes ${
          template.contentRefs.length > 0 ? `only ${template.contentRefs.join(', ')}` : 'no content references'
        }`,
      );
    }
    const file = findFile(content, ref.file);
    if (!file) throw badRequest(`params.contentRefs.${name}.file: no file ${ref.file} in the content`);
    refs[name] = file;
  }
  const slug = unique(slugify(template.title), new Set(content.pages.map((page) => page.slug)));
  const { page, variables } = template.build({ refs, spaceTitle: context.spaceTitle, now: context.now, slug });
  if (pageBody(page) === 'none') delete page.markdown;
  return {
    ...content,
    pages: [...content.pages, page],
    // The template's variables fill in what the content does not set yet.
    variables: { ...variables, ...content.variables },
  };
}
