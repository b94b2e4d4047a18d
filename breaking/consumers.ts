// Which known consumers a finding of the gate touches, from their usage records (docs/contract-consumers.md): those that call
// an operation it affects and, for a field, parameter or status, used that one. `--consumers` of check.ts.
import type { OperationUsage, UsageRecord } from '../conformance/usage-format.ts';
import type { Finding } from '../compare/index.ts';

/** One consumer a finding touches, and the use that shows it. */
export interface ConsumerHit {
  consumer: string;
  operationId: string;
  /** What of the operation it used: `calls it`, `response field /items/*\/title`, `sends query.limit`. */
  evidence: string;
}

/**
 * A field as the gate names it (`SpaceList.items[].title`, `request body.title`, `Space.labels.*`) as the component it
 * is in (undefined: the body itself) and a pointer below it (`/items/*\/title`).
 */
export function fieldPlace(field: string): { component: string | undefined; pointer: string } {
  const owner = /^(request body|response body|[^.[]+)/.exec(field)![1]!;
  const rest = field.slice(owner.length);
  const pointer = rest
    .replace(/\[\]/g, '/*')
    .replace(/\.\*/g, '/*')
    .replace(/\.([^./[*]+)/g, '/$1');
  return { component: owner === 'request body' || owner === 'response body' ? undefined : owner, pointer };
}

/** The pointers `field` names in what a consumer sent or received: below each place its component was found. */
function pointersOf(field: string, schemas: Record<string, string[]> | undefined): string[] {
  const { component, pointer } = fieldPlace(field);
  if (!component) return [pointer];
  return Object.entries(schemas ?? {})
    .filter(([, names]) => names.includes(component))
    .map(([base]) => `${base}${pointer}`);
}

type Use = { hit: boolean; evidence: string };

/** Whether a consumer's use of an operation is touched by `finding`, and how. */
function touches(finding: Finding, usage: OperationUsage): Use {
  const rule = finding.rule;
  const required = /required/.test(rule) && !/optional/.test(rule);
  if (rule.startsWith('response-property') || rule.startsWith('response-header')) {
    for (const response of Object.values(usage.responses)) {
      const used = new Set(response.read ?? response.present);
      const kind = response.read ? 'read' : 'received';
      for (const field of finding.fields) {
        const found = pointersOf(field, response.schemas).find((pointer) => used.has(pointer));
        if (found) return { hit: true, evidence: `response field ${found} ${kind}` };
      }
    }
    return { hit: finding.fields.length === 0, evidence: 'calls it' };
  }
  if (rule.startsWith('request-property')) {
    for (const field of finding.fields) {
      const sent = pointersOf(field, usage.bodySchemas).find((pointer) => pointer in usage.body);
      // A field made required breaks those that do not send it; any other change, those that do.
      if (required && !sent) return { hit: true, evidence: `does not send ${fieldPlace(field).pointer}` };
      if (!required && sent) return { hit: true, evidence: `sends ${sent}` };
    }
    return { hit: finding.fields.length === 0, evidence: 'calls it' };
  }
  if (rule.startsWith('request-parameter')) {
    const sent = (name: string) => Object.keys(usage.parameters).find((key) => key.slice(key.indexOf('.') + 1) === name);
    for (const field of finding.fields) {
      const key = sent(field);
      if (required && !key) return { hit: true, evidence: `does not send parameter ${field}` };
      if (!required && key) return { hit: true, evidence: `sends ${key}` };
    }
    return { hit: finding.fields.length === 0, evidence: 'calls it' };
  }
  if (rule === 'response-status-added') return { hit: true, evidence: `receives ${Object.keys(usage.responses).join(', ') || 'answers'}` };
  return { hit: true, evidence: 'calls it' };
}

/** The consumers `finding` touches: for each record, the first operation it affects whose use it touches. */
export function consumersOf(finding: Finding, records: UsageRecord[]): ConsumerHit[] {
  const hits: ConsumerHit[] = [];
  for (const record of records) {
    for (const operation of finding.operations) {
      const usage = record.operations[operation.operationId];
      if (!usage) continue;
      const use = touches(finding, usage);
      if (use.hit) {
        hits.push({ consumer: record.consumer.name, operationId: operation.operationId, evidence: use.evidence });
        break;
      }
    }
  }
  return hits;
}

/** The sentence a report adds to a finding: the consumers it touches, or that it touches none. */
export function consumersSentence(hits: ConsumerHit[], breaking: boolean): string {
  if (hits.length === 0) return breaking ? 'It breaks no known consumer.' : '';
  const named = hits.map((hit) => `${hit.consumer} (${hit.operationId}: ${hit.evidence})`).join(', ');
  return breaking ? `It breaks ${named}.` : `Warning for consumers: ${named}.`;
}
