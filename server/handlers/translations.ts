// Translations of a space's content into another language. Creating a translation with a source queues its first
// run; POST run queues another. Runs happen in the background (the `translation-run` job, see domain/translations.ts).
import type { AppContext } from '../context.ts';
import { newId } from '../domain/ids.ts';
import { spaceAccess } from '../domain/spaces.ts';
import {
  getTranslationRow,
  liveSourceSpace,
  performRun,
  presentTranslation,
  queueRun,
  recordFailedRun,
  requireTranslation,
  RUN_JOB,
  translationAccess,
  translationsAccess,
  type TranslationRow,
} from '../domain/translations.ts';
import type { Caller } from '../auth/caller.ts';
import { ApiError, badRequest } from '../http/errors.ts';
import { after, listId } from '../http/pagination.ts';
import type { HandlerGroup, Input } from '../http/types.ts';
import { toJson } from '../store/db.ts';

type Operations =
  | 'listTranslations'
  | 'createTranslation'
  | 'getTranslation'
  | 'updateTranslation'
  | 'deleteTranslation'
  | 'runTranslation';

/** Largest translation instructions, as JSON: a translation is read whole, and listed 1000 at a time. */
export const MAX_INSTRUCTIONS_BYTES = 1024 * 1024;

/** The stored JSON of instructions; larger than MAX_INSTRUCTIONS_BYTES is a 400 naming `body.instructions`. */
function instructionsJson(instructions: unknown): string {
  const text = toJson(instructions, 'body.instructions');
  if (Buffer.byteLength(text) > MAX_INSTRUCTIONS_BYTES) {
    throw badRequest(`body.instructions: at most ${MAX_INSTRUCTIONS_BYTES} bytes as JSON`);
  }
  return text;
}

export function translationHandlers(ctx: AppContext): HandlerGroup<Operations> {
  const { db } = ctx;

  /** The source must be a live space of the organization that the caller can view, in another language. */
  const checkSource = (caller: Caller, organizationId: string, body: Input<'CreateTranslationRequest'>) => {
    const source = body.source;
    if (!source) return;
    let space;
    try {
      space = spaceAccess(ctx, caller, source.space).space;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
    }
    if (!space || space.organization_id !== organizationId) {
      throw badRequest(`source.space: no space ${source.space} in this organization that you can view`);
    }
    const from = source.language ?? space.language;
    if (from === body.language) throw badRequest(`language: the source is already in ${body.language}`);
  };

  return {
    listTranslations({ params, query, caller }) {
      const access = translationsAccess(ctx, caller, params.organizationId);
      requireTranslation(access.permissions, 'view');
      const page = ctx.cursors.page({
        list: listId('listTranslations', params.organizationId),
        page: query.page,
        limit: query.limit,
        key: (row: TranslationRow) => [row.created_at, row.id],
        count: () =>
          (
            db.prepare('SELECT COUNT(*) AS n FROM translations WHERE organization_id = ?').get(params.organizationId) as {
              n: number;
            }
          ).n,
        fetch: (key, limit) =>
          db
            .prepare(
              `SELECT * FROM translations WHERE organization_id = ? ${key ? `AND ${after(['created_at', 'id'])}` : ''}
               ORDER BY created_at, id LIMIT ?`,
            )
            .all(params.organizationId, ...(key ?? []), limit) as TranslationRow[],
      });
      return {
        status: 200,
        body: { ...page, items: page.items.map((row) => presentTranslation(ctx, row, access.permissions)) },
      };
    },

    createTranslation({ params, body, caller }) {
      const access = translationsAccess(ctx, caller, params.organizationId);
      requireTranslation(access.permissions, 'edit');
      checkSource(caller, params.organizationId, body);
      const id = newId();
      const now = ctx.now();
      db.prepare(
        `INSERT INTO translations (id, organization_id, language, source_space_id, source_language, instructions,
                                   created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        id,
        params.organizationId,
        body.language,
        body.source?.space ?? null,
        body.source?.language ?? null,
        body.instructions ? instructionsJson(body.instructions) : null,
        now,
        now,
      );
      if (body.source) queueRun(ctx, id);
      const translation = presentTranslation(ctx, getTranslationRow(db, id)!, access.permissions);
      return { status: 201, body: translation, headers: { location: translation.urls.location } };
    },

    getTranslation({ params, caller }) {
      const access = translationAccess(ctx, caller, params.organizationId, params.translationId);
      return { status: 200, body: presentTranslation(ctx, access.translation, access.permissions) };
    },

    updateTranslation({ params, body, caller }) {
      const access = translationAccess(ctx, caller, params.organizationId, params.translationId);
      requireTranslation(access.permissions, 'edit');
      db.prepare('UPDATE translations SET instructions = ?, updated_at = ? WHERE id = ?').run(
        instructionsJson(body.instructions),
        ctx.now(),
        params.translationId,
      );
      return {
        status: 200,
        body: presentTranslation(ctx, getTranslationRow(db, params.translationId)!, access.permissions),
      };
    },

    deleteTranslation({ params, caller }) {
      const access = translationsAccess(ctx, caller, params.organizationId);
      const row = getTranslationRow(db, params.translationId);
      if (!row || row.organization_id !== params.organizationId) return { status: 204 };
      requireTranslation(access.permissions, 'edit');
      // The result space stays: it is an ordinary space of the organization. Queued runs find nothing to do.
      db.prepare('DELETE FROM translations WHERE id = ?').run(row.id);
      return { status: 204 };
    },

    runTranslation({ params, caller }) {
      const access = translationAccess(ctx, caller, params.organizationId, params.translationId);
      requireTranslation(access.permissions, 'edit');
      const row = access.translation;
      if (!row.source_space_id) throw badRequest('source: the translation has no source space to translate');
      if (!liveSourceSpace(db, row)) {
        throw badRequest(`source.space: space ${row.source_space_id} no longer exists in this organization`);
      }
      queueRun(ctx, row.id);
      return { status: 204 };
    },
  };
}

/** Registers the background work of this group with the job runner. */
export function registerTranslationJobs(ctx: AppContext): void {
  ctx.jobs.register<{ translationId: string }>(RUN_JOB, {
    // A run writes nothing until it is done: after a restart it simply runs again.
    resumable: true,
    run: (jobCtx, job) => performRun(jobCtx, job.payload.translationId),
    fail: (jobCtx, job) => recordFailedRun(jobCtx, job.payload.translationId),
  });
}
