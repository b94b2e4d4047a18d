// Git synchronisation of a space: where a repository is (an HTTP(S) URL, a file:// URL or a local path), the
// credentials of its URL (kept encrypted only while an operation waits or runs, never shown), the operations
// clients start and their outcome, and the Git info the API shows (`spaces.git_sync`).
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Caller } from '../auth/caller.ts';
import type { Scope } from '../context/context.ts';
import { badRequest } from '../common/errors.ts';
import type { Input, Model } from '../common/contract.ts';
import { type Db, fromJson, toJson } from '../store/db.ts';
import * as git from '../store/git.ts';
import * as spaces from '../store/spaces.ts';
import { rowParser } from '../store/enums.ts';
import { requireSpace, spaceAccess, type SpaceRow } from './spaces.ts';
import type { Row } from '../store/schema.ts';
import type { GitCredentials, GitLocation } from '../content/git-repository.ts';

/** Name of the integration that synchronises spaces with Git, as Git info shows it. */
export const GIT_INTEGRATION = 'git-sync';

export type { GitCredentials, GitLocation };


export type GitRequest = Input<'ImportGitRequest'> | Input<'ExportGitRequest'>;
export type GitOperationKind = 'import' | 'export';

/**
 * Reads the `url` of a request: credentials are split off, the location keeps none. Only absolute places are
 * accepted: `http(s)://host/…`, `file:///…` and `/…`.
 */
export function parseGitUrl(raw: string): { location: GitLocation; display: string; credentials?: GitCredentials } {
  const value = raw.trim();
  if (value.includes('\0')) throw badRequest('url: must not contain a NUL character');
  if (value.startsWith('/')) return { location: { kind: 'local', path: path.resolve(value) }, display: value };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw badRequest('url: must be an http(s) URL, a file:// URL or an absolute path');
  }
  if (url.protocol === 'file:') {
    if (url.host !== '' && url.host !== 'localhost') throw badRequest('url: a file:// URL must name a local path');
    let local: string;
    try {
      local = fileURLToPath(url);
    } catch (error) {
      throw badRequest(`url: not a local path: ${(error as Error).message}`);
    }
    if (local.includes('\0')) throw badRequest('url: must not contain a NUL character');
    return { location: { kind: 'local', path: local }, display: `file://${url.pathname}` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw badRequest(`url: the ${url.protocol.replace(/:$/, '')} protocol is not supported; use http(s) or file://`);
  }
  if (!url.hostname) throw badRequest('url: names no host');
  const credentials =
    url.username || url.password
      ? { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) }
      : undefined;
  url.username = '';
  url.password = '';
  url.hash = '';
  return { location: { kind: 'http', url: url.href }, display: url.href, ...(credentials ? { credentials } : {}) };
}

/** The folder the server is installed in: the nearest one above this module holding a package.json. */
function installFolder(): string {
  let folder = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(folder, 'package.json')) && path.dirname(folder) !== folder) folder = path.dirname(folder);
  return folder;
}
const INSTALL_FOLDER = installFolder();

/** The real path of `file` (symbolic links resolved); for a path that does not exist (yet), of its nearest parent. */
function realPath(file: string): string {
  try {
    return fs.realpathSync.native(file);
  } catch {
    const parent = path.dirname(file);
    return parent === file ? file : path.join(realPath(parent), path.basename(file));
  }
}

