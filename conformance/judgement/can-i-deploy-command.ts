// `docs-conformance can-i-deploy`: a consumer's usage record against a contract (exit 0 when the change from the
// contract its record was made against breaks nothing it uses, 1 naming each break, 2 on a record or contract that
// cannot be read), or every consumer's record against contracts, as a table a CI job can post (docs/consumers.md,
// docs/contract-consumers.md).
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { consumersOf, contractFrom, deployCell, deployTable, judgeDeploy, judgedByText } from './can-i-deploy.ts';
import { verificationsOf, withImplementation } from '../runner/verification.ts';

export const CAN_I_DEPLOY_USAGE = `Usage: docs-conformance can-i-deploy --usage <file|URL> --contract <file|URL|version> [--releases <folder|URL>] [--base <file|URL|version>]
       docs-conformance can-i-deploy --consumers <folder|file|URL>... --contract <file|URL|version>... [--releases <folder|URL>] [--base <file|URL|version>] [--json FILE]
                                     [--verification <report>...]

The first form: can this consumer, whose usage record --usage names, work against that contract? The record was
made against a contract (its version and SHA-256): that release, found among the releases, is compared with the
contract asked about, and each change is judged by what the record shows the consumer sent, received and read, as
the breaking-change gate judges it with --consumers; and the record is judged against the contract alone: whether
it still accepts everything the consumer sent (operations by method and path, parameters, fields, their values,
types, lengths and ranges, media types, the security scheme, everything now required) and still guarantees what it
read (statuses, media types, headers, fields present and required, their types, formats, bounds, alternatives).
Exit 0 when nothing breaks it (each warning printed, "!"); 1, naming each break ("✗"); 2 when the record or a
contract cannot be read. Where the contract the record was made against is not among the releases, it says so and
judges the record against the contract alone (a value added to an enumeration it reads is then not told).

The second form: every consumer's record against each contract (a revision, a release's document); prints a
Markdown table, consumers by contracts, and writes each judgement as JSON with --json. Records of one consumer among
the sources (a folder holding each CI job's) are merged into one. Exit 1 when a cell breaks, 2 when a record or a
contract cannot be read, or two records of one consumer do not merge (two contract versions).

--verification <report>: the conformance runner's report (its --report JSON or its --junit XML) of the implementation
against a contract, repeated for each contract; the table gets a row, (implementation), and a contract can be deployed
when every consumer can deploy against it and the implementation conforms to it: every operation checked, none failing
(a contract no report checked is not verified: exit 1). A report that names none of the contracts (by version and
SHA-256), or that cannot be read, is exit 2, naming it.

A contract is a file, a URL, or a release's version (1.0.0): the document that release recorded, from the releases
this package carries, or from --releases, a folder or URL holding <version>/openapi.yaml (a contract repository's
generated/releases/, or where a team publishes it). --base names the contract the records were made against, where
it is not a release.

A Pact file (specification 2, 3 or 4; its HTTP interactions) stands for a record wherever one is named: it is read
against --base where given, else against the contract that consumer's records among the sources were made against,
else against the newest of this package's contract and the releases that its pacts match and break nowhere in (none
of the contracts asked about), and judged as the change from it, as a record is; else against each contract asked
about, and judged against it alone. An interaction that matches no operation is named, and breaks.
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
        base: { type: 'string' },
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
    const loaded = await Promise.all(contracts.map(async (source) => ({ label: source, contract: await contractFrom(source, values.releases) })));
    // The implementation's reports, read and matched to the contracts before anything is printed or written.
    const verified = values.verification ? verificationsOf(values.verification, loaded) : undefined;
    const options = { ...(values.base !== undefined ? { base: values.base } : {}), ...(values.releases !== undefined ? { releases: values.releases } : {}) };
    const note = (line: string) => out(`can-i-deploy: ${line}\n`);
    const { records, recorded, against } = await consumersOf(values.usage ? [values.usage] : values.consumers!, loaded, options, merged, note);
    if (values.usage) {
      const record = against.get(0)?.(loaded[0]!.contract) ?? records[0]!;
      const judged = judgeDeploy(record, loaded[0]!.contract, recorded[0]!);
      if ('record' in judged.judgedBy) out(`can-i-deploy: ${record.consumer.name}: ${judgedByText(judged)}\n`);
      for (const note of judged.notes) out(`can-i-deploy: ${note}\n`);
      for (const use of judged.breaks) out(`✗ ${use}\n`);
      for (const use of judged.warnings) out(`! ${use}\n`);
      const verb = judged.verdict === 'breaks' ? 'cannot' : 'can';
      out(`can-i-deploy: ${record.consumer.name} ${verb} deploy against ${contracts[0]}: ${deployCell(judged)}${'change' in judged.judgedBy ? ` (${judgedByText(judged)})` : ''}\n`);
      return judged.verdict === 'breaks' ? 1 : 0;
    }
    const consumers = deployTable(records, loaded, recorded, against);
    const implementation = verified ? withImplementation(consumers, verified) : undefined;
    const table = implementation ?? consumers;
    out(table.markdown);
    if (values.json) writeFileSync(values.json, `${JSON.stringify(table.json, null, 2)}\n`);
    const breaks = Object.values(consumers.json).some((cells) => Object.values(cells).some((judged) => judged.verdict === 'breaks'));
    return breaks || implementation?.ok === false ? 1 : 0;
  } catch (error) {
    err(`can-i-deploy: ${(error as Error).message}\n`);
    return 2;
  }
}
