import { readFileSync } from 'node:fs';
import { readConfig } from '../server/config.ts';
import type { RevisionContent } from '../server/content/model.ts';
import { commitSpaceContent } from '../server/content/revisions.ts';
import { startServer } from '../server/server.ts';
const token = 't';
const running = await startServer(readConfig({ PORT: '0', DATA_DIR: ':memory:', LOG_LEVEL: 'silent', DOCS_API_TOKEN: token }));
const call = async (method: string, p: string, body?: unknown) => {
  const r = await fetch(`${running.url}${p}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const t = await r.text(); if (!r.ok) throw new Error(`${method} ${p} ${r.status} ${t}`); return t ? JSON.parse(t) : {};
};
const now = new Date().toISOString();
const docs = { api: readFileSync('/work/shared/api-document.md', 'utf8'), readme: readFileSync('README.md', 'utf8'), design: readFileSync('/work/shared/DESIGN.md', 'utf8') };
const space = await call('POST', '/v1/orgs/demo/spaces', { title: 'x' });
const pages = Object.entries(docs).map(([id, markdown]) => ({ id, title: id, slug: id, type: 'document', createdAt: now, updatedAt: now, pages: [], markdown }));
const db = running.ctx.db;
db.transaction(() => commitSpaceContent(db, space.id, [space.revision], { pages, files: [], reusableContents: [], variables: {} } as RevisionContent, now))();
const at = `/v1/spaces/${space.id}`;
for (const [id, md] of Object.entries(docs)) {
  const times: number[] = [];
  for (let i = 0; i < 6; i++) { const t0 = process.hrtime.bigint(); await call('GET', `${at}/content/page/${id}`); times.push(Number(process.hrtime.bigint() - t0) / 1e6); }
  console.log(`GET page ${id} (${md.length} chars): ${times.map((t) => t.toFixed(1)).join(' ')} ms`);
}
for (const [id] of Object.entries(docs)) {
  const t0 = process.hrtime.bigint(); await call('GET', `${at}/content/page/${id}/links`); console.log(`links ${id}: ${(Number(process.hrtime.bigint() - t0) / 1e6).toFixed(1)} ms`);
}
await running.close();
