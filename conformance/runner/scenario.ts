// The scenario: every operation of the contract, in an order where each step has what it needs, with only a token
// that is admin of one organization. Each step names an operationId and its typed parameters; the runner builds the
// request. The groups (scenario/, by what they work on, sharing a `Scenario`: scenario/context.ts) stop at the first
// failure their later steps depend on and always delete what they made; shared resources go at the very end.
import { randomBytes } from 'node:crypto';
import { type Session, StepFailed } from './session.ts';
import { content, changeRequests, search, spaceComments } from './scenario/content.ts';
import type { Organization, Scenario, ScenarioEnvironment } from './scenario/context.ts';
import { git, openapi, translations } from './scenario/background.ts';
import { integrations } from './scenario/integrations.ts';
import { members, organization, saml, teams } from './scenario/organization.ts';
import { sites } from './scenario/sites.ts';
import { collections, spaces, spacesAndCollections } from './scenario/spaces.ts';

/**
 * The groups of the shared resources, in order: each has what the ones before it made (the spaces before their
 * content, a change request or a comment before the caller's user is known, the content before the search).
 */
const GROUPS: ((sc: Scenario) => Promise<void>)[] = [
  collections,
  spaces,
  organization,
  content,
  changeRequests,
  spaceComments,
  search,
  teams,
  members,
  saml,
  sites,
  integrations,
  openapi,
  translations,
  git,
  spacesAndCollections,
];

export async function runScenario(s: Session, env: ScenarioEnvironment): Promise<void> {
  const runId = randomBytes(4).toString('hex');
  const chosen = await chooseOrganizations(s, env);
  if (!chosen) return;
  const { org, target } = chosen;
  // ---- Resources shared by several groups, deleted at the very end.
  await s.group('shared resources', async (deferToEnd) => {
    const sc: Scenario = {
      s,
      env,
      runId,
      named: (what) => `Conformance ${what} ${runId}`,
      org,
      organizationId: org.id,
      inOrg: { organizationId: org.id },
      target,
      deferToEnd,
    };
    for (const group of GROUPS) await group(sc);
  });
}

/**
 * The organization the run works in (`--organization`, else the first the token is admin of) and the one transfers
 * send to (`--target-organization`, else another where the token may create content): the only thing the runner is
 * given is a token. Undefined when there is none to work in (the `setup` group notes why).
 */
async function chooseOrganizations(s: Session, env: ScenarioEnvironment): Promise<{ org: Organization; target: string | undefined } | undefined> {
  let org: Organization | undefined;
  let target: string | undefined;
  await s.group('setup', async () => {
    const list = await s.must('listOrganizations', { query: { limit: 1000 } });
    const wanted = s.options.organization;
    org = wanted
      ? list.items.find((candidate) => candidate.id === wanted)
      : list.items.find((candidate) => candidate.permissions.admin);
    if (!org) {
      throw new StepFailed(
        wanted ? `organization ${wanted} is not one of the token's organizations` : 'the token is admin of no organization',
      );
    }
    const main = org.id;
    target = s.options.targetOrganization ?? list.items.find((candidate) => candidate.id !== main && candidate.permissions.createContent)?.id;
    env.chosen.organization = org.id;
    if (target) env.chosen.targetOrganization = target;
    s.log(`organization ${org.id}${target ? `, transfers to ${target}` : ', no second organization: transfers expect 409'}`);
  });
  return org ? { org, target } : undefined;
}
