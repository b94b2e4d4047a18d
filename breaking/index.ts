// The breaking-change library: compare two OpenAPI 3.1 documents, judge the findings against declarations and
// versions, and write them as a report (release notes: release/notes.ts). Pure: documents in, findings out; the commands
// (check.ts here, changelog.ts and release.ts in release/) do the file system. Rules and declarations are in README.md
// beside this file, the release procedure in release/README.md.
export { compareDocuments, type CompareOptions, type Finding, type OperationRef } from '../compare/index.ts';
export {
  compareVersions,
  declarationFor,
  evaluateGate,
  matches,
  parseDeclarations,
  parseVersion,
  type Declaration,
  type GateOptions,
  type Judged,
  type Verdict,
  type Version,
} from './gate.ts';
export { formatReport, type ReportOptions } from './report.ts';
export {
  RULES,
  SCHEMA_CONTEXTS,
  SEVERITIES,
  isBreaking,
  schemaRule,
  type Rule,
  type RuleId,
  type SchemaContext,
  type SchemaKind,
  type Severity,
} from '../compare/rules.ts';
