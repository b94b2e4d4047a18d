import { SqliteStore } from '../server/store/sqlite/store.ts';
import * as spaces from '../server/store/spaces.ts';
import * as members from '../server/store/members.ts';
const store = SqliteStore.open(':memory:');
const db = store.connection;
db.exec(`INSERT INTO organizations (id, title, created_at, type) VALUES ('o', 'O', 'x', 'business')`);
await store.write(async (w) => { await spaces.insert(w, { id: 's1', organization_id: 'o', parent_id: null, title: 'T', emoji: null, visibility: 'private', edit_mode: 'live', language: null, default_level: null, revision_id: 'r', share_key: 'k', git_sync: null, visitor_auth: null, position: 1, created_at: 'x', updated_at: 'x', deleted_at: null }, { searchRevisionId: null, unwrittenRevisionId: null }); });
const raw = db.prepare('select "id", "organization_id", "parent_id", "title", "emoji", "visibility", "edit_mode", "language", "default_level", "revision_id", "share_key", "git_sync", "visitor_auth", "position", "created_at", "updated_at", "deleted_at" from "spaces" where "id" = ?');
const N = 200000;
async function time(label: string, f: () => unknown) {
  for (let i = 0; i < 20000; i++) await f();
  const t = process.hrtime.bigint();
  for (let i = 0; i < N; i++) await f();
  console.log(label.padEnd(30), (Number(process.hrtime.bigint() - t) / N / 1000).toFixed(2), 'µs');
}
for (let r = 0; r < 2; r++) {
  await time('better-sqlite3 get', () => raw.get('s1'));
  await time('store spaces.get', () => spaces.get(store.reader, 's1'));
  await time('store.statement lookup', () => store.statement(raw.source));
  const { GET } = spaces as any;
}
