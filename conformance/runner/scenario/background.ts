// The scenario's groups on work an implementation does in the background, polled until it is done: an OpenAPI
// specification processed, a translation run, a space exported to a Git repository and imported from it.
import { StepFailed } from '../session.ts';
import type { SuccessBody } from '../../contract/types.ts';
import { NEEDS_GIT, type Scenario } from './context.ts';

/** An OpenAPI document given as text to createOpenAPISpec, and its second version for putOpenAPISpec. */
const openApiText = (version: string) =>
  [
    'openapi: 3.1.0',
    'info:',
    '  title: Conformance pets',
    `  version: ${version}`,
    'paths:',
    '  /pets:',
    '    get:',
    '      operationId: listPets',
    '      responses:',
    "        '200':",
    '          description: The pets.',
    '          content:',
    '            application/json:',
    '              schema:',
    '                type: array',
    '                items:',
    "                  $ref: '#/components/schemas/Pet'",
    'components:',
    '  schemas:',
    '    Pet:',
    '      type: object',
    '      required: [name]',
    '      properties:',
    '        name:',
    '          type: string',
    '',
  ].join('\n');

/** An OpenAPI specification given as text: processing, versions, a new source, visibility. */
export function openapi(sc: Scenario): Promise<void> {
  const { s, inOrg, organizationId, runId } = sc;
  return s.group('openapi', async (defer) => {
    const specSlug = `conformance-${runId}`;
    const onSpec = { organizationId, specSlug };
    await s.must(
      'createOpenAPISpec',
      { path: inOrg, body: { slug: specSlug, source: { text: openApiText('1.0.0') } } },
      { undo: (created) => s.cleanup('deleteOpenAPISpec', { path: { organizationId, specSlug: created.slug } }) },
    );
    let alive = true;
    defer(async () => {
      if (alive) await s.cleanup('deleteOpenAPISpec', { path: onSpec });
    });
    const processed = await s.poll(
      'getOpenAPISpec',
      { path: onSpec },
      (spec) => spec.processingState === 'complete' && spec.lastVersion !== undefined,
      'processing of the OpenAPI specification',
    );
    await s.call('listOpenAPISpecs', { path: inOrg, query: {} });
    await s.call('updateOpenAPISpec', { path: onSpec, body: { visibility: 'public' } });
    await s.call('listOpenAPISpecVersions', { path: onSpec, query: {} });
    const latest = await s.must('getLatestOpenAPISpecVersion', { path: onSpec });
    await s.call('getLatestOpenAPISpecVersionContent', { path: onSpec });
    await s.call('getOpenAPISpecVersion', { path: { ...onSpec, versionId: latest.id } });
    await s.call('getOpenAPISpecVersionContent', { path: { ...onSpec, versionId: latest.id } });
    await s.call('putOpenAPISpec', { path: onSpec, body: { source: { text: openApiText('1.1.0') } } });
    await s.poll(
      'getOpenAPISpec',
      { path: onSpec },
      (spec) => spec.processingState === 'complete' && spec.lastVersion !== (processed?.lastVersion ?? latest.id),
      'processing of the new source of the OpenAPI specification',
    );
    await s.call('deleteOpenAPISpec', { path: onSpec });
    alive = false;
  });
}

/** A translation of the main space: runs in the background; its result space is deleted at the end. */
export function translations(sc: Scenario): Promise<void> {
  const { s, inOrg, organizationId, main } = sc;
  return s.group('translations', async (defer) => {
    if (!main) throw new StepFailed('no space to translate');
    const translation = await s.must(
      'createTranslation',
      { path: inOrg, body: { language: 'fr', source: { space: main.id, language: 'en' } } },
      { undo: (created) => s.cleanup('deleteTranslation', { path: { organizationId, translationId: created.id } }) },
    );
    const onTranslation = { organizationId, translationId: translation.id };
    let alive = true;
    const results = new Set<string>();
    defer(async () => {
      if (alive) await s.cleanup('deleteTranslation', { path: onTranslation });
      for (const spaceId of results) await s.cleanup('deleteSpace', { path: { spaceId } });
    });
    const done = (runs: number) => (current: SuccessBody<'getTranslation'>) => {
      if (current.result?.space) results.add(current.result.space);
      return current.status === 'completed' && current.stats.runs > runs;
    };
    const first = await s.poll('getTranslation', { path: onTranslation }, done(0), 'first run of the translation');
    await s.call('listTranslations', { path: inOrg, query: {} });
    await s.call('updateTranslation', {
      path: onTranslation,
      body: { instructions: { object: 'document', data: {}, nodes: [] } },
    });
    await s.call('runTranslation', { path: onTranslation });
    await s.poll('getTranslation', { path: onTranslation }, done(first?.stats.runs ?? 1), 'second run of the translation');
    await s.call('deleteTranslation', { path: onTranslation });
    alive = false;
  });
}

/** Git: export the main space to the repository, import it into the second space, legacy installation. */
export function git(sc: Scenario): Promise<void> {
  const { s, env, runId, main, aux } = sc;
  return s.group('git', async () => {
    if (!main || !aux) throw new StepFailed('no spaces to synchronise');
    const ref = `refs/heads/docs-conformance-${runId}`;
    // The first address the implementation accepts: the runner's over HTTP, else its local path.
    let gitUrl: string | undefined;
    for (const url of env.gitUrls) {
      const started = await s.call(
        'exportGitRepository',
        { path: { spaceId: main.id }, body: { url, ref, commitMessage: 'Export by the conformance runner' } },
        { refusable: NEEDS_GIT },
      );
      if (started.ok) {
        gitUrl = url;
        break;
      }
    }
    if (gitUrl === undefined) {
      if (!s.reasons.has('exportGitRepository')) throw new StepFailed('exportGitRepository did not succeed');
      // Refused: what needs no repository is still exercised.
      s.unexercisable(['importGitRepository'], NEEDS_GIT);
      await s.call('getGitInfo', { path: { spaceId: main.id } });
      await s.call('deleteGitLegacyInstallation', { path: { spaceId: main.id } });
      return;
    }
    const exported = await s.poll('getGitInfo', { path: { spaceId: main.id } }, (info) => info.updatedAt !== undefined, 'Git export');
    if (!exported?.updatedAt) throw new StepFailed('the Git export did not complete');
    const before = await s.must('getSpace', { path: { spaceId: aux.id }, query: {} });
    await s.must('importGitRepository', { path: { spaceId: aux.id }, body: { url: gitUrl, ref } });
    await s.poll('getSpace', { path: { spaceId: aux.id }, query: {} }, (space) => space.revision !== before.revision, 'Git import');
    await s.call('deleteGitLegacyInstallation', { path: { spaceId: main.id } });
  });
}
