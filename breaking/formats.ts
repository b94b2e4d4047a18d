// The gate's verdict in the formats CI systems read: Markdown (a pull-request comment or a job summary), JUnit XML
// (test reports), SARIF 2.1.0 (code scanning) and GitHub workflow commands (annotations on the changed lines). Every
// format carries the same findings as the text report: rule, severity, operations, JSON path, message, who it breaks
// and what to do, and where it was made when the locator knows.
import type { Finding } from '../compare/index.ts';
import type { Judged, Verdict } from './gate.ts';
import type { SourceLocation } from './locate.ts';
import {
  consequence,
  consumerBlocks,
  CONSUMERS_HEADING,
  declarationsToAdd,
  groupOf,
  plural,
  severityLabel,
  showLocation,
  showOperations,
  staleLine,
  summaryLine,
  summarizeOperations,
  type ReportOptions,
} from './report.ts';
import { RULES, WHO, type Severity } from '../compare/rules.ts';

export const FORMATS = ['text', 'json', 'markdown', 'junit', 'sarif', 'github'] as const;
export type Format = (typeof FORMATS)[number];

/** How a finding shows in CI: failing, to look at (breaking but allowed, or a warning), or for information. */
function level(entry: Judged): 'error' | 'warning' | 'note' {
  if (entry.fails) return 'error';
  return entry.finding.severity === 'non-breaking' ? 'note' : 'warning';
}

// ---- JSON ----------------------------------------------------------------------------------------------------

/** The verdict as JSON: every finding with all its operations (with `--consumers`, its `consumers`), and its TypeSpec location where `locate` knows it. */
export function formatJson(verdict: Verdict, options: { subject: string; locate?: (finding: Finding) => SourceLocation | undefined }): string {
  const judged = verdict.judged.map((entry) => {
    const location = options.locate?.(entry.finding);
    return location ? { ...entry, location } : entry;
  });
  return `${JSON.stringify({ ...verdict, judged, subject: options.subject }, null, 2)}\n`;
}

// ---- Markdown ------------------------------------------------------------------------------------------------

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export function formatMarkdown(verdict: Verdict, options: ReportOptions): string {
  const lines = [`## check:breaking: ${verdict.passed ? 'passed' : 'FAILED'}`, '', `${options.subject}: ${plural(verdict.judged.length, 'difference')}.`];
  if (verdict.judged.length > 0) {
    lines.push('', '| | Change | Rule | Where | Operations |', '|---|---|---|---|---|');
    for (const entry of verdict.judged) {
      const { finding } = entry;
      const where = showLocation(options.locate?.(finding));
      lines.push(
        `| ${entry.fails ? '**FAILS** ' : ''}${cell(severityLabel(entry))} | ${cell(finding.message)} | \`${finding.rule}\` | ${where ? `\`${where}\`<br>` : ''}\`${cell(finding.path)}\` | ${cell(showOperations(finding))} |`,
      );
    }
    const acting = verdict.judged.filter((entry) => entry.finding.severity !== 'non-breaking');
    if (acting.length > 0) {
      lines.push('', '### What breaks, for whom, and what to do', '');
      for (const entry of acting) {
        lines.push(`- ${cell(entry.finding.message)} (\`${entry.finding.rule}\`): ${consequence(entry.finding)}`);
        if (entry.declaration) lines.push(`  Declared: ${entry.declaration.reason}`);
      }
    }
  }
  const consumers = consumerBlocks(verdict);
  if (consumers.length > 0) {
    lines.push('', `### ${CONSUMERS_HEADING}`, '', '| Consumer | Why |', '|---|---|');
    for (const block of consumers) lines.push(`| ${block.fails ? '**FAILS** ' : ''}${cell(block.head)} | ${block.lines.map(cell).join('<br>') || 'nothing it uses changed'} |`);
  }
  for (const declaration of verdict.stale) lines.push('', staleLine(declaration, options.declarationsFile));
  for (const problem of verdict.problems) lines.push('', `Problem: ${problem}`);
  lines.push('', summaryLine(verdict));
  if (verdict.undeclared.length > 0) {
    lines.push(
      '',
      `<details><summary>Declarations for ${options.declarationsFile}, to accept them (give each a real reason)</summary>`,
      '',
      '```yaml',
      declarationsToAdd(verdict),
      '```',
      '',
      '</details>',
    );
  }
  return `${lines.join('\n')}\n`;
}

