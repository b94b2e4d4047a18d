// A removal held to its deprecation: an operation, parameter or body field that the release (the base) did not
// deprecate is "removed without deprecation"; one it deprecated with a sunset (`x-sunset`) still to come is "removed
// before its sunset", which nothing lets pass; one whose sunset has passed (or that has none) is the removal itself,
// which breaks the consumers whose records still use it (breaking/README.md, "Removals and deprecations").
import { deprecationOf, deprecationText, startOfDay } from './deprecation.ts';
import type { Finding } from './findings.ts';
import { deref } from './operations.ts';
import { resolvePointer } from './pointer.ts';
import { RULES, type RuleId } from './rules.ts';

/** The removal rules held to a deprecation, and the rules they become. */
const HELD: Partial<Record<RuleId, { without: RuleId; early: RuleId }>> = {
  'operation-removed': { without: 'operation-removed-without-deprecation', early: 'operation-removed-before-sunset' },
  'request-parameter-removed': { without: 'request-parameter-removed-without-deprecation', early: 'request-parameter-removed-before-sunset' },
  'request-property-removed': { without: 'request-property-removed-without-deprecation', early: 'request-property-removed-before-sunset' },
  'response-property-removed': { without: 'response-property-removed-without-deprecation', early: 'response-property-removed-before-sunset' },
};

const EARLY = new Set(Object.values(HELD).map((rules) => rules.early));

/** A removal before its sunset: refused, whatever declares it, a major version or the consumers' records. */
export const isRefusedRemoval = (rule: string): boolean => EARLY.has(rule as RuleId);

/** Today, UTC, as `YYYY-MM-DD`. */
export const today = (): string => new Date().toISOString().slice(0, 10);

/** `finding` under another rule: its severity, action and message that rule's. */
function under(finding: Finding, id: RuleId, detail: string): Finding {
  const rule = RULES.get(id)!;
  const named = finding.fields.map((field) => `\`${field}\``).join(', ');
  const { action: _action, ...rest } = finding;
  return { ...rest, rule: id, severity: rule.severity, detail, message: named ? `${named}: ${detail}` : detail, ...(rule.action ? { action: rule.action } : {}) };
}

/**
 * `findings` with each removal held to the base's deprecation of what it removes, on `day` (`YYYY-MM-DD`): without
 * deprecation, before its sunset, or (its sunset passed, or none set) as found, its detail naming the deprecation.
 */
export function heldRemovals(base: unknown, findings: readonly Finding[], day: string): Finding[] {
  return findings.map((finding) => {
    const rules = HELD[finding.rule];
    if (!rules || finding.document !== 'base') return finding;
    const removed = resolvePointer(base, finding.path);
    const deprecation = deprecationOf(removed) ?? deprecationOf(deref(base, removed).node);
    if (!deprecation) return under(finding, rules.without, `${finding.detail}, never deprecated in a release`);
    if (deprecation.sunset !== undefined && startOfDay(day) < startOfDay(deprecation.sunset)) {
      return under(finding, rules.early, `${finding.detail} before its sunset ${deprecation.sunset} (${deprecationText(deprecation)})`);
    }
    const detail = `${finding.detail} ${deprecation.sunset === undefined ? 'as deprecated, without a sunset' : `after its sunset ${deprecation.sunset}`} (${deprecationText(deprecation)})`;
    return { ...finding, detail, message: finding.message.replace(finding.detail, detail) };
  });
}
