// The examples' world, made through the API: sites and their structure, OpenAPI specifications, translations and
// integrations.
// The story it tells: test/README.md, "The examples' world".
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { done, IDS, made, ORGANIZATION, type WorldMaker, type WorldPart } from './world.ts';

/** Ids the examples use for the records this part makes. */
const PUBLISHING_IDS = {
  releaseNotes: '0Vby0wsK00Rn5Tq8VwXy2Z',
  site: '0Vby0wsL004lyOuc4TD8HI',
  handbookSection: '0Vby0wvE00aR9sKe2LmQ7T',
  apiSection: '0Vby0wvF00kTb3XyQw1Zc8',
  releaseNotesSection: '0Vby0wvG00Mq6Rd1Tp8Hs3',
  referenceGroup: '0Vby0wvH00Gp2Nc7Wk5Jt4',
  handbookSiteSpace: '0Vby0wsL01r4GrrmzN3K3V',
  frenchSiteSpace: '0Vby0wsM01Ks8Dp3Vn6Qa7',
  apiSiteSpace: '0Vby0wsN01Lt9Eq4Wo7Rb8',
  releaseNotesSiteSpace: '0Vby0wsP01Mu1Fr5Xp8Sc9',
  petstore: '0Vby0wtG00Vld7fAR4aSfL',
  petstoreFirstVersion: '0Vby0wtH00Ab3Cd5Ef7Gh9',
  petstoreLatestVersion: '0Vby0wtJ00Bc4De6Fg8Hj1',
  frenchTranslation: '0Vby0wtT00zLF7DjOE3e2x',
  frenchHandbook: '0Vby0wtU00Fr4Hb7Kc2Ld9',
  statusBoardInstallation: '0Vby0wuA00In5St7Al9Lt2',
  statusBoardSetupEvent: '0Vby0wuB00Ev3Nt6Se8Tu1',
} as const;

/** The operations of the petstore API in its release 1.0.0; 1.1.0 adds `getPet`. */
const LIST_PETS = `  /pets:
    get:
      operationId: listPets
      summary: List the pets
      responses:
        '200':
          description: The pets
`;
const GET_PET = `  /pets/{petId}:
    get:
      operationId: getPet
      summary: Get a pet
      parameters:
        - name: petId
          in: path
          required: true
          schema:
            type: string
      responses:
        '200':
          description: The pet
`;
const GET_STOCK = `  /stock:
    get:
      operationId: getStock
      summary: Get the stock
      responses:
        '200':
          description: The stock
`;
const openapiDocument = (title: string, version: string, paths: string) => `openapi: 3.1.0\ninfo:\n  title: ${title}\n  version: ${version}\npaths:\n${paths}`;

/** The OpenAPI documents the specifications' site serves (`https://specs.example.com`), by path. */
const OPENAPI_DOCUMENTS: Record<string, string> = {
  '/petstore/1.0.0/openapi.yaml': openapiDocument('Petstore', '1.0.0', LIST_PETS),
  '/petstore/1.1.0/openapi.yaml': openapiDocument('Petstore', '1.1.0', LIST_PETS + GET_PET),
  '/inventory/openapi.yaml': openapiDocument('Inventory', '1.0.0', GET_STOCK),
};

const serveSpecs: RequestListener = (req, res) => {
  const document = OPENAPI_DOCUMENTS[new URL(req.url ?? '/', 'http://localhost').pathname];
  if (req.method !== 'GET' || document === undefined) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'content-type': 'application/yaml' }).end(document);
};

/**
 * The development tunnel of `status-board`: takes each event's payload and answers, for an installation's setup, with
 * the external id of the workspace it set up.
 */
const serveTunnel: RequestListener = (req: IncomingMessage, res: ServerResponse) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const event = JSON.parse(Buffer.concat(chunks).toString() || '{}') as { type?: string };
    const answer = event.type === 'installation_setup' ? { installation: { externalIds: ['demo-workspace'] } } : {};
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  });
};

const org = { organizationId: ORGANIZATION };

async function buildTranslation(maker: WorldMaker): Promise<void> {
  const admin = maker.as();
  const translation = made(
    await admin.POST('/v1/orgs/{organizationId}/translations', {
      params: { path: org },
      body: { language: 'fr', source: { space: IDS.handbook } },
    }),
    'the French translation of the handbook',
  );
  await maker.settled();
  maker.made(PUBLISHING_IDS.frenchTranslation, translation.id);
  const ran = made(
    await admin.GET('/v1/orgs/{organizationId}/translations/{translationId}', { params: { path: { ...org, translationId: translation.id } } }),
    'the French translation, once run',
  );
  if (!ran.result) throw new Error("the examples' world: the French translation wrote no result space");
  maker.made(PUBLISHING_IDS.frenchHandbook, ran.result.space);
}

