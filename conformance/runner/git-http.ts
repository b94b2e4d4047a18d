// Git's smart HTTP protocol (version 0/1, stateless), server side, for the runner's bare repository: an implementation
// under test clones, fetches and pushes it at `<runner>/git/repository.git` like any Git host, so its Git import and
// export are checked wherever it can reach the runner. Written on isomorphic-git's public API (refs, objects,
// packObjects, indexPack). What it speaks, and why not `git http-backend`: conformance/README.md ("Git over HTTP").
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import git from 'isomorphic-git';

const ZERO = '0'.repeat(40);
const AGENT = 'agent=docs-conformance';

/** One pkt-line: four hex digits of length (themselves included), then the data. */
const pkt = (data: string | Buffer): Buffer => {
  const body = typeof data === 'string' ? Buffer.from(data) : data;
  return Buffer.concat([Buffer.from((body.length + 4).toString(16).padStart(4, '0')), body]);
};
const FLUSH = Buffer.from('0000');

/** The pkt-lines of `data` up to its first flush, and what follows that flush (a pack, in a push). */
function readPktLines(data: Buffer): { lines: Buffer[]; rest: Buffer } {
  const lines: Buffer[] = [];
  let at = 0;
  while (at + 4 <= data.length) {
    const length = Number.parseInt(data.subarray(at, at + 4).toString('latin1'), 16);
    if (Number.isNaN(length)) throw new Error('malformed pkt-line');
    if (length === 0) return { lines, rest: data.subarray(at + 4) };
    if (length < 4 || at + length > data.length) throw new Error('malformed pkt-line');
    lines.push(data.subarray(at + 4, at + length));
    at += length;
  }
  return { lines, rest: data.subarray(at) };
}

/** Every pkt-line of `data`, flushes skipped (an upload-pack request: wants, flush, haves, `done`). */
function allPktLines(data: Buffer): string[] {
  const out: string[] = [];
  let rest = data;
  while (rest.length >= 4) {
    const read = readPktLines(rest);
    out.push(...read.lines.map((line) => line.toString('utf8').replace(/\n$/, '')));
    if (read.rest.length === rest.length) break;
    rest = read.rest;
  }
  return out;
}

/** `data` as side-band-64k packets of band 1 (at most 65 515 bytes of data each). */
function band1(data: Buffer): Buffer[] {
  const packets: Buffer[] = [];
  for (let at = 0; at < data.length; at += 65515) packets.push(pkt(Buffer.concat([Buffer.from([1]), data.subarray(at, at + 65515)])));
  return packets;
}

const readBody = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

/** The refs of the repository, HEAD's target first when it is born. */
async function advertisedRefs(gitdir: string): Promise<{ refs: [string, string][]; head?: string }> {
  const refs: [string, string][] = [];
  for (const prefix of ['refs/heads', 'refs/tags']) {
    for (const name of await git.listRefs({ fs, gitdir, filepath: prefix })) {
      const ref = `${prefix}/${name}`;
      refs.push([ref, await git.resolveRef({ fs, gitdir, ref })]);
    }
  }
  let head: string | undefined;
  try {
    head = await git.resolveRef({ fs, gitdir, ref: 'HEAD' });
  } catch {
    head = undefined;
  }
  // An unborn HEAD resolves to the name of its branch, not to an object: not advertised.
  if (head !== undefined && !/^[0-9a-f]{40}$/.test(head)) head = undefined;
  return { refs, ...(head ? { head } : {}) };
}

/**
 * Every object reachable from `oids` (commits, their trees and blobs), skipping what `stop` holds; with `depth`, the
 * commits at most that many generations from `oids` (1: the commits themselves), and in `shallow` those of them whose
 * parents are left out.
 */
