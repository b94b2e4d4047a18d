// `docs-conformance can-i-deploy`: a consumer's usage record against a contract (exit 0 when everything it uses is
// there and accepted, 1 naming each use that is not, 2 on a record or contract that cannot be read), or every
// consumer's record against contracts, as a table a CI job can post (docs/consumers.md, docs/contract-consumers.md).
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { canIDeploy, contractFrom, deployTable } from './can-i-deploy.ts';
import { readUsageRecords } from './usage-sources.ts';

export const CAN_I_DEPLOY_USAGE = `Usage: docs-conformance can-i-deploy --usage <file|URL> --contract <file|URL|version> [--releases <folder|URL>]
       docs-conformance can-i-deploy --consumers <folder|file|URL>... --contract <file|URL|version>... [--releases <folder|URL>] [--json FILE]

The first form: can this consumer, whose usage record --usage names, work against that contract? Exit 0 when every
operation, parameter, field, status and media type it used is still there and accepts what it sent; 1, naming each
use that is not; 2 when the record or the contract cannot be read.

The second form: every consumer's record against each contract (a revision, a release's document); prints a
Markdown table, consumers by contracts, and writes the uses gone as JSON with --json. Exit 1 when a cell has a use
gone, 2 when a record or a contract cannot be read.

A contract is a file, a URL, or a release's version (1.0.0): the document that release recorded, from the releases
this package carries, or from --releases, a folder or URL holding <version>/openapi.yaml (a contract repository's
generated/releases/, or where a team publishes it).
`;

/** Runs the command with `argv`; resolves to its exit code, printing to `out` and `err`. */
export async function canIDeployMain(argv: string[], out: (text: string) => void, err: (text: string) => void): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { usage: { type: 'string' }, consumers: { type: 'string', multiple: true }, contract: { type: 'string', multiple: true }, releases: { type: 'string' }, json: { type: 'string' }, help: { type: 'boolean' } },
      strict: true,
    }));
  } catch (error) {
    err(`can-i-deploy: ${(error as Error).message.split('\n')[0]}\n\n${CAN_I_DEPLOY_USAGE}`);
    return 2;
  }
  if (values.help) {
    out(CAN_I_DEPLOY_USAGE);
    return 0;
  }
  const contracts = values.contract ?? [];
  if (contracts.length === 0 || (values.usage === undefined) === (values.consumers === undefined)) {
    err(`can-i-deploy: give --contract, and either --usage or --consumers\n\n${CAN_I_DEPLOY_USAGE}`);
    return 2;
  }
  try {
    const records = await readUsageRecords(values.usage ? [values.usage] : values.consumers!);
    const loaded = await Promise.all(contracts.map(async (source) => ({ label: source, contract: await contractFrom(source, values.releases) })));
    if (values.usage) {
      const [record] = records;
      const gone = canIDeploy(record!, loaded[0]!.contract);
      for (const use of gone) out(`✗ ${use}\n`);
      out(`can-i-deploy: ${record!.consumer.name} ${gone.length === 0 ? 'can' : 'cannot'} deploy against ${contracts[0]}${gone.length === 0 ? '' : ` (${gone.length} use${gone.length === 1 ? '' : 's'} gone)`}\n`);
      return gone.length === 0 ? 0 : 1;
    }
    const table = deployTable(records, loaded);
    out(table.markdown);
    if (values.json) writeFileSync(values.json, `${JSON.stringify(table.json, null, 2)}\n`);
    return Object.values(table.json).some((cells) => Object.values(cells).some((gone) => gone.length > 0)) ? 1 : 0;
  } catch (error) {
    err(`can-i-deploy: ${(error as Error).message}\n`);
    return 2;
  }
}
