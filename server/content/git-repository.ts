// Reading and writing Git repositories with isomorphic-git: a local repository (bare or not) is used in place; an
// HTTP(S) remote is fetched (the branch's last commit only) into a temporary bare repository, or into a kept one
// when the request names a cache, then pushed to. Remote requests go through net/outbound.ts (timeouts, size
// limits, the private-network rule); credentials are given to isomorphic-git through onAuth only, so that no URL it
// handles, stores or reports carries them.
import fs from 'node:fs';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { STATUS_CODES } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { CommitObject, HttpClient, TreeEntry } from 'isomorphic-git';
import { OutboundError, type OutboundOptions, type OutboundResponse } from '../net/outbound.ts';
import { SUMMARY_FILE } from './git-layout.ts';

export interface GitCredentials {
  username: string;
  password: string;
}

/** Where a repository is: a folder of this machine, or an HTTP(S) remote addressed without credentials. */
export type GitLocation = { kind: 'local'; path: string } | { kind: 'http'; url: string };

/** A failure to explain to the user as it is. */
export class GitSyncError extends Error {}

/** Largest answer of a Git server accepted (a pack of the branch's last commit). */
export const MAX_GIT_RESPONSE_BYTES = 100 * 1024 * 1024;
/** Most files, and most bytes, an import reads from the project directory. */
export const MAX_IMPORT_FILES = 5000;
export const MAX_IMPORT_BYTES = 50 * 1024 * 1024;

/** The identity of the commits exports make (the author is the user who started the export). */
export const SERVICE_COMMITTER = { name: 'Documentation Platform', email: 'git-sync@docs-platform.invalid' };

type Fetcher = (target: string, options: Partial<OutboundOptions> & { maxBytes: number }) => Promise<OutboundResponse>;

/**
 * isomorphic-git's HTTP client, on top of the server's outbound requests. With credentials, redirects are not
 * followed: the credentials would go along to wherever the redirect points.
 */
export function gitHttpClient(fetcher: Fetcher, options: { withCredentials: boolean }): HttpClient {
  return {
    async request({ url, method, headers, body }) {
      const chunks: Uint8Array[] = [];
      if (body) for await (const chunk of body) chunks.push(chunk);
      const response = await fetcher(url, {
        method: method ?? 'GET',
        headers: headers ?? {},
        ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
        maxBytes: MAX_GIT_RESPONSE_BYTES,
        maxRedirects: options.withCredentials ? 0 : 3,
      });
      const flat: Record<string, string> = {};
      for (const [name, value] of Object.entries(response.headers)) {
        if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
      }
      return {
        url: response.url,
        method: method ?? 'GET',
        statusCode: response.status,
        statusMessage: STATUS_CODES[response.status] ?? '',
        headers: flat,
        body: (async function* () {
          yield new Uint8Array(response.body);
        })(),
      };
    },
  };
}

export interface RepositoryAccess {
  location: GitLocation;
  credentials?: GitCredentials;
  /** `refs/heads/<branch>`. */
  ref: string;
  http: HttpClient;
  /** A folder to keep the fetched repository in between operations; a temporary one when absent. */
  cacheDir?: string;
}

/** A repository ready for reading and writing objects, with the commit `ref` points at (none for a new branch). */
interface OpenRepository {
  gitdir: string;
  tip?: string;
  /** Whether `ref` is checked out in a working tree (a local non-bare repository). */
  checkedOut: boolean;
  close(failed: boolean): Promise<void>;
}

const exists = (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  );

const isNotFound = (error: unknown) => (error as { code?: string }).code === 'NotFoundError';

/**
 * isomorphic-git, loaded when the first repository is opened rather than at start-up, where it would be a sizeable
 * share of the modules the server loads. Everything below that uses it runs on an opened repository.
 */
let git: typeof import('isomorphic-git').default;