async function reachable(gitdir: string, oids: string[], stop = new Set<string>(), depth = Infinity, shallow = new Set<string>()): Promise<Set<string>> {
  const found = new Set<string>();
  const generation = new Map<string, number>(oids.map((oid) => [oid, 1]));
  const stack = [...oids];
  while (stack.length > 0) {
    const oid = stack.pop()!;
    if (found.has(oid) || stop.has(oid)) continue;
    found.add(oid);
    const { type, object } = await git.readObject({ fs, gitdir, oid, format: 'parsed' });
    if (type === 'commit') {
      const commit = object as { tree: string; parent: string[] };
      stack.push(commit.tree);
      const at = generation.get(oid) ?? 1;
      if (at >= depth) {
        if (commit.parent.length > 0) shallow.add(oid);
        continue;
      }
      for (const parent of commit.parent) {
        generation.set(parent, Math.min(generation.get(parent) ?? Infinity, at + 1));
        stack.push(parent);
      }
    } else if (type === 'tree') {
      for (const entry of object as { oid: string; type: string }[]) if (entry.type !== 'commit') stack.push(entry.oid);
    } else if (type === 'tag') {
      stack.push((object as { object: string }).object);
    }
  }
  return found;
}

async function exists(gitdir: string, oid: string): Promise<boolean> {
  try {
    await git.readObject({ fs, gitdir, oid, format: 'deflated' });
    return true;
  } catch {
    return false;
  }
}

async function infoRefs(gitdir: string, service: string, res: ServerResponse): Promise<void> {
  const { refs, head } = await advertisedRefs(gitdir);
  // The branch HEAD names, born or not (clients read the default branch from it).
  const headRef = /^ref: (\S+)/.exec(fs.readFileSync(path.join(gitdir, 'HEAD'), 'utf8'))?.[1];
  const capabilities =
    service === 'git-upload-pack'
      ? ['side-band-64k', 'ofs-delta', 'shallow', AGENT, ...(headRef?.startsWith('refs/') ? [`symref=HEAD:${headRef}`] : [])]
      : ['report-status', 'delete-refs', 'side-band-64k', 'ofs-delta', 'no-thin', AGENT];
  const lines = [...(head && service === 'git-upload-pack' ? [['HEAD', head] as [string, string]] : []), ...refs];
  const out: Buffer[] = [pkt(`# service=${service}\n`), FLUSH];
  if (lines.length === 0) out.push(pkt(`${ZERO} capabilities^{}\0${capabilities.join(' ')}\n`));
  lines.forEach(([ref, oid], index) => out.push(pkt(`${oid} ${ref}${index === 0 ? `\0${capabilities.join(' ')}` : ''}\n`)));
  out.push(FLUSH);
  res.writeHead(200, { 'content-type': `application/x-${service}-advertisement`, 'cache-control': 'no-cache' }).end(Buffer.concat(out));
}

async function uploadPack(gitdir: string, body: Buffer, res: ServerResponse): Promise<void> {
  const lines = allPktLines(body);
  const wants = lines.filter((line) => line.startsWith('want ')).map((line) => line.slice(5, 45));
  const haves = lines.filter((line) => line.startsWith('have ')).map((line) => line.slice(5, 45));
  const capabilities = new Set((lines.find((line) => line.startsWith('want ')) ?? '').slice(46).split(' '));
  const done = lines.includes('done');
  const deepen = lines.find((line) => line.startsWith('deepen '));
  const depth = deepen ? Number.parseInt(deepen.slice(7), 10) : Infinity;
  const common: string[] = [];
  for (const oid of haves) if (await exists(gitdir, oid)) common.push(oid);
  const out: Buffer[] = [];
  // A shallow request is answered first with the commits whose parents the pack leaves out (then a flush).
  const shallow = new Set<string>();
  const stop = common.length > 0 ? await reachable(gitdir, common) : new Set<string>();
  const oids = Number.isFinite(depth) || done ? [...(await reachable(gitdir, wants, stop, depth, shallow))] : [];
  if (Number.isFinite(depth)) out.push(...[...shallow].map((oid) => pkt(`shallow ${oid}\n`)), FLUSH);
  // A request that ends with its wants (the first exchange of a shallow fetch) is answered with the shallow list
  // alone: a stateless client reads the answers of its rounds as one stream, and expects nothing more of this one.
  const negotiates = readPktLines(body).rest.length > 0;
  if (negotiates) out.push(pkt(common.length > 0 ? `ACK ${common[0]}\n` : 'NAK\n'));
  if (done) {
    const { packfile } = await git.packObjects({ fs, gitdir, oids });
    const pack = Buffer.from(packfile!);
    out.push(...(capabilities.has('side-band-64k') ? [...band1(pack), FLUSH] : [pack]));
  }
  res.writeHead(200, { 'content-type': 'application/x-git-upload-pack-result', 'cache-control': 'no-cache' }).end(Buffer.concat(out));
}

