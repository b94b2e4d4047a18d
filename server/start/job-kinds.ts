// The kinds of background work the domain queues, registered with the job runner at start-up (server.ts): OpenAPI
// specifications processed from their source, translations run, integration events delivered, Git imports and
// exports. Each kind's work is the domain's; the runner (runner.ts) claims, runs and retries it.
import { GIT_EXPORT_JOB, GIT_IMPORT_JOB, gitJobKind } from '../domain/git-sync.ts';
import { registerIntegrationJobs } from '../domain/integration-events.ts';
import { registerOpenAPIJobs } from '../domain/openapi.ts';
import { registerTranslationJobs } from '../domain/translations.ts';
import type { JobRunner } from '../jobs/runner.ts';

export function registerJobKinds(runner: JobRunner): void {
  registerOpenAPIJobs(runner);
  registerTranslationJobs(runner);
  registerIntegrationJobs(runner);
  runner.register(GIT_IMPORT_JOB, gitJobKind);
  runner.register(GIT_EXPORT_JOB, gitJobKind);
}
