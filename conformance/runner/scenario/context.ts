// What the groups of the scenario share: the session, the environment, the organization the run works in, and the
// resources one group makes for the next ones (the main and second spaces, the collections, the caller's user); and
// why an operation may stay unexercised.
import type { LocalFixtures } from '../fixtures.ts';
import { type Session, StepFailed } from '../session.ts';
import type { SuccessBody } from '../../contract/types.ts';

export interface ScenarioEnvironment {
  fixtures: LocalFixtures;
  /**
   * The Git repository the export writes to and the import reads from, as the addresses to try in turn: the
   * runner's own over smart HTTP, then its local path; or `--git-url` alone.
   */
  gitUrls: string[];
  /** The template applySpaceTemplate applies. */
  template: string;
  /** Where a Git import takes content from when the website import does not succeed (none: the template only). */
  contentGit?: { urls: string[]; ref: string };
  /** Filled in: the organizations the run used. */
  chosen: { organization?: string; targetOrganization?: string };
}

export type Organization = SuccessBody<'getOrganization'>;
type Space = SuccessBody<'getSpace'>;
type Page = SuccessBody<'getSpacePage'>;
type User = SuccessBody<'createChangeRequest'>['createdBy'];

/** A run of the scenario, as its groups see it; the resources are set by the group that makes them, in order. */
export interface Scenario {
  s: Session;
  env: ScenarioEnvironment;
  /** Random, in the names and paths of what the run makes. */
  runId: string;
  /** A title for what the run makes: `Conformance <what> <runId>`. */
  named: (what: string) => string;
  org: Organization;
  organizationId: string;
  /** The path parameters of the organization. */
  inOrg: { organizationId: string };
  /** Where transfers send what they move; none: transfers to the organization itself, which must be a 409. */
  target: string | undefined;
  /** Deletes something when the shared resources are deleted, at the very end. */
  deferToEnd: (cleanup: () => Promise<unknown>) => void;
  collectionA?: SuccessBody<'createCollection'>;
  collectionB?: SuccessBody<'createCollection'>;
  /** The main space: its content, change requests, comments, site, translation, Git export. */
  main?: Space;
  /** The second space, in collection A. */
  aux?: Space;
  /** The main space's page the comments are on. */
  mainPage?: Page;
  /** The caller's user, learnt from what they create (a change request's createdBy, a comment's postedBy). */
  self?: User;
}

/** Every page of a tree, depth first. */
function flatten<T extends { pages?: T[] }>(pages: T[] | undefined): T[] {
  return (pages ?? []).flatMap((page) => [page, ...flatten(page.pages)]);
}

/** A document page titled `title`, else the first document page. */
export function pickPage<T extends { title: string; type: string; id: string; pages?: T[] }>(pages: T[] | undefined, title: string): T {
  const all = flatten(pages);
  const page = all.find((candidate) => candidate.title === title && candidate.type === 'document') ?? all.find((candidate) => candidate.type === 'document');
  if (!page) throw new StepFailed('the content has no document page');
  return page;
}

/** Why an operation that needs the implementation to reach the runner's own HTTP server may stay unexercised. */
export const NEEDS_ADDRESS = "needs the implementation to reach the runner's address (--serve-host)";
export const NEEDS_FILE =
  "needs a file in the content, which only the website import (the runner's address) or the Git import of the content brings";
export const NEEDS_GIT =
  "needs a Git repository the implementation accepts: the runner's own over HTTP (--serve-host; the reference server: " +
  'ALLOW_PRIVATE_ADDRESSES with its address), its local path (only for an implementation on the same machine that ' +
  'accepts local repositories; the reference server: ALLOW_LOCAL_GIT=true), or --git-url';

/**
 * One line saying what to change when the implementation refused the runner's address: for the reference server,
 * the setting the README starts it with, ALLOW_PRIVATE_ADDRESSES, with that address.
 */
export const addressHint = (url: string) =>
  `the implementation refused to fetch from the runner at ${url}: give an address it can reach with --serve-host ` +
  `(and --serve-bind), or let it reach this one (the reference server: start it with ` +
  `ALLOW_PRIVATE_ADDRESSES=${new URL(url).hostname.replace(/^\[|\]$/g, '')})`;
