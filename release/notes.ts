// Release notes in Markdown: breaking changes first (with what a client, or an implementation, must do and the
// declared reason), then the renames (the same wire, new names in the generated types), then the operations added
// and removed, then every other change, grouped by the operation or component it belongs to. `npm run changelog`
// prints them; `npm run release` writes them into CHANGELOG.md.
import { compareDocuments, type OperationRef } from '../compare/index.ts';
import { evaluateGate, type Declaration, type Judged } from '../breaking/gate.ts';
import { isObject } from '../compare/pointer.ts';
import { groupJudged, plural, summarizeOperations } from '../breaking/report.ts';
import type { Severity } from '../compare/rules.ts';

export interface NotesInput {
  /** The release (`1.1.0`), or `Unreleased`. */
  version: string;
  /** `YYYY-MM-DD`, shown beside the version. */
  date?: string;
  /** The release compared with. */
  previous: string;
  judged: readonly Judged[];
}

const WORDS: Record<Severity, string> = {
  'breaking-client': 'Breaking for clients',
  'breaking-source': "Breaking for typed clients' source",
  'breaking-implementation': 'Breaking for implementations',
  warning: 'Warning',
  'non-breaking': 'Change',
};

function heading(version: string, date: string | undefined): string {
  return `## ${version}${date ? ` (${date})` : ''}`;
}

function operationTitle(operation: OperationRef): string {
  return `\`${operation.operationId}\` (${operation.method} ${operation.path})`;
}

function groupTitle(entries: readonly Judged[]): string {
  const finding = entries[0]!.finding;
  if (finding.schema === undefined) return finding.operation ? operationTitle(finding.operation) : 'The document';
  const operations = new Map(entries.flatMap((entry) => entry.finding.operations.map((operation) => [operation.operationId, operation] as const)));
  const sorted = [...operations.values()].sort((a, b) => a.operationId.localeCompare(b.operationId));
  if (sorted.length === 0) return `\`${finding.schema}\`, used by no operation`;
  const used = sorted.length <= 8 ? sorted.map((operation) => `\`${operation.operationId}\``).join(', ') : summarizeOperations(sorted);
  return `\`${finding.schema}\`, used by ${used}`;
}

/** A new name for the same thing: the same wire, but typed clients name it. */
const RENAMES = new Set(['schema-renamed', 'operation-id-changed', 'request-parameter-renamed']);

function bullet(entry: Judged, withAction: boolean): string[] {
  const { finding } = entry;
  const lines = [`- **${WORDS[finding.severity]}** (\`${finding.rule}\`): ${finding.message}.`];
  if (withAction && finding.action) lines.push(`  What to do: ${finding.action}`);
  if (entry.declaration) lines.push(`  Why: ${entry.declaration.reason}`);
  else if (entry.allowedBy === 'major-version') lines.push('  Allowed by the new major version.');
  return lines;
}

function section(title: string, entries: readonly Judged[], withAction: boolean): string[] {
  if (entries.length === 0) return [];
  const lines = ['', `### ${title}`];
  for (const group of groupJudged(entries)) {
    lines.push('', `#### ${groupTitle(group.entries)}`, '');
    for (const entry of group.entries) lines.push(...bullet(entry, withAction));
  }
  return lines;
}

const isBreaking = (entry: Judged) => entry.finding.severity.startsWith('breaking-') && !RENAMES.has(entry.finding.rule);
const isRename = (entry: Judged) => RENAMES.has(entry.finding.rule);

/** The notes of one release (or of the unreleased changes) compared with the previous release. */
export function renderNotes(input: NotesInput): string {
  const { judged } = input;
  const breaking = judged.filter(isBreaking);
  const added = judged.filter((entry) => entry.finding.rule === 'operation-added');
  const removed = judged.filter((entry) => entry.finding.rule === 'operation-removed');
  const renames = judged.filter(isRename);
  const rest = judged.filter((entry) => !isBreaking(entry) && !isRename(entry) && entry.finding.rule !== 'operation-added');
  const warnings = rest.filter((entry) => entry.finding.severity === 'warning');

  const lines = [heading(input.version, input.date), ''];
  if (judged.length === 0) {
    lines.push(`No change to the contract since ${input.previous}.`);
    return `${lines.join('\n')}\n`;
  }
  lines.push(
    `Compared with ${input.previous}: ${plural(breaking.length, 'breaking change')}, ${plural(added.length, 'new operation')}, ` +
      `${plural(removed.length, 'removed operation')}, ${plural(warnings.length, 'warning')}, ` +
      `${plural(rest.length - warnings.length, 'other change')}${renames.length > 0 ? `, ${plural(renames.length, 'rename')}` : ''}.`,
  );
  lines.push(...section('Breaking changes', breaking, true));
  lines.push(...section('Renamed (the same requests and answers; new names in the generated types)', renames, true));
  if (added.length > 0) {
    lines.push('', '### Added operations', '');
    for (const entry of added) lines.push(`- ${operationTitle(entry.finding.operation!)}`);
  }
  if (removed.length > 0) {
    lines.push('', '### Removed operations', '');
    for (const entry of removed) lines.push(`- ${operationTitle(entry.finding.operation!)}: see the breaking changes.`);
  }
  lines.push(...section('Changed', [...warnings, ...rest.filter((entry) => entry.finding.severity !== 'warning')], true));
  return `${lines.join('\n')}\n`;
}

