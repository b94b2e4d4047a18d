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
const text = 'Some documentation, in a sentence of words. '.repeat(46);
const now = new Date().toISOString();
const size = Number(process.env.SIZE ?? 4900);
const space = await call('POST', '/v1/orgs/demo/spaces', { title: 'x' });
const groups = Math.max(1, Math.round(size / 50)); const perGroup = Math.max(1, Math.floor(size / groups) - 1);
const pages = Array.from({ length: groups }, (_, g) => ({ id: `g${g}`, title: `Group ${g}`, slug: `group-${g}`, type: 'group', createdAt: now, updatedAt: now,
  pages: Array.from({ length: perGroup }, (_, i) => ({ id: `p${g}-${i}`, title: `Page ${g}-${i}`, slug: `page-${i}`, type: 'document', createdAt: now, updatedAt: now, pages: [],
    markdown: `# Page ${g}-${i}\n\nGo on to [the next page](page-${i + 1}).\n\n![A figure](f${g * perGroup + i}.png)\n\n${text}` })) }));
const files = Array.from({ length: groups * perGroup }, (_, i) => ({ id: `f${i}`, name: `f${i}.png`, contentType: 'image/png', size: 100 }));
const db = running.ctx.db;
db.transaction(() => commitSpaceContent(db, space.id, [space.revision], { pages, files, reusableContents: [], variables: {} } as RevisionContent, now))();
const at = `/v1/spaces/${space.id}`;
await call('GET', `${at}/links?limit=50`);
const timeIt = async (label: string, work: () => Promise<unknown>, n = 10) => { await work(); const t0 = process.hrtime.bigint(); for (let i = 0; i < n; i++) await work(); console.log(`${label}: ${(Number(process.hrtime.bigint() - t0) / 1e6 / n).toFixed(1)} ms`); };
for (const crs of [0, 1, 10, 50]) {
  const have = (await call('GET', `${at}/change-requests?limit=1`)).count;
  for (let i = have; i < crs; i++) {
    const cr = await call('POST', `${at}/change-requests`, { subject: `CR ${i}` });
    if (process.env.EDIT) await call('POST', `${at}/change-requests/${cr.id}/content/import`, { source: { markdown: '# x' } }).catch((e) => { if (i === 0) console.log(String(e).slice(0, 300)); });
  }
  await timeIt(`${crs} open CRs: space links first page`, () => call('GET', `${at}/links?limit=50`));
  await timeIt(`${crs} open CRs: a page's links`, () => call('GET', `${at}/content/page/p3-7/links`));
}
await running.close();
