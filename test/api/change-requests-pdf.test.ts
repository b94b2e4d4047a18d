// A change request printed as a PDF (.../pdf): its own content, whole or one page (with or without the pages under
// it), served at an address that stops answering after an hour; bad parameters and access.
import { describe, expect, test } from 'vitest';
import { expectError, ok } from '../support/expect.ts';
import { MINUTE, pageIn, useChangeRequestServer } from '../support/change-requests.ts';

const { ctx, editChangeRequest, newPage, newSpace, createChangeRequest } = useChangeRequestServer();

/** Number of pages of a PDF (its page objects are not compressed). */
const pdfPageCount = (pdf: Buffer) => pdf.toString('latin1').match(/\/Type \/Page\b(?!s)/g)?.length ?? 0;

describe('GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/pdf', () => {
  const pdf = (
    as: Parameters<typeof ctx.server.as>[0],
    spaceId: string,
    id: string | number,
    query: Record<string, unknown> = {},
  ) =>
    ctx.server.as(as).GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/pdf', {
      params: { path: { spaceId, changeRequestId: String(id) }, query },
    });
  const download = async (url: string) => {
    const response = await fetch(url);
    return { response, bytes: Buffer.from(await response.arrayBuffer()) };
  };

  test('generates a PDF of the change request content, served at the returned address', async () => {
    const created = await createChangeRequest('handbook', 'Print me');
    await editChangeRequest('handbook', created.id, (content) =>
      pageIn(content, 'intro').pages.push(
        newPage('extra', 'Extra', '## Héllo wörld 你好\n\n1. first\n2. second\n\n---\n\n[link](https://example.com)'),
      ),
    );
    const { url } = ok(await pdf('reader', 'handbook', created.number));
    expect(url.startsWith(`${ctx.server.url}/`)).toBe(true);
    expect(new URL(url).pathname.startsWith('/v1/')).toBe(false);
    const { response, bytes } = await download(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(bytes.subarray(-6).toString('latin1')).toContain('%%EOF');
    expect(pdfPageCount(bytes)).toBe(5); // one PDF page per content page
  });

  test('holds one page and the pages under it, or with only=true that page alone', async () => {
    const created = await createChangeRequest('handbook', 'Partial');
    const count = async (query: Record<string, unknown>) =>
      pdfPageCount((await download(ok(await pdf('admin', 'handbook', created.id, query)).url)).bytes);
    expect(await count({ page: 'setup' })).toBe(2);
    expect(await count({ page: 'setup', only: true })).toBe(1);
    expect(await count({ page: 'laptop' })).toBe(1);
  });

  test('prints the change request content, not the main content', async () => {
    const spaceId = await newSpace();
    const created = await createChangeRequest(spaceId);
    await editChangeRequest(
      spaceId,
      created.id,
      (content) => (content.pages = [newPage('only', 'Only page', 'Alone.')]),
    );
    const { bytes } = await download(ok(await pdf('admin', spaceId, created.id)).url);
    expect(pdfPageCount(bytes)).toBe(1);
  });

  test('the address stops answering after one hour', async () => {
    const created = await createChangeRequest('handbook', 'Expiring');
    const { url } = ok(await pdf('admin', 'handbook', created.id));
    ctx.server.clock.advance(59 * MINUTE);
    expect((await download(url)).response.status).toBe(200);
    ctx.server.clock.advance(2 * MINUTE);
    const expired = await download(url);
    expect(expired.response.status).toBe(404);
    expect((await download(`${ctx.server.url}/pdf/change-requests/not-a-pdf.pdf`)).response.status).toBe(404);
  });

  test('rejects an unknown page, and only without a page, with 400 naming the parameter', async () => {
    const created = await createChangeRequest('handbook', 'Bad page');
    expectError(await pdf('admin', 'handbook', created.id, { page: 'nope' }), 400, 'page');
    expectError(await pdf('admin', 'handbook', created.id, { only: true }), 400, 'only');
    expectError(await pdf('admin', 'handbook', created.id, { only: 'maybe' }), 400, 'only');
    expectError(await pdf('admin', 'handbook', created.id, { format: 'a4' }), 400, 'format');
  });

  test('answers 404 for an unknown change request, to a guest and to another organization; 401 without a token', async () => {
    const created = await createChangeRequest('handbook', 'Private print');
    expectError(await pdf('admin', 'handbook', 'nope'), 404);
    expectError(await pdf('guest', 'handbook', created.id), 404);
    expectError(await pdf('outsider', 'handbook', created.id), 404);
    expectError(await pdf('anonymous', 'handbook', created.id), 401);
  });
});