/** The notes of the first release: every operation, by tag. */
export function renderFirstNotes(version: string, date: string | undefined, document: unknown): string {
  const byTag = new Map<string, string[]>();
  const declared = isObject(document) && Array.isArray(document.tags) ? document.tags : [];
  for (const tag of declared) if (isObject(tag) && typeof tag.name === 'string') byTag.set(tag.name, []);
  let count = 0;
  const paths = isObject(document) && isObject(document.paths) ? document.paths : {};
  for (const pathItem of Object.values(paths)) {
    if (!isObject(pathItem)) continue;
    for (const [method, operation] of Object.entries(pathItem)) {
      if (!isObject(operation) || !['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'].includes(method)) continue;
      count += 1;
      const tag = Array.isArray(operation.tags) && typeof operation.tags[0] === 'string' ? operation.tags[0] : 'Other';
      const id = typeof operation.operationId === 'string' ? operation.operationId : method.toUpperCase();
      byTag.set(tag, [...(byTag.get(tag) ?? []), id]);
    }
  }
  const lines = [heading(version, date), '', `First release of the contract: ${plural(count, 'operation')}.`, ''];
  for (const [tag, ids] of byTag) if (ids.length > 0) lines.push(`- ${tag}: ${ids.sort().map((id) => `\`${id}\``).join(', ')}`);
  return `${lines.join('\n')}\n`;
}

export const CHANGELOG_HEADER = [
  '# Changelog',
  '',
  'Releases of the contract (`info.version` of `generated/openapi.yaml`), newest first. Each section is written by',
  '`npm run release` from the comparison with the previous release (see `breaking/README.md`); the released',
  'documents are in `generated/releases/`. Changes to the packages that the contract does not show (the server, the',
  'client, the runner) are written by hand under "Unreleased", and `npm run release` moves them into its section.',
  '',
].join('\n');

/** The hand-written section of changes not released yet, which a release takes in. */
const UNRELEASED = '## Unreleased';

/**
 * `changelog` with `notes` inserted above the newest release (the file's header written when missing). The entries
 * under "Unreleased", if any, move into the release's section, after its notes; the heading stays, empty, on top.
 */
export function prependNotes(changelog: string | undefined, notes: string): string {
  let text = changelog && changelog.trim() !== '' ? changelog : CHANGELOG_HEADER;
  let release = notes;
  const unreleased = /^## Unreleased[ \t]*\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(text);
  if (unreleased) {
    const entries = unreleased[1]!.trim();
    if (entries !== '') release = `${notes.trimEnd()}\n\n### Also in this release\n\n${entries}\n`;
    text = text.slice(0, unreleased.index) + text.slice(unreleased.index + unreleased[0].length);
  }
  const heading = unreleased ? `${UNRELEASED}\n\n` : '';
  const first = text.search(/^## /m);
  if (first === -1) return `${text.trimEnd()}\n\n${heading}${release}`;
  return `${text.slice(0, first)}${heading}${release}\n${text.slice(first)}`;
}

/**
 * The release notes a package carries: `changelog` with the entries under "Unreleased" left out (the heading stays,
 * empty, on top). At a release's tag that section is empty (`prependNotes` moved it), so the packages published from
 * the tag carry CHANGELOG.md as tagged; a package packed between releases carries the notes of the releases only.
 */
export function releasedNotes(changelog: string): string {
  return changelog.replace(/^## Unreleased[ \t]*\n[\s\S]*?(?=^## |(?![\s\S]))/m, `${UNRELEASED}\n\n`);
}

/** Compares two documents and writes the notes: declared reasons shown, a higher major version noted. */
export function notesBetween(input: {
  base: unknown;
  revision: unknown;
  previous: string;
  version: string;
  /** The version the revision is judged as (default: `version`). */
  revisionVersion?: string;
  date?: string;
  declarations?: readonly Declaration[];
}): string {
  const judged = evaluateGate(compareDocuments(input.base, input.revision), {
    baseVersion: input.previous,
    revisionVersion: input.revisionVersion ?? input.version,
    declarations: input.declarations ?? [],
  }).judged;
  return renderNotes({ version: input.version, date: input.date, previous: input.previous, judged });
}
