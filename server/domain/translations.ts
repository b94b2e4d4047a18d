// Translations: rows, the caller's permissions, the operations on them, how the API shows them, and their runs
// (queued when a translation with a source is created or run, performed by the `translation-run` job): read the
// source space's current content, translate it, and write it as a new revision of the result space, created on the
// first run.
import type { Caller } from '../auth/caller.ts';
import { atLeast, type Membership } from '../auth/roles.ts';
import { type AppContext, inWrite, reading, type Scope } from '../context/context.ts';
import { nodeText } from '../content/document.ts';
import { commitSpaceContent, currentRevision } from '../content/revisions.ts';
import { type Language, type TranslatedContent, translateContent, translatorOf } from '../content/translate.ts';
import { badRequest, DomainError, forbidden, notFound } from '../common/errors.ts';
import type { Input, Model } from '../common/contract.ts';
import { rowParser } from '../store/enums.ts';
import { enqueue, type Job, type JobRunner } from '../jobs/runner.ts';
import { type Db, fromJson, toJson } from '../store/db.ts';
import { queueState } from '../store/jobs.ts';
import * as translations from '../store/translations.ts';
import { newId } from '../common/ids.ts';
import { organizationAccess, organizationPermissions, type OrganizationAccess } from './organizations.ts';
import type { Key } from '../common/paging.ts';
import { EDIT_MODES, getSpaceRow, insertSpace, spaceAccess, type SpaceRow } from './spaces.ts';
import type { Row } from '../store/schema.ts';

export type TranslationRow = Row<'translations', { language: Language; sourceLanguage: Language | null; status: Model<'TranslationStatus'> }>;

/** Per `Language`: one entry per language of the contract. */
const LANGUAGES = {
  en: true, fr: true, de: true, es: true, it: true, pt: true, 'pt-br': true, ru: true, ja: true, zh: true,
  'zh-tw': true, yue: true, ko: true, ar: true, hi: true, nl: true, pl: true, tr: true, sv: true, no: true, da: true,
  fi: true, el: true, cs: true, hu: true, ro: true, th: true, vi: true, id: true, ms: true, he: true, uk: true,
  sk: true, bg: true, hr: true, lt: true, lv: true, et: true, sl: true,
} satisfies Record<Language, true>;

/** Per `TranslationStatus`: one entry per status of a translation. */
const TRANSLATION_STATUSES = { pending: true, running: true, completed: true } satisfies Record<Model<'TranslationStatus'>, true>;

/** A `translations` row checked: its languages and status are members of their enumerations. */
export const parseTranslationRow = rowParser<TranslationRow>('translations', {
  language: LANGUAGES,
  sourceLanguage: LANGUAGES,
  status: TRANSLATION_STATUSES,
});

export type TranslationPermissions = Model<'TranslationPermissions'>;

export const RUN_JOB = 'translation-run';
const runResource = (translationId: string) => `translation:${translationId}`;

/** What a member may do with the organization's translations: view from `read`, edit and run with `createContent`. */
export function translationPermissions(membership: Membership | undefined): TranslationPermissions {
  return {
    view: membership !== undefined && atLeast(membership.role, 'read'),
    edit: organizationPermissions(membership).createContent,
  };
}

export function requireTranslation(permissions: TranslationPermissions, permission: keyof TranslationPermissions): void {
  if (!permissions[permission]) {
    throw forbidden(`this operation needs the ${permission} permission on the organization's translations`);
  }
}

export async function getTranslationRow(db: Db, id: string): Promise<TranslationRow | undefined> {
  const row = await translations.get(db, id);
  return row === undefined ? undefined : parseTranslationRow(row);
}

export interface TranslationsAccess {
  organization: OrganizationAccess;
  permissions: TranslationPermissions;
}

/** The organization's translations as the caller may use them (404 outside the organization). */
export async function translationsAccess(ctx: Scope, caller: Caller, organizationId: string): Promise<TranslationsAccess> {
  const organization = await organizationAccess(ctx, caller, organizationId);
  return { organization, permissions: translationPermissions(organization.membership) };
}

/** The organization's translations, when the caller may view them (404 outside the organization, 403 without `view`). */
export async function viewTranslations(ctx: Scope, caller: Caller, organizationId: string): Promise<TranslationsAccess> {
  const access = await translationsAccess(ctx, caller, organizationId);
  requireTranslation(access.permissions, 'view');
  return access;
}

/** A translation the caller may view: 404 when unknown (or of another organization), 403 without `view`. */
export async function translationAccess(
  ctx: Scope,
  caller: Caller,
  organizationId: string,
  translationId: string,
): Promise<TranslationsAccess & { translation: TranslationRow }> {
  // Read together (one round trip on PostgreSQL): the translation is read whatever the access, shown only once it allows.
  const [access, translation] = await Promise.all([translationsAccess(ctx, caller, organizationId), getTranslationRow(ctx.db, translationId)]);
  if (!translation || translation.organizationId !== organizationId) throw notFound(`translation ${translationId}`);
  requireTranslation(access.permissions, 'view');
  return { ...access, translation };
}