/** Whether `inner` is `outer` or inside it (both absolute and real). */
function within(inner: string, outer: string): boolean {
  const relative = path.relative(outer, inner);
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

/**
 * Why the local repository at `folder` may not be used, or undefined when it may: local Git must be on, and the
 * folder (symbolic links resolved, its `.git` too) inside LOCAL_GIT_ROOT, and apart from the server's own folders
 * (its working directory, DATA_DIR and its installation), neither inside one nor holding one.
 */
export function localRepositoryRefusal(
  config: { allowLocalGit: boolean; localGitRoot?: string; dataDir: string },
  folder: string,
): string | undefined {
  if (!config.allowLocalGit) {
    return 'repositories on the server’s disk are turned off here (ALLOW_LOCAL_GIT=false); use an http(s) URL';
  }
  if (!config.localGitRoot) return 'repositories on the server’s disk need LOCAL_GIT_ROOT, which is not set';
  const root = realPath(config.localGitRoot);
  const own = [process.cwd(), INSTALL_FOLDER, ...(config.dataDir === ':memory:' ? [] : [config.dataDir])].map(realPath);
  const dotGit = path.join(folder, '.git');
  for (const real of [realPath(folder), ...(fs.existsSync(dotGit) ? [realPath(dotGit)] : [])]) {
    if (!within(real, root)) return 'the repository is outside the folder this server keeps local repositories in (LOCAL_GIT_ROOT)';
    if (own.some((mine) => within(real, mine) || within(mine, real))) {
      return 'the repository overlaps a folder of the server itself (its working directory, data or installation), which is never used';
    }
  }
  return undefined;
}

/** `repoProjectDirectory` as a relative folder without `.` or `..` segments; '' for the root. */
export function projectDirectory(raw: string | undefined): string {
  if (raw === undefined) return '';
  const parts = raw.split('/').filter((part) => part !== '' && part !== '.');
  if (parts.includes('..') || raw.includes('\\') || raw.includes('\0')) {
    throw badRequest('repoProjectDirectory: must be a folder inside the repository (no "..")');
  }
  return parts.join('/');
}

/** An optional address prefix of the request must be an absolute http(s) URL. */
export function checkUrlPrefix(value: string | undefined, field: string): void {
  if (value === undefined) return;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw badRequest(`${field}: must be an absolute http(s) URL`);
  }
  if (url.username || url.password) throw badRequest(`${field}: must not contain credentials`);
}

/** The provider shown in Git info: the one the request names, else guessed from the host. */
export function gitProvider(location: GitLocation, named?: string): string {
  if (named) return named;
  if (location.kind === 'local') return 'git';
  const host = new URL(location.url).hostname.toLowerCase();
  for (const provider of ['github', 'gitlab', 'bitbucket']) {
    if (host === `${provider}.com` || host === `${provider}.org` || host.endsWith(`.${provider}.com`)) return provider;
  }
  if (host.startsWith('gitlab.')) return 'gitlab';
  return 'git';
}

/** The repository's name: the URL's path without `.git` (`owner/repo`), or the folder's name. */
export function repoName(location: GitLocation): string {
  const raw = location.kind === 'local' ? path.basename(location.path) : new URL(location.url).pathname;
  return decodeURIComponent(raw).replace(/^\/+|\/+$/g, '').replace(/\.git$/, '') || raw;
}

// Credentials at rest: AES-256-GCM under a key kept in the database (the server's `gitCredentials` secret, context.ts),
// so that queued work survives a restart and any instance can run it. `secret` is that secret.
const credentialKey = (secret: string) => createHash('sha256').update(secret).digest();

export function encryptCredentials(secret: string, credentials: GitCredentials): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', credentialKey(secret), iv);
  const sealed = Buffer.concat([cipher.update(JSON.stringify(credentials), 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), sealed].map((part) => part.toString('base64url')).join('.');
}

export function decryptCredentials(secret: string, sealed: string): GitCredentials {
  const [iv, tag, data] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
  const decipher = createDecipheriv('aes-256-gcm', credentialKey(secret), iv!);
  decipher.setAuthTag(tag!);
  return JSON.parse(Buffer.concat([decipher.update(data!), decipher.final()]).toString('utf8')) as GitCredentials;
}

/** `text` with every occurrence of the credentials (as written and URL-encoded) replaced. */
export function redact(text: string, credentials: GitCredentials | undefined): string {
  if (!credentials) return text;
  const secrets = [credentials.password, credentials.username]
    .filter((secret) => secret.length > 0)
    .flatMap((secret) => [secret, encodeURIComponent(secret)]);
  return secrets.reduce((result, secret) => result.split(secret).join('***'), text);
}

/** The kinds of operation (`git_operations.kind`). */
const GIT_OPERATION_KINDS = { import: true, export: true } satisfies Record<GitOperationKind, true>;

