// Git import and export, the background work of the Git handlers. An import reads the branch into a new revision
// (the space's current one unless `standalone`); an export commits the current revision on the branch. Each records
// its outcome on its operation (git_operations) and, when it succeeded, the space's Git info; a failure is recorded
// there too, and logged, without credentials.
import path from 'node:path';
import { type AppContext, inWrite, reading, type Scope } from '../context/context.ts';
import {
  finishGitOperation,
  type GitOperation,
  getGitOperation,
  localRepositoryRefusal,
  markGitOperationRunning,
  projectDirectory,
  recordGitSync,
  redact,
} from './git.ts';
import { sha256 } from '../common/ids.ts';
import { EDIT_MODES, getSpaceRow, type SpaceRow } from './spaces.ts';
import { findUser } from '../auth/caller.ts';
import type { Input } from '../common/contract.ts';
import type { Job, JobKind } from '../jobs/runner.ts';
import { outboundFor } from '../net/outbound.ts';
import type { Db } from '../store/db.ts';
import { readFileContent, storeFile } from '../content/files.ts';
import { IMPORT_LIMITS } from '../content/import.ts';
import {
  exportLayout,
  importAssets,
  importPages,
  isImported,
  isMarkdown,
  linkExternalFiles,
  replacedByExport,
} from '../content/git-layout.ts';
import type { RepositoryFile } from '../content/git-layout.ts';
import {
  describeGitError,
  GitSyncError,
  gitHttpClient,
  type ReadResult,
  readRepository,
  type RepositoryAccess,
  SERVICE_COMMITTER,
  writeRepository,
} from '../content/git-repository.ts';
import type { RevisionContent, RevisionGit, StoredFile } from '../content/model.ts';
import { createRevision, currentRevision, setCurrentRevision } from '../content/revisions.ts';

export const GIT_IMPORT_JOB = 'git-import';
export const GIT_EXPORT_JOB = 'git-export';

/** The job of an import or an export: runs the operation, records a failure on it. */
export const gitJobKind: JobKind<{ operation: string }> = {
  resumable: true, // the outcome is written at the end, in one transaction: running it again is safe
  run: (ctx, job) => runGitOperation(ctx, job.payload.operation, job),
  fail: (ctx, job, reason) => failGitOperation(ctx, job.payload.operation, reason),
};

/**
 * What an operation needs of its job: the signal that stops it, the check of its lease before the branch moves, and
 * the end of the job, in the write that records the outcome.
 */
type OperationJob = Pick<Job, 'signal' | 'confirmLease' | 'done'>;

async function runGitOperation(ctx: AppContext, operationId: string, job: OperationJob): Promise<void> {
  const operation = await getGitOperation(reading(ctx).db, ctx.secrets.gitCredentials, operationId);
  // Gone with its space, or already finished before a restart.
  if (!operation || operation.row.status === 'done' || operation.row.status === 'failed') return;
  await inWrite(ctx, (scope) => markGitOperationRunning(scope.db, operationId));
  try {
    if (operation.row.kind === 'import') await runImport(ctx, operation, job);
    else await runExport(ctx, operation, job);
  } catch (error) {
    // The job is no longer this instance's: that is not the operation's failure.
    job.signal.throwIfAborted();
    throw new Error(redact(describeGitError(error), operation.credentials));
  }
}

async function failGitOperation(ctx: Scope, operationId: string, reason: string): Promise<void> {
  const operation = await getGitOperation(ctx.db, ctx.secrets.gitCredentials, operationId);
  if (!operation) return;
  const error = redact(reason, operation.credentials);
  await finishGitOperation(ctx.db, operationId, { status: 'failed', at: ctx.now(), error });
  ctx.log.warn({ ...logFields(operation), reason: error }, `git ${operation.row.kind} failed`);
}

const logFields = ({ row, request }: GitOperation) => ({
  space: row.spaceId,
  operation: row.id,
  url: request.url, // stored without credentials
  ref: request.ref,
});

function repositoryAccess(ctx: AppContext, operation: GitOperation, signal: AbortSignal): RepositoryAccess {
  const { location, credentials, request, row } = operation;
  // Checked again when the operation runs: the configuration or the folder (a symbolic link) may have changed.
  const refusal = location.kind === 'local' ? localRepositoryRefusal(ctx.config, location.path) : undefined;
  if (refusal) throw new GitSyncError(refusal);
  const cached = request.repoCacheID && location.kind === 'http' && ctx.config.dataDir !== ':memory:';
  return {
    location,
    ...(credentials ? { credentials } : {}),
    ref: request.ref,
    http: gitHttpClient((url, options) => outboundFor(ctx.config)(url, { ...options, signal }), { withCredentials: credentials !== undefined }),
    ...(cached
      ? {
          cacheDir: path.join(
            ctx.config.dataDir,
            'git-cache',
            sha256(`${row.spaceId}\n${request.repoCacheID}\n${location.url}`).slice(0, 32),
          ),
        }
      : {}),
  };
}

/** The space of an operation, unless it was deleted meanwhile. */
async function liveSpace(db: Db, spaceId: string): Promise<SpaceRow> {
  const space = await getSpaceRow(db, spaceId);
  if (!space || space.deletedAt !== null) throw new GitSyncError('the space was deleted');
  return space;
}