// ---- JUnit XML -----------------------------------------------------------------------------------------------

function xml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');
}

/** One test case per finding (failing ones with a `<failure>`), stale declaration and other problem. */
export function formatJunit(verdict: Verdict, options: ReportOptions): string {
  const cases: string[] = [];
  for (const entry of verdict.judged) {
    const { finding } = entry;
    const location = options.locate?.(finding);
    const attributes = `classname="${xml(`check:breaking.${groupOf(finding).title}`)}" name="${xml(`${finding.rule} ${finding.path}`)}"${
      location ? ` file="${xml(location.file)}" line="${location.line}"` : ''
    }`;
    const details = [
      `${severityLabel(entry)}: ${finding.message}`,
      consequence(finding),
      `Operations: ${finding.operations.map((operation) => operation.operationId).join(', ') || 'none'}`,
      ...(location ? [`At ${showLocation(location)}`] : []),
      ...(entry.declaration ? [`Declared: ${entry.declaration.reason}`] : []),
    ].join('\n');
    cases.push(
      entry.fails
        ? `    <testcase ${attributes}>\n      <failure type="${xml(finding.rule)}" message="${xml(finding.message)}">${xml(details)}</failure>\n    </testcase>`
        : `    <testcase ${attributes}>\n      <system-out>${xml(details)}</system-out>\n    </testcase>`,
    );
  }
  for (const block of consumerBlocks(verdict)) {
    const attributes = `classname="check:breaking.consumers" name="${xml(block.head)}"`;
    const details = xml([`${CONSUMERS_HEADING}: ${block.head}`, ...block.lines].join('\n'));
    cases.push(
      block.fails
        ? `    <testcase ${attributes}>\n      <failure type="consumer" message="${xml(block.head)}">${details}</failure>\n    </testcase>`
        : `    <testcase ${attributes}>\n      <system-out>${details}</system-out>\n    </testcase>`,
    );
  }
  for (const declaration of verdict.stale) {
    const message = staleLine(declaration, options.declarationsFile);
    cases.push(
      `    <testcase classname="check:breaking.declarations" name="${xml(`stale ${declaration.rule} ${declaration.path}`)}">\n      <failure type="stale-declaration" message="${xml(message)}">${xml(message)}</failure>\n    </testcase>`,
    );
  }
  for (const problem of verdict.problems) {
    cases.push(`    <testcase classname="check:breaking.versions" name="${xml(problem)}">\n      <failure type="version" message="${xml(problem)}">${xml(problem)}</failure>\n    </testcase>`);
  }
  if (cases.length === 0) cases.push(`    <testcase classname="check:breaking" name="no difference"/>`);
  const failures = verdict.undeclared.length + verdict.stale.length + verdict.problems.length + consumerBlocks(verdict).filter((block) => block.fails).length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="check:breaking" tests="${cases.length}" failures="${failures}">`,
    `  <testsuite name="${xml(`check:breaking: ${options.subject}`)}" tests="${cases.length}" failures="${failures}" errors="0" skipped="0">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

// ---- SARIF 2.1.0 ---------------------------------------------------------------------------------------------

const SARIF_LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = {
  'breaking-client': 'error',
  'breaking-source': 'error',
  'breaking-implementation': 'error',
  warning: 'warning',
  'non-breaking': 'note',
};

export function formatSarif(verdict: Verdict, options: ReportOptions & { fallback?: (finding: Finding) => SourceLocation | undefined }): string {
  const ruleIds = [...new Set(verdict.judged.map((entry) => entry.finding.rule))].sort();
  const rules = ruleIds.map((id) => {
    const rule = RULES.get(id)!;
    return {
      id,
      name: id.replace(/(?:^|-)([a-z])/g, (_, letter: string) => letter.toUpperCase()),
      shortDescription: { text: rule.summary },
      fullDescription: { text: `${WHO[rule.severity]}: ${rule.summary}. Example: ${rule.example.replace(/`/g, '')}` },
      ...(rule.action ? { help: { text: rule.action } } : {}),
      defaultConfiguration: { level: SARIF_LEVEL[rule.severity] },
      properties: { severity: rule.severity },
    };
  });
  const results = verdict.judged.map((entry) => {
    const { finding } = entry;
    const location = options.locate?.(finding) ?? options.fallback?.(finding);
    return {
      ruleId: finding.rule,
      ruleIndex: ruleIds.indexOf(finding.rule),
      level: level(entry),
      message: { text: `${finding.message} (${showOperations(finding)}). ${consequence(finding)}${entry.declaration ? ` Declared: ${entry.declaration.reason}` : ''}` },
      locations: [
        {
          ...(location ? { physicalLocation: { artifactLocation: { uri: location.file.split('\\').join('/') }, region: { startLine: location.line } } } : {}),
          logicalLocations: [{ fullyQualifiedName: finding.path, kind: 'member' }],
        },
      ],
      partialFingerprints: { 'breakingChange/v1': `${finding.rule}|${finding.path}|${finding.detail}` },
      properties: {
        severity: finding.severity,
        fails: entry.fails,
        ...(entry.allowedBy ? { allowedBy: entry.allowedBy } : {}),
        operations: finding.operations.map((operation) => operation.operationId),
        fields: finding.fields,
        document: finding.document,
      },
    };
  });
  const sarif = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'check:breaking', fullName: `check:breaking: ${options.subject}`, rules } },
        results,
        invocations: [
          {
            executionSuccessful: true,
            exitCode: verdict.passed ? 0 : 1,
            toolExecutionNotifications: [
              ...consumerBlocks(verdict).map((block) => ({
                level: block.verdict === 'breaks' ? 'error' : block.verdict === 'untouched' ? 'note' : 'warning',
                message: { text: [`${CONSUMERS_HEADING}: ${block.head}`, ...block.lines].join('\n') },
              })),
              ...verdict.stale.map((declaration) => ({ level: 'error', message: { text: staleLine(declaration, options.declarationsFile) } })),
              ...verdict.problems.map((problem) => ({ level: 'error', message: { text: problem } })),
            ],
          },
        ],
      },
    ],
  };
  return `${JSON.stringify(sarif, null, 2)}\n`;
}

// ---- GitHub workflow commands --------------------------------------------------------------------------------

function commandData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function commandProperty(text: string): string {
  return commandData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

const GITHUB_LEVEL = { error: 'error', warning: 'warning', note: 'notice' } as const;

/**
 * `::error file=spec/spaces.tsp,line=221,title=…::message` per finding (`warning` for allowed breaks and warnings,
 * `notice` for the rest), then the summary line, plain.
 */
export function formatGithub(verdict: Verdict, options: ReportOptions & { fallback?: (finding: Finding) => SourceLocation | undefined }): string {
  const lines: string[] = [];
  for (const entry of verdict.judged) {
    const { finding } = entry;
    const location = options.locate?.(finding) ?? options.fallback?.(finding);
    const properties = [
      ...(location ? [`file=${commandProperty(location.file)}`, `line=${location.line}`] : []),
      `title=${commandProperty(`${severityLabel(entry)}: ${finding.rule}`)}`,
    ].join(',');
    const operations = finding.operations.length > 0 ? ` (${summarizeOperations(finding.operations)})` : '';
    const message = [
      `${finding.message}${operations}`,
      consequence(finding),
      finding.path,
      ...(entry.declaration ? [`Declared: ${entry.declaration.reason}`] : []),
    ].join('\n');
    lines.push(`::${GITHUB_LEVEL[level(entry)]} ${properties}::${commandData(message)}`);
  }
  for (const block of consumerBlocks(verdict)) {
    const kind = block.verdict === 'breaks' ? 'error' : block.verdict === 'untouched' ? 'notice' : 'warning';
    lines.push(`::${kind} title=${commandProperty(`check:breaking consumer ${block.consumer}`)}::${commandData([`${CONSUMERS_HEADING}: ${block.head}`, ...block.lines].join('\n'))}`);
  }
  for (const declaration of verdict.stale) lines.push(`::error title=check%3Abreaking stale declaration::${commandData(staleLine(declaration, options.declarationsFile))}`);
  for (const problem of verdict.problems) lines.push(`::error title=check%3Abreaking problem::${commandData(problem)}`);
  lines.push(summaryLine(verdict));
  return `${lines.join('\n')}\n`;
}
