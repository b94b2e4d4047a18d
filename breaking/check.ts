// npm run check:breaking: compares generated/openapi.yaml with the last release (generated/releases/<highest>/)
// and fails on a breaking change that is neither declared in spec/breaking-changes.yaml nor allowed by a major
// version bump, or on a stale declaration. Exit 0 pass, 1 fail, 2 usage (bad option, unreadable file).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { compareDocuments } from './compare.ts';
import { listReleases, locations, readDeclarations, readDocument, relative, versionOf } from './files.ts';
import { evaluateGate, parseVersion } from './gate.ts';
import { formatReport } from './report.ts';

const USAGE = `Usage: npm run check:breaking -- [options]

Compares the contract (generated/openapi.yaml) with its last release (generated/releases/<version>/openapi.yaml)
and prints every difference with its rule, severity, operation and JSON path. Fails (exit 1) on a breaking change
that is not declared in spec/breaking-changes.yaml and not allowed by a higher major version, and on a stale
declaration. Rules and declarations: breaking/README.md.

Options:
  --base <version|file>      compare with this release or document instead of the last release
  --revision <file>          the document to check (default generated/openapi.yaml)
  --declarations <file>      the declarations (default spec/breaking-changes.yaml)
  --as-version <version>     judge the revision as if its info.version were this (npm run release uses it)
  --json                     print the verdict as JSON
  -h, --help                 this text
`;

function fail(message: string): never {
  process.stderr.write(`check:breaking: ${message}\n\n${USAGE}`);
  process.exit(2);
}

let values: Record<string, string | boolean | undefined>;
try {
  ({ values } = parseArgs({
    options: {
      base: { type: 'string' },
      revision: { type: 'string' },
      declarations: { type: 'string' },
      'as-version': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  }));
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}

const where = locations();
const revisionFile = path.resolve(typeof values.revision === 'string' ? values.revision : where.document);
const declarationsFile = path.resolve(typeof values.declarations === 'string' ? values.declarations : where.declarations);

let baseFile: string;
let baseLabel: string;
if (typeof values.base === 'string') {
  const release = parseVersion(values.base) ? listReleases().find((entry) => entry.version === values.base) : undefined;
  if (parseVersion(values.base) && !release) fail(`no release ${values.base} in ${relative(where.releases)}`);
  baseFile = release ? release.document : path.resolve(values.base);
  baseLabel = release ? `release ${release.version}` : relative(baseFile);
} else {
  const last = listReleases().at(-1);
  if (!last) {
    process.stdout.write(
      `check:breaking: no release recorded yet (none in ${relative(where.releases)}/), nothing to compare; cut the first with \`npm run release -- <version>\`.\n`,
    );
    process.exit(0);
  }
  baseFile = last.document;
  baseLabel = `release ${last.version}`;
}

for (const file of [baseFile, revisionFile]) if (!existsSync(file)) fail(`${file} does not exist`);
let base: Record<string, unknown>;
let revision: Record<string, unknown>;
try {
  base = readDocument(baseFile);
  revision = readDocument(revisionFile);
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}

const read = readDeclarations(declarationsFile);
if (read.problems.length > 0) {
  process.stdout.write(
    `check:breaking: FAILED: ${relative(declarationsFile)} is not valid:\n${read.problems.map((problem) => `  - ${problem}`).join('\n')}\n`,
  );
  process.exit(1);
}

const revisionVersion = typeof values['as-version'] === 'string' ? values['as-version'] : versionOf(revision);
const findings = compareDocuments(base, revision);
const verdict = evaluateGate(findings, {
  baseVersion: versionOf(base),
  revisionVersion,
  declarations: read.declarations,
});

if (values.json) {
  process.stdout.write(`${JSON.stringify(verdict, null, 2)}\n`);
} else {
  process.stdout.write(
    formatReport(verdict, {
      subject: `${relative(revisionFile)} (${revisionVersion ?? 'no version'}) against ${baseLabel}`,
      declarationsFile: relative(declarationsFile),
    }),
  );
}
process.exit(verdict.passed ? 0 : 1);
