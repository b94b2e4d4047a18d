// npm run changelog -- [--from V] [--to V] [--out FILE]: release notes in Markdown between two releases, or from
// the last release to the contract as spec/ compiles it now (breaking/current.ts; "Unreleased"). Exit 0, or 2 on bad usage.
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { listReleases, locations, readDeclarations, readDocument, relative, versionOf } from '../breaking/files.ts';
import { notesBetween, renderFirstNotes } from './notes.ts';
import { currentDocument, NoCurrentDocument, staleNote } from '../breaking/current.ts';

const USAGE = `Usage: npm run changelog -- [--from <version>] [--to <version>] [--out <file>]

Writes the release notes (Markdown) of the changes from release --from to release --to: breaking changes first,
with what a client must do and the declared reason, then the deprecations (each with its reason, successor and
dates), then added and removed operations, then every other change, by operation and component.
  --to <version>    a recorded release (default: what spec/ compiles to now, as "Unreleased")
  --from <version>  a recorded release before --to (default: the release just before --to, or the last release)
  --out <file>      write to this file instead of standard output
`;

function fail(message: string): never {
  process.stderr.write(`changelog: ${message}\n\n${USAGE}`);
  process.exit(2);
}

let values: { from?: string; to?: string; out?: string; help?: boolean };
try {
  ({ values } = parseArgs({
    options: {
      from: { type: 'string' },
      to: { type: 'string' },
      out: { type: 'string' },
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
const releases = listReleases();
const find = (version: string) => releases.find((release) => release.version === version) ?? fail(`no release ${version} in ${relative(where.releases)}`);

const to = values.to === undefined ? undefined : find(values.to);
const earlier = to ? releases.slice(0, releases.indexOf(to)) : releases;
const from = values.from === undefined ? earlier.at(-1) : find(values.from);
if (from && to && releases.indexOf(from) >= releases.indexOf(to)) fail(`--from ${from.version} is not before --to ${to.version}`);

/** The contract as spec/ compiles it now (breaking/current.ts), said on stderr when generated/ is stale. */
function currentContract(): Record<string, unknown> {
  try {
    const current = currentDocument(where.root);
    const note = staleNote(current, 'changelog');
    if (note) process.stderr.write(`${note}\n`);
    return current.document;
  } catch (error) {
    if (!(error instanceof NoCurrentDocument)) throw error;
    process.stderr.write(`changelog: ${error.message}\n`);
    process.exit(2);
  }
}
if (to && !existsSync(to.document)) fail(`${to.document} does not exist`);
const revision = to ? readDocument(to.document) : currentContract();
const label = to ? to.version : 'Unreleased';

let notes: string;
if (!from) {
  notes = renderFirstNotes(label, undefined, revision);
} else {
  const declarations = readDeclarations(to ? to.declarations : where.declarations);
  for (const problem of declarations.problems) process.stderr.write(`changelog: declarations: ${problem}\n`);
  notes = notesBetween({
    base: readDocument(from.document),
    revision,
    previous: from.version,
    version: label,
    revisionVersion: to ? to.version : versionOf(revision),
    declarations: declarations.declarations,
  });
}

if (values.out) {
  writeFileSync(path.resolve(values.out), notes);
  process.stderr.write(`changelog: wrote ${values.out}\n`);
} else {
  process.stdout.write(notes);
}
