// The conformance runner: checks that the implementation answers, serves its own fixtures (a website, a Git
// repository), then runs its phases, the scenario (scenario.ts) and the property phase (property/phase.ts), through one
// session (session.ts: every answer validated against the contract, the invalid inputs derived from it, a report per
// operation). `runConformance(options)` is what the CLI and the tests use. The phases take the session from
// session.ts, never from here: only the entry points (cli.ts, junit.ts's report) import this module.
import { contractIdentity } from '../records/consumer.ts';
import { CONTENT_REF, createBareRepository, type LocalFixtures, type LocalRepository, serveFixtures } from './fixtures.ts';
import { type Coverage, emptyCoverage, recordAnswer } from '../contract/coverage.ts';
import { type PropertyOptions, type PropertyReport, runPropertyPhase } from './property/phase.ts';
import { runScenario } from './scenario.ts';
import { DEFAULTS, errorMessage, Session, type SessionOptions, type SessionReport, UsageError } from './session.ts';

export { UsageError };

export interface ConformanceOptions extends SessionOptions {
  /** The property-based phase after the scenario (on by default; `false` turns it off). See property/phase.ts. */
  property?: PropertyOptions | false;
}

export interface Report extends SessionReport {
  /** Per operation, its declared statuses and those the run saw answered (coverage.ts: the harness's format too). */
  coverage: Coverage;
  /** The property phase: its seed, budget and one result per operation and check (absent when it was off). */
  property?: PropertyReport;
  /** The `info.version` of the contract checked against, and the SHA-256 of its document (can-i-deploy --verification). */
  contractVersion: string;
  contractSha256: string;
}

/** The run could not start: the implementation is unreachable, the token is refused, no organization to work in (exit 3). */
export class PreflightError extends Error {}

/** The last line of the CLI: `conformance: X/Y operations exercised, Z violations`. */
export function summaryLine(report: Report): string {
  const { summary } = report;
  return `conformance: ${summary.exercised}/${summary.operations - summary.excluded} operations exercised, ${summary.violations} violations`;
}

/** Whether the run passed: no violation, and every operation that is not excluded exercised. */
export const passed = (report: Report): boolean => report.summary.violations === 0 && report.notExercised.length === 0;

/**
 * The outcome the command's exit code gives: `passed` (0); `failed` (1): a violation, or an operation not exercised
 * for a reason the runner does not know; `skipped` (4): no violation, and every operation not exercised was skipped
 * because the implementation refused to reach the runner's address or repository (or what needed it).
 */
export function outcome(report: Report): 'passed' | 'failed' | 'skipped' {
  if (passed(report)) return 'passed';
  if (report.summary.violations > 0) return 'failed';
  const skipped = new Set(report.skipped ?? []);
  return report.notExercised.every((id) => skipped.has(id)) ? 'skipped' : 'failed';
}