/** Where an operation is (`git_operations.status`): waiting for its job, running, or over. */
type GitOperationStatus = 'queued' | 'running' | 'done' | 'failed';
const GIT_OPERATION_STATUSES = { queued: true, running: true, done: true, failed: true } satisfies Record<GitOperationStatus, true>;

export type GitOperationRow = Row<'git_operations', { kind: GitOperationKind; status: GitOperationStatus }>;

/** A `git_operations` row checked: its kind and status are among theirs. */
export const parseGitOperationRow = rowParser<GitOperationRow>('git_operations', {
  kind: GIT_OPERATION_KINDS,
  status: GIT_OPERATION_STATUSES,
});

/** An operation as the job sees it: the request (its url without credentials) and the decrypted credentials. */
export interface GitOperation {
  row: GitOperationRow;
  request: GitRequest;
  location: GitLocation;
  credentials?: GitCredentials;
}

/** Records a started operation; the request is kept with its url stripped and its credentials encrypted. */
export async function insertGitOperation(
  db: Db,
  secret: string,
  input: { id: string; spaceId: string; kind: GitOperationKind; request: GitRequest; userId: string; createdAt: string },
): Promise<void> {
  const { display, credentials } = parseGitUrl(input.request.url);
  await git.insert(db, {
    id: input.id,
    spaceId: input.spaceId,
    kind: input.kind,
    request: toJson({ ...input.request, url: display }),
    credentials: credentials ? encryptCredentials(secret, credentials) : null,
    userId: input.userId,
    createdAt: input.createdAt,
  });
}

export async function getGitOperation(db: Db, secret: string, id: string): Promise<GitOperation | undefined> {
  const stored = await git.get(db, id);
  if (!stored) return undefined;
  const row = parseGitOperationRow(stored);
  const request = fromJson<GitRequest>(row.request, { url: '', ref: '' });
  return {
    row,
    request,
    location: parseGitUrl(request.url).location,
    ...(row.credentials ? { credentials: decryptCredentials(secret, row.credentials) } : {}),
  };
}

/** The operations of a space, latest first: where a failure is found (the API's Git info has no error field). */
export async function listGitOperations(db: Db, spaceId: string): Promise<GitOperationRow[]> {
  return (await git.ofSpace(db, spaceId)).map(parseGitOperationRow);
}

export const markGitOperationRunning = (db: Db, id: string): Promise<void> => git.markRunning(db, id);

/** Records the outcome of an operation and erases its credentials. */
export function finishGitOperation(
  db: Db,
  id: string,
  outcome: { status: 'done' | 'failed'; at: string; commit?: string; revision?: string; error?: string },
): Promise<void> {
  return git.finish(db, id, {
    status: outcome.status,
    at: outcome.at,
    commit: outcome.commit ?? null,
    revision: outcome.revision ?? null,
    error: outcome.error ?? null,
  });
}

/** Sets the Git info of a space after a successful operation. */
export async function recordGitSync(db: Db, spaceId: string, operation: GitOperation, at: string): Promise<void> {
  const info: Model<'GitInfo'> = {
    repoName: repoName(operation.location),
    installationProvider: gitProvider(operation.location, operation.request.gitInfo?.provider),
    integration: GIT_INTEGRATION,
    url: operation.request.url,
    updatedAt: at,
  };
  await spaces.update(db, spaceId, { gitSync: toJson(info) });
}

/** The Git info of a space; `{}` when it was never synchronised (or its legacy installation was removed). */
export function presentGitInfo(space: SpaceRow): Model<'GitInfo'> {
  return fromJson<Model<'GitInfo'>>(space.gitSync, {});
}

/**
 * Removes the legacy Git installation of a space, and with it its Git info, for those who may install integrations
 * on the space.
 */
export async function deleteGitLegacyInstallation(ctx: Scope, caller: Caller, spaceId: string): Promise<void> {
  const access = await spaceAccess(ctx, caller, spaceId);
  requireSpace(access, 'installIntegration');
  await spaces.update(ctx.db, access.space.id, { gitSync: null });
}