async function receivePack(gitdir: string, body: Buffer, res: ServerResponse): Promise<void> {
  const { lines, rest } = readPktLines(body);
  const commands = lines.map((line) => {
    const [text, caps = ''] = line.toString('utf8').replace(/\n$/, '').split('\0');
    const [old, next, ref] = text!.split(' ') as [string, string, string];
    return { old, next, ref, caps };
  });
  const capabilities = new Set(commands[0]?.caps.trim().split(' ') ?? []);
  let unpack = 'ok';
  if (rest.length > 0) {
    // The pack, indexed under objects/pack (isomorphic-git reads packed objects from there).
    const name = `pack-upload-${randomBytes(8).toString('hex')}`;
    const filepath = path.join('objects', 'pack', `${name}.pack`);
    fs.mkdirSync(path.join(gitdir, 'objects', 'pack'), { recursive: true });
    fs.writeFileSync(path.join(gitdir, filepath), rest);
    try {
      await git.indexPack({ fs, dir: gitdir, gitdir, filepath });
    } catch (error) {
      unpack = `index-pack failed: ${(error as Error).message.split('\n')[0]}`;
      fs.rmSync(path.join(gitdir, filepath), { force: true });
    }
  }
  const statuses: string[] = [];
  for (const { old, next, ref } of commands) {
    if (unpack !== 'ok') {
      statuses.push(`ng ${ref} unpacker error`);
      continue;
    }
    let current = ZERO;
    try {
      current = await git.resolveRef({ fs, gitdir, ref, depth: 1 });
    } catch {
      current = ZERO;
    }
    if (current !== old) {
      statuses.push(`ng ${ref} fetch first`);
      continue;
    }
    if (!ref.startsWith('refs/')) {
      statuses.push(`ng ${ref} funny refname`);
      continue;
    }
    if (next === ZERO) await git.deleteRef({ fs, gitdir, ref });
    else if (!(await exists(gitdir, next))) {
      statuses.push(`ng ${ref} missing necessary objects`);
      continue;
    } else await git.writeRef({ fs, gitdir, ref, value: next, force: true });
    statuses.push(`ok ${ref}`);
  }
  const report = Buffer.concat([pkt(`unpack ${unpack}\n`), ...statuses.map((status) => pkt(`${status}\n`)), FLUSH]);
  const out = capabilities.has('report-status') ? (capabilities.has('side-band-64k') ? Buffer.concat([...band1(report), FLUSH]) : report) : Buffer.alloc(0);
  res.writeHead(200, { 'content-type': 'application/x-git-receive-pack-result', 'cache-control': 'no-cache' }).end(out);
}

/**
 * A request handler serving the bare repository `gitdir` under `prefix` (`/git/repository.git`): answers true when
 * the request was for it (and has been answered), false otherwise.
 */
export function gitHttpHandler(gitdir: string, prefix: string): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  // One request at a time: a push writes refs and packs that a fetch reads.
  let queue: Promise<unknown> = Promise.resolve();
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://runner');
    if (!url.pathname.startsWith(`${prefix}/`)) return false;
    const route = url.pathname.slice(prefix.length);
    const work = async () => {
      if (req.method === 'GET' && route === '/info/refs') {
        const service = url.searchParams.get('service');
        if (service !== 'git-upload-pack' && service !== 'git-receive-pack') {
          return void res.writeHead(403, { 'content-type': 'text/plain' }).end('smart HTTP only: ?service=git-upload-pack or git-receive-pack\n');
        }
        return infoRefs(gitdir, service, res);
      }
      if (req.method === 'POST' && (route === '/git-upload-pack' || route === '/git-receive-pack')) {
        let body = await readBody(req);
        if (/gzip/i.test(String(req.headers['content-encoding'] ?? ''))) body = (await import('node:zlib')).gunzipSync(body);
        return route === '/git-upload-pack' ? uploadPack(gitdir, body, res) : receivePack(gitdir, body, res);
      }
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    };
    const run = queue.then(work, work);
    queue = run.catch(() => {});
    try {
      await run;
    } catch (error) {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end(`${(error as Error).message}\n`);
    }
    return true;
  };
}
