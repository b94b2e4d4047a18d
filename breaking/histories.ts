// The gate on real release histories: `npx tsx breaking/histories.ts [name…] [--all]` fetches consecutive releases
// of public APIs from the npm registry (packages that ship their OpenAPI description) into a temporary folder,
// compares each pair, and prints every breaking finding (`--all`: every finding), for judging by hand. Nothing is
// kept: the documents are third parties', read from the registry each time. Not run by `npm test` (it needs the
// registry); breaking/README.md records what the judging found.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { compareDocuments, evaluateGate, isBreaking } from './index.ts';
import { parseYaml } from './files.ts';

/** A package that ships an OpenAPI description, the file it is in, and the releases compared (each with the next). */
interface History {
  name: string;
  package: string;
  file: string;
  versions: string[];
}

export const HISTORIES: History[] = [
  { name: 'figma', package: '@figma/rest-api-spec', file: 'openapi/openapi.yaml', versions: ['0.36.0', '0.37.0', '0.38.0', '0.39.0', '0.40.0', '0.41.0', '0.42.0', '0.43.0'] },
  { name: 'directus', package: '@directus/specs', file: 'dist/openapi.json', versions: ['13.0.0', '14.0.0', '15.0.0', '15.1.0', '15.1.1', '15.2.0'] },
  { name: 'blockfrost', package: '@blockfrost/openapi', file: 'openapi.yaml', versions: ['0.1.81', '0.1.82', '0.1.84', '0.1.86', '0.1.92', '0.1.93'] },
  { name: 'ideal-postcodes', package: '@ideal-postcodes/openapi', file: 'dist/openapi.json', versions: ['4.10.1', '4.12.0', '4.14.1', '4.21.0'] },
];

/** The document a release ships, fetched with `npm pack` into `dir`. */
function fetchDocument(history: History, version: string, dir: string): unknown {
  const into = path.join(dir, `${history.name}-${version}`);
  mkdirSync(into, { recursive: true });
  const tarball = execFileSync('npm', ['pack', `${history.package}@${version}`, '--silent', '--pack-destination', into], { encoding: 'utf8' }).trim().split('\n').at(-1)!;
  execFileSync('tar', ['xzf', path.join(into, tarball), '-C', into, `package/${history.file}`]);
  return parseYaml(readFileSync(path.join(into, 'package', history.file), 'utf8'));
}

function main(): void {
  const args = process.argv.slice(2);
  const all = args.includes('--all');
  const names = args.filter((arg) => !arg.startsWith('--'));
  const dir = mkdtempSync(path.join(tmpdir(), 'breaking-histories-'));
  try {
    for (const history of HISTORIES.filter((entry) => names.length === 0 || names.includes(entry.name))) {
      const documents = history.versions.map((version) => fetchDocument(history, version, dir));
      for (let index = 1; index < documents.length; index += 1) {
        const findings = compareDocuments(documents[index - 1], documents[index]);
        const { judged } = evaluateGate(findings, { failOn: 'implementation' });
        const breaking = judged.filter((entry) => isBreaking(entry.finding.severity));
        process.stdout.write(`\n== ${history.package} ${history.versions[index - 1]} → ${history.versions[index]}: ${findings.length} findings, ${breaking.length} breaking\n`);
        for (const { finding } of all ? judged : breaking) {
          const operations = finding.operations.map((operation) => operation.operationId).slice(0, 3).join(', ');
          process.stdout.write(`  ${finding.severity} ${finding.rule}  ${finding.path}  ${finding.message}  [${operations}${finding.operations.length > 3 ? ', …' : ''}]\n`);
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