async function open(access: RepositoryAccess): Promise<OpenRepository> {
  git ??= (await import('isomorphic-git')).default;
  const { location } = access;
  return location.kind === 'local' ? openLocal(location.path, access.ref) : openRemote(access, location.url);
}

async function openLocal(folder: string, ref: string): Promise<OpenRepository> {
  let gitdir: string;
  if (await exists(path.join(folder, '.git'))) gitdir = path.join(folder, '.git');
  else if ((await exists(path.join(folder, 'HEAD'))) && (await exists(path.join(folder, 'objects')))) gitdir = folder;
  else throw new GitSyncError(`${folder} is not a Git repository`);
  const tip = await git.resolveRef({ fs, gitdir, ref }).catch((error: unknown) => {
    if (isNotFound(error)) return undefined;
    throw error;
  });
  const checkedOut =
    gitdir !== folder && (await git.currentBranch({ fs, gitdir, fullname: true }).catch(() => undefined)) === ref;
  return { gitdir, ...(tip ? { tip } : {}), checkedOut, close: async () => {} };
}

async function openRemote(access: RepositoryAccess, url: string): Promise<OpenRepository> {
  const gitdir = access.cacheDir ?? (await mkdtemp(path.join(os.tmpdir(), 'docs-git-')));
  const close = async (failed: boolean) => {
    // A temporary folder goes; a cache goes too when the operation failed (it may be half written).
    if (!access.cacheDir || failed) await rm(gitdir, { recursive: true, force: true });
  };
  try {
    if (!(await exists(path.join(gitdir, 'HEAD')))) {
      await mkdir(gitdir, { recursive: true });
      await git.init({ fs, dir: gitdir, bare: true });
    }
    await git.addRemote({ fs, gitdir, remote: 'origin', url, force: true });
    const branch = access.ref.replace(/^refs\/heads\//, '');
    const credentials = access.credentials;
    let tip: string | undefined;
    try {
      const fetched = await git.fetch({
        fs,
        http: access.http,
        gitdir,
        url,
        remote: 'origin',
        ref: branch,
        singleBranch: true,
        depth: 1,
        tags: false,
        ...(credentials ? { onAuth: () => credentials } : {}),
      });
      tip = fetched.fetchHead ?? undefined; // null: the repository has no commit yet
    } catch (error) {
      if (!isNotFound(error)) throw error; // NotFoundError: the branch does not exist yet
    }
    return { gitdir, ...(tip ? { tip } : {}), checkedOut: false, close };
  } catch (error) {
    await close(true);
    throw error;
  }
}

/** Runs `work` on an opened repository, then cleans up. */
async function withRepository<T>(access: RepositoryAccess, work: (repository: OpenRepository) => Promise<T>): Promise<T> {
  const repository = await open(access);
  let failed = true;
  try {
    const result = await work(repository);
    failed = false;
    return result;
  } finally {
    await repository.close(failed);
  }
}

type Leaf = Pick<TreeEntry, 'mode' | 'oid' | 'type'>;

/** Every blob (and submodule) under a tree, by path. */
async function flattenTree(gitdir: string, oid: string, prefix = '', into = new Map<string, Leaf>()): Promise<Map<string, Leaf>> {
  const { tree } = await git.readTree({ fs, gitdir, oid });
  for (const entry of tree) {
    const file = `${prefix}${entry.path}`;
    if (entry.type === 'tree') await flattenTree(gitdir, entry.oid, `${file}/`, into);
    else into.set(file, { mode: entry.mode, oid: entry.oid, type: entry.type });
  }
  return into;
}

/** Writes the trees of a flat list of blobs; returns the root tree. */
async function writeTrees(gitdir: string, leaves: Map<string, Leaf>): Promise<string> {
  const here: TreeEntry[] = [];
  const folders = new Map<string, Map<string, Leaf>>();
  for (const [file, leaf] of leaves) {
    const slash = file.indexOf('/');
    if (slash < 0) {
      here.push({ path: file, ...leaf });
      continue;
    }
    const folder = file.slice(0, slash);
    if (!folders.has(folder)) folders.set(folder, new Map());
    folders.get(folder)!.set(file.slice(slash + 1), leaf);
  }
  for (const [folder, content] of folders) {
    here.push({ path: folder, mode: '040000', type: 'tree', oid: await writeTrees(gitdir, content) });
  }
  return git.writeTree({ fs, gitdir, tree: here });
}

const inFolder = (folder: string) => (folder ? `${folder}/` : '');

export interface ReadResult {
  commit: { oid: string } & CommitObject;
  /** The files `wanted` selected under the project directory, by path relative to it. */
  files: Map<string, { oid: string; repoPath: string; bytes: Buffer }>;
  /** Paths of every file of the commit. */
  paths: Set<string>;
}

/** Reads the commit at `ref` and the files under `directory` that `wanted` selects (by path relative to it). */
export async function readRepository(
  access: RepositoryAccess,
  directory: string,
  wanted: (file: string) => boolean,
): Promise<ReadResult> {
  return withRepository(access, async ({ gitdir, tip }) => {
    if (!tip) throw new GitSyncError(`the repository has no branch ${access.ref}`);
    const { commit } = await git.readCommit({ fs, gitdir, oid: tip });
    const prefix = inFolder(directory);
    const files: ReadResult['files'] = new Map();
    let bytes = 0;
    const leaves = await flattenTree(gitdir, commit.tree);
    if (directory && ![...leaves.keys()].some((file) => file.startsWith(prefix))) {
      throw new GitSyncError(`the repository has no folder ${directory} on ${access.ref}`);
    }
    for (const [repoPath, leaf] of leaves) {
      if (leaf.type !== 'blob' || !repoPath.startsWith(prefix) || !wanted(repoPath.slice(prefix.length))) continue;
      if (files.size >= MAX_IMPORT_FILES) throw new GitSyncError(`more than ${MAX_IMPORT_FILES} files to import`);
      const { blob } = await git.readBlob({ fs, gitdir, oid: leaf.oid });
      bytes += blob.length;
      if (bytes > MAX_IMPORT_BYTES) throw new GitSyncError(`more than ${MAX_IMPORT_BYTES} bytes to import`);
      files.set(repoPath.slice(prefix.length), { oid: leaf.oid, repoPath, bytes: Buffer.from(blob) });
    }
    return { commit: { oid: tip, ...commit }, files, paths: new Set(leaves.keys()) };
  });
}

export interface WriteInput {
  directory: string;
  /** The new files of the project directory, by path relative to it. */
  files: Map<string, Buffer>;
  /** Which files of the project directory the export replaces (by path relative to it), given the SUMMARY.md there. */
  replaces: (summary: string | undefined, files: Set<string>) => (file: string) => boolean;
  message: string;
  author: { name: string; email: string };
  at: Date;
  /** Commit even when nothing changed. */
  force: boolean;
  /**
   * Called once the commit is written, right before the branch is moved and pushed: throwing leaves the branch
   * where it was (a background job checks that it still holds its lease).
   */
  beforeUpdate?: () => Promise<void>;
}

/** Commits the files on `ref` (on top of its last commit) and pushes a remote; returns the commit, if one was made. */
export async function writeRepository(access: RepositoryAccess, input: WriteInput): Promise<{ commit?: string }> {
  return exclusive(access, () =>
    withRepository(access, async ({ gitdir, tip, checkedOut }) => {
      if (checkedOut) {
        throw new GitSyncError(`${access.ref} is checked out in a working tree: export to another branch or to a bare repository`);
      }
      const parent = tip ? await git.readCommit({ fs, gitdir, oid: tip }) : undefined;
      const leaves = parent ? await flattenTree(gitdir, parent.commit.tree) : new Map<string, Leaf>();
      const prefix = inFolder(input.directory);
      const summary = leaves.get(`${prefix}${SUMMARY_FILE}`);
      const replaced = input.replaces(
        summary && Buffer.from((await git.readBlob({ fs, gitdir, oid: summary.oid })).blob).toString('utf8'),
        new Set([...leaves.keys()].filter((file) => file.startsWith(prefix)).map((file) => file.slice(prefix.length))),
      );
      for (const file of [...leaves.keys()]) {
        if (file.startsWith(prefix) && replaced(file.slice(prefix.length))) leaves.delete(file);
      }
      for (const [file, bytes] of input.files) {
        leaves.set(`${prefix}${file}`, { mode: '100644', type: 'blob', oid: await git.writeBlob({ fs, gitdir, blob: bytes }) });
      }
      const tree = await writeTrees(gitdir, leaves);
      if (parent && tree === parent.commit.tree && !input.force) return {};
      const when = { timestamp: Math.floor(input.at.getTime() / 1000), timezoneOffset: 0 };
      const commit = await git.writeCommit({
        fs,
        gitdir,
        commit: {
          message: input.message.endsWith('\n') ? input.message : `${input.message}\n`,
          tree,
          parent: tip ? [tip] : [],
          author: { ...input.author, ...when },
          committer: { ...SERVICE_COMMITTER, ...when },
        },
      });
      await input.beforeUpdate?.();
      await git.writeRef({ fs, gitdir, ref: access.ref, value: commit, force: true });
      if (access.location.kind === 'http') await push(access, gitdir, access.location.url);
      return { commit };
    }),
  );
}

async function push(access: RepositoryAccess, gitdir: string, url: string): Promise<void> {
  const credentials = access.credentials;
  const result = await git.push({
    fs,
    http: access.http,
    gitdir,
    url,
    ref: access.ref,
    remoteRef: access.ref,
    ...(credentials ? { onAuth: () => credentials } : {}),
  });
  const refused = result.refs[access.ref];
  if (!result.ok || (refused && !refused.ok)) {
    throw new GitSyncError(`the Git server refused the push: ${refused?.error || result.error || 'no reason given'}`);
  }
}

// Writes to one local repository run one at a time (exports of several spaces may target it at once).
const writing = new Map<string, Promise<unknown>>();

function exclusive<T>(access: RepositoryAccess, work: () => Promise<T>): Promise<T> {
  const key = access.location.kind === 'local' ? access.location.path : `${access.location.url} ${access.cacheDir ?? ''}`;
  const run = (writing.get(key) ?? Promise.resolve()).then(work, work);
  const settled = run.catch(() => undefined);
  writing.set(key, settled);
  void settled.then(() => {
    if (writing.get(key) === settled) writing.delete(key);
  });
  return run;
}

/** A failure of isomorphic-git or of the network, in words for the user (without credentials: none reach here). */
export function describeGitError(error: unknown): string {
  if (error instanceof OutboundError && error.failure === 'redirects') {
    return `${error.message}: give the address the server redirects to (redirects are not followed with credentials)`;
  }
  if (error instanceof GitSyncError || error instanceof OutboundError) return error.message;
  const failure = error as { code?: string; message?: string; data?: { statusCode?: number; reason?: string } };
  switch (failure.code) {
    case 'HttpError': {
      const status = failure.data?.statusCode;
      if (status === 401 || status === 403) return `the Git server refused the credentials (HTTP ${status})`;
      if (status === 404) return 'the Git server has no such repository (HTTP 404)';
      return `the Git server answered HTTP ${status ?? 'error'}`;
    }
    case 'PushRejectedError':
      return 'the Git server refused the push: the branch changed during the export (not a fast-forward); run the export again';
    case 'SmartHttpError':
    case 'ParseError':
      return `the address does not answer as a Git server (${failure.message ?? 'unexpected answer'})`;
    case 'NotFoundError':
      return `the repository is missing an object or a reference (${failure.message ?? ''})`;
    case 'UserCanceledError':
      return 'the Git server refused the credentials';
    default:
      return failure.message ?? String(error);
  }
}
