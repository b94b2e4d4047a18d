// Git synchronisation of a space: import and export answer 204 at once and run as background jobs, one space's in
// the order of their `timestamp`; Git info shows the repository last synchronised.
import type { Caller } from '../auth/caller.ts';
import type { Scope } from '../context/context.ts';
import { GIT_EXPORT_JOB, GIT_IMPORT_JOB } from '../domain/git-sync.ts';
import {
  checkUrlPrefix,
  deleteGitLegacyInstallation,
  type GitOperationKind,
  type GitRequest,
  insertGitOperation,
  localRepositoryRefusal,
  parseGitUrl,
  presentGitInfo,
  projectDirectory,
} from '../domain/git.ts';
import { newId } from '../common/ids.ts';
import { requireSpace, spaceAccess } from '../domain/spaces.ts';
import { badRequest } from '../common/errors.ts';
import type { HandlerGroup } from './types.ts';
import { enqueue } from '../jobs/runner.ts';
import { refusedHost } from '../net/outbound.ts';

type Operations = 'importGitRepository' | 'exportGitRepository' | 'getGitInfo' | 'deleteGitLegacyInstallation';

/** Checks the request, records the operation and queues its job, ordered by the request's `timestamp`. */
async function start(ctx: Scope, kind: GitOperationKind, spaceId: string, body: GitRequest, caller: Caller) {
  const access = await spaceAccess(ctx, caller, spaceId);
  requireSpace(access, 'triggerGitSync');
  const { display, location } = parseGitUrl(body.url);
  const refusal =
    location.kind === 'local'
      ? localRepositoryRefusal(ctx.config, location.path)
      : refusedHost(location.url, { allowPrivateNetworks: ctx.config.allowPrivateNetworks, allowedAddresses: ctx.config.allowedAddresses });
  if (refusal) throw badRequest(`url: ${refusal}`);
  projectDirectory(body.repoProjectDirectory);
  checkUrlPrefix(body.repoCommitURL, 'repoCommitURL');
  checkUrlPrefix(body.repoTreeURL, 'repoTreeURL');
  checkUrlPrefix(body.gitInfo?.url, 'gitInfo.url');
  const id = newId();
  const now = ctx.now();
  await insertGitOperation(ctx.db, ctx.secrets.gitCredentials, { id, spaceId, kind, request: body, userId: caller.user.id, createdAt: now });
  await enqueue(ctx, {
    kind: kind === 'import' ? GIT_IMPORT_JOB : GIT_EXPORT_JOB,
    resource: `git:${spaceId}`,
    payload: { operation: id },
    orderKey: body.timestamp ? new Date(body.timestamp).toISOString() : now,
    createdAt: now,
  });
  ctx.log.info({ space: spaceId, operation: id, url: display, ref: body.ref }, `git ${kind} queued`);
  return { status: 204 as const };
}

export const gitHandlers: HandlerGroup<Operations> = {
  importGitRepository: ({ params, body, caller }, ctx) => start(ctx, 'import', params.spaceId, body, caller),

  exportGitRepository: ({ params, body, caller }, ctx) => start(ctx, 'export', params.spaceId, body, caller),

  async getGitInfo({ params, caller }, ctx) {
    const access = await spaceAccess(ctx, caller, params.spaceId);
    return { status: 200, body: presentGitInfo(access.space) };
  },

  async deleteGitLegacyInstallation({ params, caller }, ctx) {
    await deleteGitLegacyInstallation(ctx, caller, params.spaceId);
    return { status: 204 };
  },
};