async function runImport(ctx: AppContext, operation: GitOperation, job: OperationJob): Promise<void> {
  const request = operation.request as Input<'ImportGitRequest'>;
  const read = await readRepository(repositoryAccess(ctx, operation, job.signal), projectDirectory(request.repoProjectDirectory), isImported);
  // A page is read whole, as markdown or as a Document: the same bound as a page imported from a website.
  for (const [file, content] of read.files) {
    if (isMarkdown(file) && content.bytes.length > IMPORT_LIMITS.pageBytes) {
      throw new GitSyncError(`${file} is larger than ${IMPORT_LIMITS.pageBytes} bytes, the most a page holds`);
    }
  }
  // Everything is read from the repository first; the outcome is then written in one transaction.
  const revision = await inWrite(ctx, async ({ db }) => {
    const now = ctx.now();
    const space = await liveSpace(db, operation.row.spaceId);
    if (!request.standalone && EDIT_MODES[space.editMode].locked) {
      throw new GitSyncError('the space is locked (editMode: locked): its content cannot be changed');
    }
    const current = await currentRevision(db, space);
    const git = revisionGit(read, request);
    const upToDate = current.content.git?.oid === git.oid && current.content.git.ref === git.ref;
    if (upToDate && !request.force && !request.standalone) {
      await recordGitSync(db, space.id, operation, now);
      await finishGitOperation(db, operation.row.id, { status: 'done', at: now, commit: git.oid, revision: current.id });
      await job.done(db);
      return current;
    }
    const rewrite = request.repoTreeURL
      ? (markdown: string, file: RepositoryFile) => linkExternalFiles(markdown, file.repoPath, read.paths, request.repoTreeURL!)
      : undefined;
    const content: RevisionContent = {
      pages: importPages(read.files, { previous: current.content, now, ...(rewrite ? { rewrite } : {}) }),
      files: await importFiles(db, read.files, current.content.files, now),
      reusableContents: current.content.reusableContents,
      variables: current.content.variables,
      git,
    };
    const revision = await createRevision(db, { spaceId: space.id, parents: [current.id], type: 'edits', content, createdAt: now });
    if (!request.standalone) {
      await setCurrentRevision(db, revision, now);
      await recordGitSync(db, space.id, operation, now);
    }
    await finishGitOperation(db, operation.row.id, { status: 'done', at: now, commit: git.oid, revision: revision.id });
    await job.done(db);
    return revision;
  });
  ctx.log.info({ ...logFields(operation), commit: read.commit.oid, revision: revision.id }, 'git import done');
}

function revisionGit(read: ReadResult, request: Input<'ImportGitRequest'>): RevisionGit {
  const { oid, message, committer } = read.commit;
  return {
    oid,
    message: message.replace(/\n+$/, ''),
    createdByService: committer.email === SERVICE_COMMITTER.email,
    ...(request.repoCommitURL ? { url: `${request.repoCommitURL}${oid}` } : {}),
    ref: request.ref,
  };
}

/** The assets of the repository as revision files (unchanged ones keep their id); none there keeps the space's. */
async function importFiles(db: Db, files: Map<string, RepositoryFile>, previous: StoredFile[], now: string): Promise<StoredFile[]> {
  const assets = importAssets(files);
  if (assets.length === 0) return previous;
  const imported: StoredFile[] = [];
  for (const { name, contentType, file } of assets) {
    imported.push(
      previous.find((stored) => stored.git?.oid === file.oid && stored.name === name) ??
        (await storeFile(db, file.bytes, { name, contentType, git: { oid: file.oid, path: file.repoPath } }, now)),
    );
  }
  return imported;
}

async function runExport(ctx: AppContext, operation: GitOperation, job: OperationJob): Promise<void> {
  const request = operation.request as Input<'ExportGitRequest'>;
  // Read first, outside any transaction; the repository is written to; the outcome is recorded in a write.
  const { db } = reading(ctx);
  const space = await liveSpace(db, operation.row.spaceId);
  const content = (await currentRevision(db, space)).content;
  const user = operation.row.userId ? await findUser(db, operation.row.userId) : undefined;
  const bytes = new Map<string, Buffer | undefined>();
  for (const file of content.files) bytes.set(file.id, (await readFileContent(db, file.id))?.bytes);
  const { commit } = await writeRepository(repositoryAccess(ctx, operation, job.signal), {
    directory: projectDirectory(request.repoProjectDirectory),
    files: exportLayout(content, (file) => bytes.get(file.id)),
    replaces: replacedByExport,
    message: request.commitMessage,
    author: { name: user?.displayName ?? SERVICE_COMMITTER.name, email: user?.email ?? SERVICE_COMMITTER.email },
    at: ctx.clock.now(),
    force: request.force === true,
    // The branch moves only while the job is still this instance's (a remote also refuses a push whose branch moved).
    beforeUpdate: job.confirmLease,
  });
  await inWrite(ctx, async (scope) => {
    const now = ctx.now();
    if (await getSpaceRow(scope.db, space.id)) await recordGitSync(scope.db, space.id, operation, now);
    await finishGitOperation(scope.db, operation.row.id, { status: 'done', at: now, ...(commit ? { commit } : {}) });
    await job.done(scope.db);
  });
  ctx.log.info({ ...logFields(operation), commit: commit ?? null }, commit ? 'git export done' : 'git export: nothing changed');
}
