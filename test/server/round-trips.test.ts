// What each operation costs PostgreSQL's client in statements and round trips: every operation the server implements,
// sent as its example to a server on PostgreSQL holding the examples' world, each counted on its second request (its
// first prepares its statements), against the tables below, which fail the test when an operation's figures grow.
// Why and how they are counted: test/README.md, "Round trips of each operation".
import { afterAll, beforeAll, expect, test } from 'vitest';
import { Connections, Held } from '../../server/store/postgres/connections.ts';
import type { OperationExample } from '../../server/http/example-answers.ts';
import { benchedExamples, benchSeed, type Change, FRESH, requestOf, sendAsAdmin, type SentRequest } from '../../bench/operation-requests.ts';
import { startOutside, type Outside } from '../../scripts/example-world/outside.ts';
import { buildWorld, WORLD_PARTS } from '../../scripts/example-world/parts.ts';
import { ADMIN_TOKEN, WORLD_START } from '../../scripts/example-world/world.ts';
import { postgresRuns } from '../support/databases.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Per read, the most statements (each sent to PostgreSQL, BEGIN included; a read's COMMIT leaves with the next statement
 * sent on its connection, and is not counted) and round trips (turns of the event loop in which the request sent any:
 * what one turn sends leaves in one write and waits for one answer) of one request. Lower them when an operation needs
 * fewer; a figure that grows fails the test. A list page's count of changes (the list-page cache) counts here.
 */
const MOST_READS: Record<string, [statements: number, roundTrips: number]> = {
  getCollection: [3, 1],
  listCollectionSpaces: [8, 5],
  listOrganizationsByEmailDomain: [3, 1],
  listIntegrations: [8, 5],
  getIntegration: [4, 1],
  listIntegrationEvents: [7, 4],
  getIntegrationEvent: [5, 2],
  listIntegrationInstallations: [8, 5],
  renderIntegrationBlock: [3, 1],
  listIntegrationSites: [8, 5],
  listIntegrationSpaces: [8, 5],
  listOrganizations: [6, 3],
  getOrganization: [3, 1],
  listCollections: [7, 4],
  listMembers: [10, 5],
  getMember: [7, 1],
  listMemberSpaces: [10, 6],
  listMemberTeams: [11, 5],
  listOpenAPISpecs: [7, 4],
  getOpenAPISpec: [4, 1],
  listOpenAPISpecVersions: [8, 4],
  getLatestOpenAPISpecVersion: [5, 1],
  getLatestOpenAPISpecVersionContent: [5, 1],
  getOpenAPISpecVersion: [5, 1],
  getOpenAPISpecVersionContent: [5, 1],
  listSamlProviders: [11, 5],
  getSamlProvider: [8, 2],
  searchOrganizationContent: [8, 6],
  listSites: [8, 5],
  getSite: [4, 1],
  getSiteAdaptiveSchema: [3, 1],
  listSiteAdaptiveConditionTemplates: [3, 1],
  getPublishedSite: [12, 3],
  listSiteSectionGroups: [12, 5],
  listSiteSections: [12, 5],
  listSiteSpaces: [12, 5],
  listSpaces: [8, 5],
  listSsoLoginInfo: [4, 1],
  listTeams: [10, 5],
  getTeam: [8, 1],
  listTranslations: [7, 4],
  getTranslation: [4, 1],
  getSpace: [2, 1],
  listChangeRequests: [9, 5],
  getChangeRequest: [7, 2],
  listChangeRequestCommenters: [10, 5],
  listChangeRequestComments: [11, 6],
  getChangeRequestComment: [8, 2],
  listChangeRequestCommentReplies: [10, 6],
  getChangeRequestCommentReply: [7, 2],
  getChangeRequestContent: [3, 1],
  listChangeRequestFiles: [5, 3],
  getChangeRequestFile: [3, 1],
  listChangeRequestFileBacklinks: [6, 4],
  getChangeRequestPage: [3, 1],
  listChangeRequestPageLinks: [9, 7],
  listChangeRequestPages: [3, 1],
  getChangeRequestPdf: [10, 4],
  listSpaceCommenters: [9, 5],
  listSpaceComments: [10, 6],
  getSpaceComment: [7, 2],
  listSpaceCommentReplies: [9, 6],
  getSpaceCommentReply: [6, 2],
  getSpaceContent: [2, 1],
  listSpaceFiles: [4, 3],
  getSpaceFile: [2, 1],
  listSpaceFileBacklinks: [5, 4],
  getSpacePage: [2, 1],
  listSpacePageBacklinks: [6, 5],
  listSpacePageLinks: [8, 7],
  listSpacePages: [2, 1],
  getGitInfo: [1, 1],
  listSpaceLinks: [6, 5],
  searchSpaceContent: [6, 5],
};

