// Release notes in Markdown, by section (NOTES_SECTIONS): breaking changes (with what to do and the declared reason),
// deprecations (each with its reason, successor and dates), operations added, new fields, renames, operations removed,
// then every other change; the same change over several operations one entry, the rest by operation or component.
// `npm run changelog` prints them; `npm run release` writes them into CHANGELOG.md.
import { compareDocuments, type OperationRef } from '../compare/index.ts';
import { evaluateGate, type Declaration, type Judged } from '../breaking/gate.ts';
import { isObject, resolvePointer } from '../compare/pointer.ts';
import { deprecationOf, type Deprecation } from '../compare/deprecation.ts';
import { groupJudged, groupSameChange, plural, changeKey, summarizeOperations } from '../breaking/report.ts';
import type { Severity } from '../compare/rules.ts';

export interface NotesInput {
  /** The release (`1.1.0`), or `Unreleased`. */
  version: string;
  /** `YYYY-MM-DD`, shown beside the version. */
  date?: string;
  /** The release compared with. */
  previous: string;
  judged: readonly Judged[];
  /** The document released (or compiled): where each deprecation's reason, successor and dates are read. */
  revision?: unknown;
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

/** How many findings of the same change make them one entry in the notes: two (the gate's text report waits for ten). */
const SAME_CHANGE_AT = 2;

/**
 * One entry for the same change over several operations or components: what it is, the operations counted by tag,
 * and each of them in a folded `<details>` (the gate's JSON lists each finding).
 */
function sharedBullet(entries: readonly Judged[], withAction: boolean): string[] {
  const { finding } = entries[0]!;
  const operations = [...new Map(entries.flatMap((entry) => entry.finding.operations).map((operation) => [operation.operationId, operation] as const)).values()].sort((a, b) =>
    a.operationId.localeCompare(b.operationId),
  );
  const owners = [...new Set(entries.map((entry) => (entry.finding.schema !== undefined ? `\`${entry.finding.schema}\`` : undefined)).filter((owner) => owner !== undefined))];
  const where = operations.length > 0 ? summarizeOperations(operations, 0) : plural(owners.length, 'component');
  const lines = [`- **${WORDS[finding.severity]}** (\`${finding.rule}\`): ${finding.message}, in ${where}.`];
  if (withAction && finding.action) lines.push(`  What to do: ${finding.action}`);
  for (const reason of new Set(entries.flatMap((entry) => (entry.declaration ? [entry.declaration.reason] : [])))) lines.push(`  Why: ${reason}`);
  if (entries.some((entry) => entry.allowedBy === 'major-version')) lines.push('  Allowed by the new major version.');
  const listed = [...(owners.length > 0 ? [`Components: ${owners.join(', ')}.`] : []), ...(operations.length > 0 ? [operations.map((operation) => `\`${operation.operationId}\``).join(', ')] : [])];
  lines.push(`  <details><summary>${where}</summary>`, '', ...listed.map((line) => `  ${line}`), '', '  </details>');
  return lines;
}

/**
 * A section of the notes: the same change over several operations first, one entry each (`sharedBullet`), then the
 * others by the operation or component they belong to.
 */
function section(title: string, entries: readonly Judged[], withAction: boolean): string[] {
  if (entries.length === 0) return [];
  const lines = ['', `### ${title}`];
  const { shared, rest } = groupSameChange(entries, changeKey, SAME_CHANGE_AT);
  if (shared.length > 0) lines.push('');
  for (const group of shared) lines.push(...sharedBullet(group, withAction));
  for (const group of groupJudged(rest)) {
    lines.push('', `#### ${groupTitle(group.entries)}`, '');
    for (const entry of group.entries) lines.push(...bullet(entry, withAction));
  }
  return lines;
}

const isBreaking = (entry: Judged) => entry.finding.severity.startsWith('breaking-') && !RENAMES.has(entry.finding.rule);
const isRename = (entry: Judged) => RENAMES.has(entry.finding.rule);
const isDeprecation = (entry: Judged) => /(^|-)deprecated$/.test(entry.finding.rule);
const isNewField = (entry: Judged) => /-property-added$/.test(entry.finding.rule) || entry.finding.rule === 'request-parameter-added';

/** The findings of one release, and what each section has taken so far (each finding is in one section). */
interface NotesContext {
  judged: readonly Judged[];
  revision?: unknown;
  taken: Set<Judged>;
}

/** The findings `select` picks that no section before took; taken now. */
function take(context: NotesContext, select: (entry: Judged) => boolean): Judged[] {
  const entries = context.judged.filter((entry) => !context.taken.has(entry) && select(entry));
  for (const entry of entries) context.taken.add(entry);
  return entries;
}

const breakingSection = (context: NotesContext) => section('Breaking changes', take(context, isBreaking), true);
/** The pointer of what a deprecation finding marks: its place without the trailing `/deprecated`. */
const deprecatedPlace = (entry: Judged) => entry.finding.path.replace(/\/deprecated$/, '');

/**
 * The deprecation at `place` in the revision (compare/deprecation.ts), its reason taken from the description's
 * `Deprecated:` paragraph when `x-deprecation` has none (a document written by hand).
 */
function deprecationAt(revision: unknown, place: string): Deprecation {
  const node = resolvePointer(revision, place);
  const deprecation = deprecationOf(node) ?? {};
  if (deprecation.reason === undefined && isObject(node) && typeof node.description === 'string') {
    const paragraph = node.description.split(/\n\s*\n/).find((part) => part.startsWith('Deprecated:'));
    if (paragraph) deprecation.reason = paragraph.slice('Deprecated:'.length).trim();
  }
  return deprecation;
}

/** A successor as the notes name it: an operation of the revision with its method and path, a field as written. */
function successorTitle(revision: unknown, successor: string): string {
  const paths = isObject(revision) && isObject(revision.paths) ? revision.paths : {};
  for (const [route, pathItem] of Object.entries(paths)) {
    if (!isObject(pathItem)) continue;
    for (const [method, operation] of Object.entries(pathItem)) {
      if (isObject(operation) && operation.operationId === successor) return operationTitle({ operationId: successor, method: method.toUpperCase(), path: route });
    }
  }
  return `\`${successor}\``;
}

/** One deprecation (every finding that marks the same place): what it is, its reason, its successor and its dates. */
function deprecationBullet(entries: readonly Judged[], revision: unknown): string[] {
  const rules = [...new Set(entries.map((entry) => `\`${entry.finding.rule}\``))].join(', ');
  const messages = [...new Set(entries.map((entry) => entry.finding.message))].join('; ');
  const deprecation = deprecationAt(revision, deprecatedPlace(entries[0]!));
  const since = deprecation.since ? `deprecated since ${deprecation.since}` : 'no date of deprecation';
  const sunset = deprecation.sunset ? `sunset ${deprecation.sunset} (it may be removed from that day)` : 'no sunset';
  return [
    `- **Deprecated** (${rules}): ${messages}.`,
    `  Reason: ${deprecation.reason ?? 'none written.'}`,
    `  Successor: ${deprecation.successor ? successorTitle(revision, deprecation.successor) : 'none named'}.`,
    `  Dates: ${since}; ${sunset}.`,
  ];
}

/**
 * The deprecations, by the operation or component they belong to: one entry per deprecated operation, parameter or
 * field (the findings that mark the same place, request and answer alike, are one), with what the revision writes of it.
 */
function deprecationsSection(context: NotesContext): string[] {
  const entries = take(context, isDeprecation);
  if (entries.length === 0) return [];
  const lines = ['', '### Deprecated (still served; may go in a later major version)'];
  for (const group of groupJudged(entries)) {
    lines.push('', `#### ${groupTitle(group.entries)}`, '');
    const byPlace = new Map<string, Judged[]>();
    for (const entry of group.entries) byPlace.set(deprecatedPlace(entry), [...(byPlace.get(deprecatedPlace(entry)) ?? []), entry]);
    for (const marks of byPlace.values()) lines.push(...deprecationBullet(marks, context.revision));
  }
  return lines;
}

function addedOperationsSection(context: NotesContext): string[] {
  const added = take(context, (entry) => entry.finding.rule === 'operation-added');
  if (added.length === 0) return [];
  return ['', '### Added operations', '', ...added.map((entry) => `- ${operationTitle(entry.finding.operation!)}`)];
}

const newFieldsSection = (context: NotesContext) => section('New fields', take(context, isNewField), true);
const renamesSection = (context: NotesContext) => section('Renamed (the same requests and answers; new names in the generated types)', take(context, isRename), true);

/** The operations removed, listed again after the breaking changes that hold them (taking nothing). */
function removedOperationsSection(context: NotesContext): string[] {
  const removed = context.judged.filter((entry) => entry.finding.rule === 'operation-removed');
  if (removed.length === 0) return [];
  return ['', '### Removed operations', '', ...removed.map((entry) => `- ${operationTitle(entry.finding.operation!)}: see the breaking changes.`)];
}

function changedSection(context: NotesContext): string[] {
  const rest = take(context, () => true);
  return section('Changed', [...rest.filter((entry) => entry.finding.severity === 'warning'), ...rest.filter((entry) => entry.finding.severity !== 'warning')], true);
}

/**
 * The sections of the notes, in their order: what a reader must act on first. Each takes the findings it shows that
 * no section before it took, so that every finding is in exactly one (the last takes the rest); a new section is a
 * function added here.
 */
export const NOTES_SECTIONS: readonly ((context: NotesContext) => string[])[] = [
  breakingSection,
  deprecationsSection,
  addedOperationsSection,
  newFieldsSection,
  renamesSection,
  removedOperationsSection,
  changedSection,
];

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
  const context: NotesContext = { judged, revision: input.revision, taken: new Set() };
  for (const render of NOTES_SECTIONS) lines.push(...render(context));
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
  return renderNotes({ version: input.version, date: input.date, previous: input.previous, judged, revision: input.revision });
}
