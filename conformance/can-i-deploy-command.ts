// `docs-conformance can-i-deploy`: a consumer's usage record against a contract (exit 0 when everything it uses is
// there and accepted, 1 naming each use that is not, 2 on a record or contract that cannot be read), or every
// consumer's record against contracts, as a table a CI job can post (docs/consumers.md, docs/contract-consumers.md).
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { canIDeploy, contractFrom, deployTable } from './can-i-deploy.ts';
import { readUsageRecords } from './usage-sources.ts';
import { verificationsOf, withImplementation } from './verification.ts';

export const CAN_I_DEPLOY_USAGE = `Usage: docs-conformance can-i-deploy --usage <file|URL> --contract <file|URL|version> [--releases <folder|URL>]
       docs-conformance can-i-deploy --consumers <folder|file|URL>... --contract <file|URL|version>... [--releases <folder|URL>] [--json FILE]
                                     [--verification <report>...]

The first form: can this consumer, whose usage record --usage names, work against that contract? Exit 0 when every
operation, parameter, field, status and media type it used is still there and accepts what it sent; 1, naming each
use that is not; 2 when the record or the contract cannot be read.

The second form: every consumer's record against each contract (a revision, a release's document); prints a
Markdown table, consumers by contracts, and writes the uses gone as JSON with --json. Records of one consumer among
the sources (a folder holding each CI job's) are merged into one. Exit 1 when a cell has a use gone, 2 when a record
or a contract cannot be read, or two records of one consumer do not merge (two contract versions).

--verification <report>: the conformance runner's report (its --report JSON or its --junit XML) of the implementation
against a contract, repeated for each contract; the table gets a row, (implementation), and a contract can be deployed
when every consumer can deploy against it and the implementation conforms to it: every operation checked, none failing
(a contract no report checked is not verified: exit 1). A report that names none of the contracts (by version and
SHA-256), or that cannot be read, is exit 2, naming it.

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
      options: {
        usage: { type: 'string' },
        consumers: { type: 'string', multiple: true },
        contract: { type: 'string', multiple: true },
        releases: { type: 'string' },
        json: { type: 'string' },
        verification: { type: 'string', multiple: true },
        help: { type: 'boolean' },
      },
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
  if (values.verification && values.usage) {
    err('can-i-deploy: --verification goes with --consumers: the provider\'s question, its consumers and its implementation (see can-i-deploy --help)\n');
    return 2;
  }
  try {
    const merged = (consumer: string, sources: string[]) => err(`can-i-deploy: ${consumer}'s ${sources.length} records merged into one (${sources.join(', ')})\n`);
    const records = await readUsageRecords(values.usage ? [values.usage] : values.consumers!, merged);
    const loaded = await Promise.all(contracts.map(async (source) => ({ label: source, contract: await contractFrom(source, values.releases) })));
    // The implementation's reports, read and matched to the contracts before anything is printed or written.
    const verified = values.verification ? verificationsOf(values.verification, loaded) : undefined;
    if (values.usage) {
      const [record] = records;
      const gone = canIDeploy(record!, loaded[0]!.contract);
      for (const use of gone) out(`✗ ${use}\n`);
      out(`can-i-deploy: ${record!.consumer.name} ${gone.length === 0 ? 'can' : 'cannot'} deploy against ${contracts[0]}${gone.length === 0 ? '' : ` (${gone.length} use${gone.length === 1 ? '' : 's'} gone)`}\n`);
      return gone.length === 0 ? 0 : 1;
    }
    const consumers = deployTable(records, loaded);
    const implementation = verified ? withImplementation(consumers, verified) : undefined;
    const table = implementation ?? consumers;
    out(table.markdown);
    if (values.json) writeFileSync(values.json, `${JSON.stringify(table.json, null, 2)}\n`);
    const gone = Object.values(consumers.json).some((cells) => Object.values(cells).some((uses) => uses.length > 0));
    return gone || implementation?.ok === false ? 1 : 0;
  } catch (error) {
    err(`can-i-deploy: ${(error as Error).message}\n`);
    return 2;
  }
}