/** The same for each write, its lock, BEGIN and COMMIT included. */
const MOST: Record<string, [statements: number, roundTrips: number]> = {
  deleteCollection: [8, 3],
  updateCollection: [7, 2],
  moveCollection: [11, 6],
  transferCollection: [13, 5],
  unpublishIntegration: [8, 3],
  publishIntegration: [9, 4],
  disableIntegrationDevMode: [7, 2],
  enableIntegrationDevMode: [7, 2],
  installIntegration: [14, 6],
  updateOrganization: [7, 2],
  createCollection: [9, 2],
  deleteOrganizationInvite: [7, 2],
  removeMember: [9, 2],
  updateMember: [11, 3],
  makeMemberSso: [12, 5],
  createOpenAPISpec: [13, 6],
  deleteOpenAPISpec: [8, 3],
  updateOpenAPISpec: [9, 4],
  putOpenAPISpec: [12, 6],
  pingOrganization: [7, 2],
  createSamlProvider: [9, 4],
  deleteSamlProvider: [7, 2],
  updateSamlProvider: [13, 4],
  createSite: [20, 9],
  deleteSite: [8, 3],
  updateSite: [14, 5],
  updateSiteAdaptiveSchema: [8, 3],
  createSiteSectionGroup: [24, 5],
  deleteSiteSectionGroup: [15, 2],
  updateSiteSectionGroup: [19, 4],
  moveSiteSectionGroup: [20, 4],
  addSiteSectionToGroup: [19, 4],
  removeSiteSectionFromGroup: [14, 2],
  createSiteSection: [25, 8],
  deleteSiteSection: [17, 3],
  updateSiteSection: [19, 4],
  moveSiteSection: [19, 4],
  createSiteSpace: [22, 7],
  deleteSiteSpace: [17, 3],
  updateSiteSpace: [19, 4],
  moveSiteSpace: [19, 4],
  sortSiteStructure: [20, 4],
  createSpace: [8, 2],
  createTeam: [10, 2],
  deleteTeam: [9, 2],
  updateTeam: [11, 2],
  createTranslation: [13, 6],
  deleteTranslation: [8, 3],
  updateTranslation: [9, 4],
  runTranslation: [12, 5],
  deleteSpace: [8, 2],
  createChangeRequest: [11, 3],
  updateChangeRequest: [10, 3],
  createChangeRequestComment: [7, 2],
  deleteChangeRequestComment: [8, 2],
  updateChangeRequestComment: [13, 4],
  createChangeRequestCommentReply: [8, 2],
  deleteChangeRequestCommentReply: [9, 2],
  updateChangeRequestCommentReply: [10, 3],
  importChangeRequestContent: [14, 5],
  mergeChangeRequest: [15, 7],
  updateChangeRequestFromMain: [7, 3],
  createSpaceComment: [6, 2],
  deleteSpaceComment: [7, 2],
  updateSpaceComment: [10, 3],
  createSpaceCommentReply: [7, 2],
  deleteSpaceCommentReply: [8, 2],
  updateSpaceCommentReply: [11, 4],
  importSpaceContent: [15, 7],
  applySpaceTemplate: [12, 5],
  duplicateSpace: [13, 6],
  exportGitRepository: [8, 2],
  importGitRepository: [8, 2],
  deleteGitLegacyInstallation: [6, 2],
  moveSpace: [11, 6],
  restoreSpace: [15, 7],
  transferSpace: [12, 6],
  updateSpace: [6, 2],
};

/** Members the bench's organization has for `removeMember` (two requests of it here). */
const MEMBERS = 4;

let server: TestServer;
let outside: Outside | undefined;
let world: { ids: Map<string, string>; origins: Map<string, string> };

/** The statements a request sends, with the turn each left in (see `counted`). */
let sent: { text: string; turn: number }[] | undefined;
let turn = 0;
let turnEnds = false;

/** Follows a statement sent while a request is counted. */
function sending(text: string): void {
  if (sent === undefined) return;
  if (!turnEnds) {
    turnEnds = true;
    setImmediate(() => {
      turn++;
      turnEnds = false;
    });
  }
  sent.push({ text, turn });
}

const read = Connections.prototype.read;
const readTogether = Connections.prototype.readTogether;
const query = Held.prototype.query;
const control = Held.prototype.control;

beforeAll(async () => {
  if (!postgresRuns()) return;
  Connections.prototype.read = function (text, parameters, prepare) {
    sending(text);
    return read.call(this, text, parameters, prepare);
  };
  Connections.prototype.readTogether = function (statements) {
    sending('BEGIN');
    for (const statement of statements) sending(statement.text);
    return readTogether.call(this, statements);
  };
  Held.prototype.query = function (text, parameters, prepare) {
    sending(text);
    return query.call(this, text, parameters, prepare);
  };
  Held.prototype.control = function (text) {
    for (const statement of text.split(';')) sending(statement);
    return control.call(this, text);
  };
  outside = await startOutside(Object.assign({}, ...WORLD_PARTS.map((part) => part.outside ?? {})));
  server = await startTestServer({
    engine: 'postgres',
    fixture: benchSeed(MEMBERS),
    startAt: WORLD_START,
    recordCoverage: false,
    env: { PUBLIC_URL: 'https://docs.example.com', LOG_LEVEL: 'silent', ALLOW_PRIVATE_NETWORKS: 'true' },
  });
  const ids = await buildWorld({
    as: (user) => server.withToken(user === undefined ? ADMIN_TOKEN : `${user}-token`),
    clock: server.clock,
    origins: outside.origins,
    settled: () => server.running.ctx.jobs.idle(),
  });
  world = { ids, origins: outside.origins };
}, 300_000);