export function presentTranslation(
  ctx: AppContext,
  row: TranslationRow,
  permissions: TranslationPermissions,
): Model<'Translation'> {
  const instructions = fromJson<Model<'Document'> | null>(row.instructions, null);
  return {
    object: 'translation',
    id: row.id,
    status: row.status,
    ...(row.sourceSpaceId
      ? { source: { space: row.sourceSpaceId, ...(row.sourceLanguage ? { language: row.sourceLanguage } : {}) } }
      : {}),
    language: row.language,
    ...(instructions ? { instructions } : {}),
    ...(row.resultSpaceId
      ? {
          result: {
            space: row.resultSpaceId,
            ...(row.resultRevisionId ? { revision: row.resultRevisionId } : {}),
          },
        }
      : {}),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    stats: {
      runs: row.runs,
      totalWords: row.totalWords,
      totalPages: row.totalPages,
      totalDuration: row.totalDuration,
      ...(row.latestRunDuration !== null ? { latestRunDuration: row.latestRunDuration } : {}),
      ...(row.latestPages !== null ? { latestPages: row.latestPages } : {}),
      ...(row.latestWords !== null ? { latestWords: row.latestWords } : {}),
    },
    permissions,
    urls: { location: ctx.urls.api(`/v1/orgs/${row.organizationId}/translations/${row.id}`) },
  };
}

/** The translations of an organization, by creation date, for `ctx.cursors.page`. */
export function translationListing(ctx: Scope, organizationId: string) {
  return {
    key: (row: TranslationRow): Key => [row.createdAt, row.id],
    count: () => translations.count(ctx.db, organizationId),
    fetch: async (key: Key | undefined, limit: number) => (await translations.page(ctx.db, organizationId, key, limit)).map(parseTranslationRow),
  };
}

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

/** The source must be a live space of the organization that the caller can view, in another language. */
async function checkSource(ctx: Scope, caller: Caller, organizationId: string, body: Input<'CreateTranslationRequest'>): Promise<void> {
  const source = body.source;
  if (!source) return;
  let space;
  try {
    space = (await spaceAccess(ctx, caller, source.space)).space;
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
  }
  if (!space || space.organizationId !== organizationId) {
    throw badRequest(`source.space: no space ${source.space} in this organization that you can view`);
  }
  const from = source.language ?? space.language;
  if (from === body.language) throw badRequest(`language: the source is already in ${body.language}`);
}

/** Creates a translation of the organization, as the caller; with a source, its first run is queued. */
export async function createTranslation(
  ctx: Scope,
  caller: Caller,
  organizationId: string,
  body: Input<'CreateTranslationRequest'>,
): Promise<Model<'Translation'>> {
  const access = await translationsAccess(ctx, caller, organizationId);
  requireTranslation(access.permissions, 'edit');
  await checkSource(ctx, caller, organizationId, body);
  const id = newId();
  const now = ctx.now();
  await translations.insert(ctx.db, {
    id,
    organizationId: organizationId,
    language: body.language,
    sourceSpaceId: body.source?.space ?? null,
    sourceLanguage: body.source?.language ?? null,
    instructions: body.instructions ? instructionsJson(body.instructions) : null,
    createdAt: now,
    updatedAt: now,
  });
  if (body.source) await queueRun(ctx, id);
  return presentTranslation(ctx, (await getTranslationRow(ctx.db, id))!, access.permissions);
}

/** Replaces the instructions of a translation, as the caller. */
export async function updateTranslation(
  ctx: Scope,
  caller: Caller,
  organizationId: string,
  translationId: string,
  body: Input<'UpdateTranslationRequest'>,
): Promise<Model<'Translation'>> {
  const access = await translationAccess(ctx, caller, organizationId, translationId);
  requireTranslation(access.permissions, 'edit');
  await translations.update(ctx.db, translationId, { instructions: instructionsJson(body.instructions), updatedAt: ctx.now() });
  return presentTranslation(ctx, (await getTranslationRow(ctx.db, translationId))!, access.permissions);
}

/** Deletes a translation of the organization, when there is one. */
export async function deleteTranslation(ctx: Scope, caller: Caller, organizationId: string, translationId: string): Promise<void> {
  const access = await translationsAccess(ctx, caller, organizationId);
  const row = await getTranslationRow(ctx.db, translationId);
  if (!row || row.organizationId !== organizationId) return;
  requireTranslation(access.permissions, 'edit');
  // The result space stays: it is an ordinary space of the organization. Queued runs find nothing to do.
  await translations.remove(ctx.db, row.id);
}

/** Queues another run of a translation, as the caller: its source space must still be there to translate. */
export async function queueTranslationRun(ctx: Scope, caller: Caller, organizationId: string, translationId: string): Promise<void> {
  const access = await translationAccess(ctx, caller, organizationId, translationId);
  requireTranslation(access.permissions, 'edit');
  const row = access.translation;
  if (!row.sourceSpaceId) throw badRequest('source: the translation has no source space to translate');
  if (!(await liveSourceSpace(ctx.db, row))) {
    throw badRequest(`source.space: space ${row.sourceSpaceId} no longer exists in this organization`);
  }
  await queueRun(ctx, row.id);
}

