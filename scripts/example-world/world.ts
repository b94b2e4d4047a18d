// The world the contract's examples are written in (`@opExample` in spec/, checked by test/api/examples.test.ts): the
// demo organization, seeded, and made through the API what the seed format cannot hold; the ids the server makes
// paired with the examples' (`made`), the addresses outside it served on 127.0.0.1 (`outside`), its records made at
// fixed times (`WORLD_START`).
// The world and its rules: test/README.md, "The examples' world".
import type { RequestListener } from 'node:http';
import type { DocsClient } from '../../client/index.ts';
import type { ManualClock } from '../../server/common/clock.ts';
import type { SeedFixture } from '../../server/start/seed.ts';

export const WORLD_START = '2026-11-25T07:00:00.000Z';

/** The organization of the examples, its admin (who sends every example's request) and its admin's token. */
export const ORGANIZATION = 'demo';
export const ADMIN = 'demo-admin';
export const ADMIN_TOKEN = 'demo-admin-token';

/** Ids the examples use for seeded records. */
export const IDS = {
  collection: '0Vby0wpS00BV1HsL7l00XB',
  engineering: '0Vby0wrD00Tq8Wn3HkJf2X',
  handbook: '0Vby0wpu00D991cSl5LhmQ',
  apiReference: '0Vby0wra00cad2BNt16evV',
  team: '0Vby0wqo00TPjFeKcwfHCB',
  welcomePage: '0Vby0wsA00Qm4Tz8LpWcR2',
  installPage: '0Vby0wsB00Hn7Kd2XvYe5S',
  guidesPage: '0Vby0wsC00Jp3Wf6NbZg8T',
  configurationPage: '0Vby0wsD00Lr9Yh1QcAk4U',
  overviewPage: '0Vby0wsE00Ns2Bj5RdCm7V',
} as const;

export const EXAMPLE_SEED: SeedFixture = {
  users: [
    { id: ADMIN, displayName: 'Demo Admin', email: 'admin@demo.example', tokens: [ADMIN_TOKEN] },
    { id: 'ada', displayName: 'Ada Lovelace', email: 'ada@demo.example', tokens: ['ada-token'] },
    { id: 'grace', displayName: 'Grace Hopper', email: 'grace@demo.example', tokens: ['grace-token'] },
    { id: 'alan', displayName: 'Alan Turing', email: 'alan@partner.example', tokens: ['alan-token'] },
  ],
  organizations: [
    {
      id: ORGANIZATION,
      title: 'Demo organization',
      emailDomains: ['demo.example'],
      members: [
        { user: ADMIN, role: 'admin' },
        { user: 'ada', role: 'edit' },
        { user: 'grace', role: 'review' },
      ],
      collections: [
        { id: IDS.collection, title: 'Product documentation' },
        { id: IDS.engineering, title: 'Engineering' },
      ],
      spaces: [
        {
          id: IDS.handbook,
          title: 'Developer handbook',
          parent: IDS.collection,
          pages: [
            {
              id: IDS.welcomePage,
              title: 'Welcome',
              slug: 'welcome',
              description: 'What the handbook covers.',
              markdown: '# Welcome\n\nThis handbook explains how to build on the platform. Start with [Installation](installation).\n',
            },
            {
              id: IDS.installPage,
              title: 'Installation',
              slug: 'installation',
              markdown: '# Installation\n\nInstall the command-line tool, then read [Configuration](guides/configuration).\n\nSee also the [API reference](https://docs.example.com/api).\n',
            },
            {
              id: IDS.guidesPage,
              title: 'Guides',
              slug: 'guides',
              pages: [
                {
                  id: IDS.configurationPage,
                  title: 'Configuration',
                  slug: 'configuration',
                  markdown: '# Configuration\n\nSettings are read from `docs.yaml`. Back to [Welcome](../welcome).\n',
                },
              ],
            },
          ],
        },
        {
          id: IDS.apiReference,
          title: 'API reference',
          visibility: 'public',
          pages: [{ id: IDS.overviewPage, title: 'Overview', slug: 'overview', markdown: '# Overview\n\nEvery endpoint of the API.\n' }],
        },
      ],
      teams: [{ id: IDS.team, title: 'Technical writers', members: [{ user: 'ada', role: 'owner' }], spaces: [IDS.handbook] }],
    },
    {
      id: 'partner',
      title: 'Partner organization',
      emailDomains: ['partner.example'],
      members: [
        { user: 'alan', role: 'admin' },
        { user: ADMIN, role: 'admin' },
      ],
    },
  ],
};

/** What a part of the world is built with. */
export interface WorldMaker {
  /** A typed client as `user` (a seeded user's id; the admin by default). */
  as(user?: string): DocsClient;
  clock: ManualClock;
  /** Records that the server made `id` for the record the examples name `exampleId`; returns `id`. */
  made(exampleId: string, id: string): string;
  /** The server's id of a record the examples name `exampleId` (made by an earlier part). */
  id(exampleId: string): string;
  /** The address the test serves an address of the examples' outside world at (`https://www.example.com/docs`…). */
  outside(exampleUrl: string): string;
  /** Waits until the server's background work has ended. */
  settled(): Promise<void>;
}

/**
 * One part of the world: the records of some resource groups the seed cannot hold, made through the API (`build`), and
 * the services outside the server they need, by the origin the examples name them with (`outside`: a website to
 * import, a Git repository…), which the test serves on 127.0.0.1.
 */
export interface WorldPart {
  build(maker: WorldMaker): Promise<void>;
  outside?: Record<string, RequestListener>;
  /** Removes what the part keeps outside the server (a repository's folder), once the examples have run. */
  close?(): Promise<void>;
}

/** Fails with the answer's error when a call of the world's making was refused. */
export function made<T>(answer: { data?: T; error?: unknown; response: Response }, what: string): T {
  if (answer.error !== undefined || answer.data === undefined) {
    throw new Error(`the examples' world: ${what} was refused (${answer.response.status}): ${JSON.stringify(answer.error)}`);
  }
  return answer.data;
}

/** Fails with the answer's error when a call of the world's making that answers no body was refused. */
export function done(answer: { error?: unknown; response: Response }, what: string): void {
  if (!answer.response.ok) throw new Error(`the examples' world: ${what} was refused (${answer.response.status}): ${JSON.stringify(answer.error)}`);
}