afterAll(async () => {
  Connections.prototype.read = read;
  Connections.prototype.readTogether = readTogether;
  Held.prototype.query = query;
  Held.prototype.control = control;
  await server?.close();
  await outside?.close();
  for (const part of WORLD_PARTS) await part.close?.();
});

/** Sends `request` as the admin; its status and body. */
const send = (request: SentRequest) => sendAsAdmin(server.url, request);

let uniques = 0;
let members = 0;

/** A request of `operationId`: its example, acting on a fresh record where a second one would find its work done. */
async function requestFor(operationId: string, examples: Map<string, OperationExample>): Promise<SentRequest> {
  const example = examples.get(operationId)!;
  const fresh = FRESH[operationId];
  if (fresh === undefined) return requestOf(example, world);
  const change: Change = await fresh({
    async send(maker, makerChange) {
      const answer = await send(requestOf(examples.get(maker)!, world, makerChange));
      if (answer.status >= 300) throw new Error(`making a fresh record for ${operationId}: ${maker} answered ${answer.status} ${answer.text.slice(0, 300)}`);
      return answer.text ? (JSON.parse(answer.text) as { id: string }) : undefined;
    },
    unique: (prefix) => `${prefix}rt${++uniques}`,
    member: () => `bench-member-${members++}`,
    made: 0,
  });
  return requestOf(example, world, change);
}

/** The statements and round trips of one request, background work kept out (its jobs start after it is counted). */
async function counted(request: SentRequest): Promise<{ status: number; text: string; statements: string[]; roundTrips: number }> {
  const jobs = server.running.ctx.jobs;
  await jobs.idle();
  const kick = jobs.kick;
  jobs.kick = () => undefined;
  sent = [];
  try {
    const answer = await send(request);
    const statements = sent;
    const trips = [...new Set(statements.map((statement) => statement.turn))];
    return {
      ...answer,
      statements: statements.map((statement) => `${trips.indexOf(statement.turn) + 1}: ${statement.text.trim().replace(/\s+/g, ' ').slice(0, 100)}`),
      roundTrips: trips.length,
    };
  } finally {
    sent = undefined;
    jobs.kick = kick;
    jobs.kick();
  }
}

/**
 * Sends each of `operations` twice and counts the second; a list of each that sends more statements or waits for more
 * round trips than `most` allows, with its statements (each with its round trip's number).
 */
async function grownOf(operations: readonly OperationExample[], most: Record<string, [number, number]>, examples: Map<string, OperationExample>): Promise<string[]> {
  const figures: Record<string, [number, number]> = {};
  const grown: string[] = [];
  for (const { operationId } of operations) {
    const first = await send(await requestFor(operationId, examples));
    expect(first.status, `${operationId}: ${first.text.slice(0, 300)}`).toBeLessThan(300);
    const second = await counted(await requestFor(operationId, examples));
    expect(second.status, `${operationId}: ${second.text.slice(0, 300)}`).toBeLessThan(300);
    figures[operationId] = [second.statements.length, second.roundTrips];
    const allowed = most[operationId];
    if (allowed === undefined || second.statements.length > allowed[0] || second.roundTrips > allowed[1]) {
      grown.push(`${operationId}: ${second.statements.length} statements, ${second.roundTrips} round trips (most ${allowed?.join(', ') ?? 'none'})\n  ${second.statements.join('\n  ')}`);
    }
  }
  // ROUND_TRIPS_PRINT=1 prints the table as measured, to paste above when figures fell.
  if (process.env.ROUND_TRIPS_PRINT === '1') console.log(Object.entries(figures).map(([id, [s, r]]) => `  ${id}: [${s}, ${r}],`).join('\n'));
  return grown;
}

const examples = new Map(benchedExamples().map((example) => [example.operationId, example]));

test.skipIf(!postgresRuns())('no read sends more statements, nor waits for more round trips, than the table says', async () => {
  const reads = [...examples.values()].filter((example) => example.method === 'get');
  expect(await grownOf(reads, MOST_READS, examples), 'each statement is preceded by its round trip').toEqual([]);
}, 600_000);

test.skipIf(!postgresRuns())('no write sends more statements, nor waits for more round trips, than the table says', async () => {
  // The example of updateSpace locks the space, which other writes' examples change: it goes last.
  const writes = [...examples.values()].filter((example) => example.method !== 'get').sort((a, b) => Number(a.operationId === 'updateSpace') - Number(b.operationId === 'updateSpace'));
  expect(await grownOf(writes, MOST, examples), 'each statement is preceded by its round trip').toEqual([]);
}, 600_000);