/** Runs the whole scenario against `options.baseUrl` and returns the report. */
export async function runConformance(options: ConformanceOptions): Promise<Report> {
  const startedAt = new Date();
  const session = new Session(options);
  // The contract's identity, as a usage record names it, taken before anything reads the document.
  const { version: contractVersion, sha256: contractSha256 } = contractIdentity(session.contract);
  let fixtures: LocalFixtures | undefined;
  let repository: LocalRepository | undefined;
  const chosen: { organization?: string; targetOrganization?: string } = {};
  await preflight(session);
  let propertyReport: PropertyReport | undefined;
  try {
    const host = options.serveHost ?? DEFAULTS.serveHost;
    if (!options.gitUrl) repository = await createBareRepository();
    fixtures = await serveFixtures({
      host,
      ...(repository ? { gitdir: repository.url } : {}),
      ...(options.serveBind ? { bind: options.serveBind } : {}),
      ...(options.servePort !== undefined ? { port: options.servePort } : {}),
    }).catch((error: unknown) => {
      const where = `${options.serveBind ?? host}${options.servePort !== undefined ? `:${options.servePort}` : ''}`;
      throw new UsageError(`cannot serve the website and tunnel on ${where} (${(error as Error).message}): check --serve-host, --serve-bind and --serve-port`);
    });
    // The property phase runs after the scenario's steps, before the resources they share are deleted (their ids
    // are the real ids it works with); after the whole scenario when no group had shared clean-up.
    const property = options.property === false ? undefined : (options.property ?? {});
    if (property) {
      session.beforeSharedCleanup = async () => {
        propertyReport = await runPropertyPhase(session, property);
      };
    }
    await runScenario(session, {
      fixtures,
      // The runner's repository over HTTP from its own address, then as a local path; or --git-url alone.
      gitUrls: options.gitUrl ? [options.gitUrl] : [fixtures.gitUrl!, repository!.url],
      template: options.template ?? DEFAULTS.template,
      ...(options.gitUrl
        ? options.contentRef ? { contentGit: { urls: [options.gitUrl], ref: options.contentRef } } : {}
        : { contentGit: { urls: [fixtures.gitUrl!, repository!.url], ref: CONTENT_REF } }),
      chosen,
    });
    if (session.beforeSharedCleanup) {
      session.beforeSharedCleanup = undefined;
      propertyReport = await runPropertyPhase(session, property!);
    }
  } finally {
    // Whatever the implementation made for the run and the groups did not delete, by id (ledger.ts).
    await session.sweep().catch((error: unknown) => session.note(`clean-up: runner error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`));
    await fixtures?.close();
    repository?.remove();
  }
  const sessionReport = session.report(startedAt, chosen);
  const coverage = emptyCoverage(session.contract);
  for (const [operationId, operation] of session.contract.operations) {
    for (const status of sessionReport.operations[operationId]?.statuses ?? []) recordAnswer(coverage, operation, status);
  }
  const report = { ...sessionReport, coverage, contractVersion, contractSha256: contractSha256! };
  return propertyReport ? { ...report, property: propertyReport } : report;
}

/**
 * Before the scenario: one `listOrganizations` with the token. An unreachable base URL, a refused token, an address
 * that is not the API, or no organization to work in is a PreflightError with the cause in one line.
 */
async function preflight(session: Session): Promise<void> {
  const { options } = session;
  const operation = session.contract.operations.get('listOrganizations');
  if (!operation) return;
  const url = session.url(operation, {}, { limit: 1000 });
  const timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
  let response: Response;
  let text: string;
  try {
    response = await (options.fetch ?? globalThis.fetch)(url, {
      headers: { authorization: `Bearer ${options.token}`, accept: 'application/json', 'user-agent': 'docs-conformance' },
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    text = await response.text();
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (cause?.code ?? cause?.message ?? (error as Error).message);
    throw new PreflightError(`cannot reach ${session.baseUrl} (${reason}): check --base-url and that the implementation is running`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const request = `GET ${url.slice(session.baseUrl.length)}`;
  if (response.status === 401 || response.status === 403) {
    throw new PreflightError(`the token was refused: ${request} answered ${response.status}${errorMessage(json)}: check --token`);
  }
  const items = (json as { items?: unknown } | undefined)?.items;
  if (response.status !== 200 || !Array.isArray(items)) {
    throw new PreflightError(
      `${session.baseUrl} does not answer like the API: ${request} answered ${response.status}${errorMessage(json)}` +
        ` instead of a list of organizations: check --base-url (the address without /v1)`,
    );
  }
  const organizations = items as { id?: unknown; permissions?: { admin?: unknown } }[];
  if (options.organization) {
    if (!organizations.some((organization) => organization.id === options.organization)) {
      throw new PreflightError(`organization ${options.organization} is not one of the token's organizations: check --organization`);
    }
  } else if (!organizations.some((organization) => organization.permissions?.admin === true)) {
    throw new PreflightError('the token is admin of no organization: give a token of an organization admin');
  }
}