async function buildSite(maker: WorldMaker): Promise<void> {
  const admin = maker.as();
  const releaseNotes = made(
    await admin.POST('/v1/orgs/{organizationId}/spaces', { params: { path: org }, body: { title: 'Release notes', emoji: '📣' } }),
    'the space of the release notes',
  );
  maker.made(PUBLISHING_IDS.releaseNotes, releaseNotes.id);

  const site = made(
    await admin.POST('/v1/orgs/{organizationId}/sites', {
      params: { path: org },
      body: { title: 'Developer portal', type: 'premium', visibility: 'public', spaces: [IDS.handbook] },
    }),
    'the developer portal',
  );
  const siteId = maker.made(PUBLISHING_IDS.site, site.id);
  const at = { ...org, siteId };
  made(
    await admin.PUT('/v1/orgs/{organizationId}/sites/{siteId}/adaptive-schema', {
      params: { path: at },
      body: {
        jsonSchema: {
          $schema: 'http://json-schema.org/draft-07/schema#',
          type: 'object',
          properties: { isBeta: { type: 'boolean', description: 'Visitor is in the beta program' } },
          additionalProperties: false,
        },
      },
    }),
    "the developer portal's adaptive schema",
  );

  const section = async (exampleId: string, spaceId: string, title: string, icon: string) => {
    const created = made(
      await admin.POST('/v1/orgs/{organizationId}/sites/{siteId}/sections', { params: { path: at }, body: { spaceId, title, icon } }),
      `the section ${title}`,
    );
    maker.made(exampleId, created.id);
    return created;
  };
  // The first section takes in the site space the site was created with.
  const handbook = await section(PUBLISHING_IDS.handbookSection, IDS.handbook, 'Handbook', 'book-open');
  maker.made(PUBLISHING_IDS.handbookSiteSpace, handbook.siteSpaces[0]!.id);
  const french = made(
    await admin.POST('/v1/orgs/{organizationId}/sites/{siteId}/site-spaces', {
      params: { path: at },
      body: { spaceId: maker.id(PUBLISHING_IDS.frenchHandbook), sectionId: handbook.id },
    }),
    'the French handbook in the section Handbook',
  );
  maker.made(PUBLISHING_IDS.frenchSiteSpace, french.id);
  const api = await section(PUBLISHING_IDS.apiSection, IDS.apiReference, 'API reference', 'code');
  maker.made(PUBLISHING_IDS.apiSiteSpace, api.siteSpaces[0]!.id);
  const notes = await section(PUBLISHING_IDS.releaseNotesSection, releaseNotes.id, 'Release notes', 'megaphone');
  maker.made(PUBLISHING_IDS.releaseNotesSiteSpace, notes.siteSpaces[0]!.id);
  made(
    await admin.PATCH('/v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}', {
      params: { path: { ...at, siteSectionId: notes.id } },
      body: { description: "What changed in each release.", condition: 'visitor.claims.isBeta == true' },
    }),
    'the release notes for beta visitors',
  );
  const group = made(
    await admin.POST('/v1/orgs/{organizationId}/sites/{siteId}/section-groups', {
      params: { path: at },
      body: { title: 'Reference', icon: 'book', sections: [api.id, notes.id] },
    }),
    'the section group Reference',
  );
  maker.made(PUBLISHING_IDS.referenceGroup, group.id);
}

async function buildOpenApi(maker: WorldMaker): Promise<void> {
  const admin = maker.as();
  const path = { ...org, specSlug: 'petstore' };
  const latestVersion = async (exampleId: string, what: string) => {
    await maker.settled();
    const version = made(await admin.GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions/latest', { params: { path } }), what);
    maker.made(exampleId, version.id);
  };
  const spec = made(
    await admin.POST('/v1/orgs/{organizationId}/openapi', {
      params: { path: org },
      body: { slug: 'petstore', source: { url: maker.outside('https://specs.example.com/petstore/1.0.0/openapi.yaml') } },
    }),
    'the petstore specification',
  );
  await maker.settled();
  maker.made(PUBLISHING_IDS.petstore, spec.id);
  await latestVersion(PUBLISHING_IDS.petstoreFirstVersion, 'the first version of petstore');
  made(
    await admin.PUT('/v1/orgs/{organizationId}/openapi/{specSlug}', {
      params: { path },
      body: { source: { url: maker.outside('https://specs.example.com/petstore/1.1.0/openapi.yaml') } },
    }),
    'petstore 1.1.0',
  );
  await latestVersion(PUBLISHING_IDS.petstoreLatestVersion, 'the latest version of petstore');
}

async function buildIntegration(maker: WorldMaker): Promise<void> {
  const admin = maker.as();
  const named = { integrationName: 'status-board' };
  made(
    await admin.POST('/v1/integrations/{integrationName}', {
      params: { path: named },
      body: {
        organization: ORGANIZATION,
        title: 'Status board',
        description: 'Shows the live status of your services in your pages.',
        visibility: 'public',
        target: 'all',
        scopes: ['space:content:read'],
        categories: ['analytics'],
        blocks: [
          {
            id: 'status',
            title: 'Service status',
            description: 'The current status of one service.',
            urlUnfurl: ['https://status.example.com/**'],
            markdown: { codeblock: 'status', body: 'Service **{{props.service}}** is {{props.state}}.' },
          },
        ],
        externalLinks: [{ url: 'https://status.example.com', label: 'Status page' }],
        script: 'export default { blocks: ["status"] };\n',
      },
    }),
    'the status board integration',
  );
  const tunnelUrl = maker.outside('https://tunnel.example.com/events');
  done(await admin.PUT('/v1/integrations/{integrationName}/dev', { params: { path: named }, body: { tunnelUrl, all: false } }), 'development mode of the status board');
  const installation = made(
    await admin.POST('/v1/integrations/{integrationName}/installations', { params: { path: named }, body: { organization: ORGANIZATION } }),
    'the status board installed in demo',
  );
  await maker.settled();
  maker.made(PUBLISHING_IDS.statusBoardInstallation, installation.id);
  const events = made(await admin.GET('/v1/integrations/{integrationName}/events', { params: { path: named } }), 'the events of the status board');
  maker.made(PUBLISHING_IDS.statusBoardSetupEvent, events.items[0]!.id);
}

export const publishingPart: WorldPart = {
  async build(maker) {
    await buildTranslation(maker);
    await buildSite(maker);
    await buildOpenApi(maker);
    await buildIntegration(maker);
  },
  outside: {
    'https://specs.example.com': serveSpecs,
    'https://tunnel.example.com': serveTunnel,
  },
};
