// The added operation of docs/changing-the-contract.md (bench/save.ts's ADDED_OPERATION, getTeamStats), taken
// the rest of the way in a copy of the repository, as that page says to after `npm run scaffold -- getTeamStats`: its
// domain function written, its entry in server/handlers/pending.ts removed. test/tooling/readme.test.ts follows the
// page's path to it; test/tooling/server-package.test.ts releases and publishes the result.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Writes getTeamStats's domain function where the scaffold left it failing, and removes its pending entry. */
export function implementAddedOperation(copy: string): void {
  const domain = path.join(copy, 'server/domain/teams.ts');
  const scaffolded = readFileSync(domain, 'utf8');
  const stub = /export async function getTeamStats\([^)]*\): Promise<Model<'TeamStats'>> \{\n[^]*?\n\}\n/;
  if (!stub.test(scaffolded)) throw new Error('server/domain/teams.ts has no getTeamStats left by the scaffold');
  writeFileSync(
    domain,
    scaffolded.replace(
      stub,
      [
        "export async function getTeamStats(ctx: Scope, caller: Caller, path: OperationPath<'getTeamStats'>): Promise<Model<'TeamStats'>> {",
        '  const access = await teamAccess(ctx, caller, path.organizationId, path.teamId);',
        "  requireTeam(access, 'view');",
        '  return { members: (await presentTeam(ctx, access.team, access.organization, caller.user.id)).members };',
        '}',
        '',
      ].join('\n'),
    ),
  );
  const pending = path.join(copy, 'server/handlers/pending.ts');
  const entries = readFileSync(pending, 'utf8');
  if (!/\n {2}getTeamStats: /.test(entries)) throw new Error('server/handlers/pending.ts has no entry for getTeamStats');
  writeFileSync(pending, entries.replace(/\n {2}getTeamStats: [^\n]*/, '').replace(/= \{\n\} as const/, '= {} as const'));
}