/** The source space of a translation, when it can still be translated: live and in the translation's organization. */
export async function liveSourceSpace(db: Db, row: TranslationRow): Promise<SpaceRow | undefined> {
  const space = row.sourceSpaceId ? await getSpaceRow(db, row.sourceSpaceId) : undefined;
  return space && space.deletedAt === null && space.organizationId === row.organizationId ? space : undefined;
}

/** Queues a run (inside the request's write): the translation is `pending`, or stays `running` behind a run. */
export async function queueRun(ctx: Scope, translationId: string): Promise<void> {
  const now = ctx.now();
  await enqueue(ctx, { kind: RUN_JOB, resource: runResource(translationId), payload: { translationId }, createdAt: now });
  const status = (await queueState(ctx.db, runResource(translationId))).running ? 'running' : 'pending';
  await translations.update(ctx.db, translationId, { status, updatedAt: now });
}

/** The status once a run is over: `pending` when another run is queued, `completed` otherwise. */
const statusAfterRun = async (db: Db, translationId: string) =>
  (await queueState(db, runResource(translationId))).queued ? 'pending' : 'completed';

/**
 * Performs one run: reads the source outside any transaction, translates it (which may wait on a translation
 * service), then writes the result in a write of its own. Throws, with the reason, when it cannot be done; the
 * translation then keeps its result. The job's `signal` stops the translation when the run is no longer this
 * instance's (its writes are refused then anyway: the job's lease, `inWrite`); the write of the result ends the job.
 */
export async function performRun(ctx: AppContext, translationId: string, job: Pick<Job, 'signal' | 'done'>): Promise<void> {
  const started = ctx.clock.now().getTime();
  const row = await inWrite(ctx, async (scope) => {
    const current = await getTranslationRow(scope.db, translationId);
    if (current) await translations.update(scope.db, translationId, { status: 'running' });
    return current;
  });
  if (!row) return; // deleted meanwhile
  const { db } = reading(ctx);
  const source = await liveSourceSpace(db, row);
  if (!source) throw new Error(`source space ${row.sourceSpaceId} no longer exists in the organization`);
  const instructions = fromJson<Model<'Document'> | null>(row.instructions, null);
  const from = row.sourceLanguage ?? source.language;
  const translated = await translateContent((await currentRevision(db, source)).content, translatorOf(ctx), {
    ...(from ? { from } : {}),
    to: row.language,
    instructions: instructions?.nodes.map(nodeText).join('\n') ?? '',
    signal: job.signal,
  });
  await inWrite(ctx, async (scope) => {
    await recordRun(scope, translationId, source, translated, started);
    await job.done(scope.db);
  });
}

/** Writes a run's content into the result space (creating it when there is none) and its statistics. */
async function recordRun(
  ctx: Scope,
  translationId: string,
  source: SpaceRow,
  translated: TranslatedContent,
  started: number,
): Promise<void> {
  const { db } = ctx;
  const row = await getTranslationRow(db, translationId);
  if (!row) return;
  const now = ctx.now();
  const existing = row.resultSpaceId ? await getSpaceRow(db, row.resultSpaceId) : undefined;
  let result: { space: string; revision: string };
  // A result space that was deleted or moved to another organization is left alone: the run writes a new one.
  if (existing && existing.deletedAt === null && existing.organizationId === row.organizationId) {
    if (EDIT_MODES[existing.editMode].locked) throw new Error(`the result space ${existing.id} is locked (editMode: locked)`);
    const revision = await commitSpaceContent(db, existing.id, [existing.revisionId], translated.content, now);
    result = { space: existing.id, revision: revision.id };
  } else {
    const space = await insertSpace(
      ctx,
      {
        organizationId: row.organizationId,
        title: `${source.title} (${row.language})`.slice(0, 255),
        language: row.language,
        ...(source.parentId ? { parent: source.parentId } : {}),
      },
      translated.content,
    );
    result = { space: space.id, revision: space.revisionId };
  }
  const duration = Math.max(0, ctx.clock.now().getTime() - started);
  await translations.recordRun(db, translationId, {
    status: await statusAfterRun(db, translationId),
    resultSpaceId: result.space,
    resultRevisionId: result.revision,
    words: translated.words,
    pages: translated.pages,
    duration,
    updatedAt: now,
  });
}

/** A failed run leaves the result and statistics as they were; the status moves on as after any run. */
export async function recordFailedRun(ctx: Scope, translationId: string): Promise<void> {
  await translations.update(ctx.db, translationId, { status: await statusAfterRun(ctx.db, translationId), updatedAt: ctx.now() });
}

/** Registers the background work of translations with the job runner. */
export function registerTranslationJobs(runner: JobRunner): void {
  runner.register<{ translationId: string }>(RUN_JOB, {
    // A run writes nothing until it is done: after a restart it simply runs again.
    resumable: true,
    run: (ctx, job) => performRun(ctx, job.payload.translationId, job),
    fail: (ctx, job) => recordFailedRun(ctx, job.payload.translationId),
  });
}
