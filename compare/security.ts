// Security schemes are compared by what they are (their definition), not by their names: a requirement names
// schemes, and two requirements are the same when the schemes they name are defined alike, with the same scopes.
// A scheme keeps its identity across a rename (another name, the same definition) and across a change of its
// definition under the same name (reported once, as `security-scheme-changed`, not on every operation).
import { canonical, child, isObject, type JsonObject } from './pointer.ts';
import { emit, type Context } from './findings.ts';
import { deref, type Operation } from './operations.ts';

interface Schemes {
  /** The definition of each scheme, normalised (see `schemeDefinition`). */
  definitions: Map<string, JsonObject>;
  /** `canonical` of each definition. */
  keys: Map<string, string>;
}

export interface SecurityContext {
  base: Schemes;
  revision: Schemes;
  /** The identity of a scheme named in the base or in the revision. */
  baseIdentity: (name: string) => string;
  revisionIdentity: (name: string) => string;
  /** Schemes renamed: the base's name → the revision's. */
  renames: Map<string, string>;
}

/**
 * What a security scheme is, as a client sending credentials sees it: its type; for `http` the scheme (case
 * insensitive, RFC 9110); for `apiKey` where the key goes and its name (case insensitive in a header); for `oauth2`
 * each flow's addresses and scope names; for `openIdConnect` the discovery address. Descriptions, `bearerFormat`
 * (documentation only), scope descriptions and extensions are left out.
 */
export function schemeDefinition(node: JsonObject): JsonObject {
  const type = typeof node.type === 'string' ? node.type : '';
  const definition: JsonObject = { type };
  if (type === 'http') definition.scheme = typeof node.scheme === 'string' ? node.scheme.toLowerCase() : null;
  else if (type === 'apiKey') {
    definition.in = typeof node.in === 'string' ? node.in : null;
    definition.name = typeof node.name === 'string' ? (node.in === 'header' ? node.name.toLowerCase() : node.name) : null;
  } else if (type === 'oauth2') {
    const flows: JsonObject = {};
    if (isObject(node.flows)) {
      for (const [kind, flow] of Object.entries(node.flows)) {
        if (!isObject(flow)) continue;
        const entry: JsonObject = {};
        for (const key of ['authorizationUrl', 'tokenUrl', 'refreshUrl'] as const) if (typeof flow[key] === 'string') entry[key] = flow[key];
        entry.scopes = isObject(flow.scopes) ? Object.keys(flow.scopes).sort() : [];
        flows[kind] = entry;
      }
    }
    definition.flows = flows;
  } else if (type === 'openIdConnect') definition.openIdConnectUrl = typeof node.openIdConnectUrl === 'string' ? node.openIdConnectUrl : null;
  else if (type !== 'mutualTLS') {
    // A type this comparison does not know: every field but the documentation.
    for (const [key, value] of Object.entries(node)) if (key !== 'description' && !key.startsWith('x-')) definition[key] = value;
  }
  return definition;
}

function schemesOf(document: JsonObject): Schemes {
  const definitions = new Map<string, JsonObject>();
  const keys = new Map<string, string>();
  const declared = isObject(document.components) && isObject(document.components.securitySchemes) ? document.components.securitySchemes : {};
  for (const [name, raw] of Object.entries(declared)) {
    const node = deref(document, raw).node;
    if (!isObject(node)) continue;
    const definition = schemeDefinition(node);
    definitions.set(name, definition);
    keys.set(name, canonical(definition));
  }
  return { definitions, keys };
}

/**
 * The identity of each scheme: its definition when the other document defines a scheme alike (a rename keeps it),
 * else its name when the other document has a scheme of that name (its definition changed), else its definition.
 */
export function securityContext(context: Context): SecurityContext {
  const base = schemesOf(context.base);
  const revision = schemesOf(context.revision);
  const baseKeys = new Set(base.keys.values());
  const revisionKeys = new Set(revision.keys.values());
  const identity = (own: Schemes, otherKeys: Set<string>, other: Schemes) => (name: string) => {
    const key = own.keys.get(name);
    if (key === undefined) return `name:${name}`;
    if (otherKeys.has(key)) return `definition:${key}`;
    return other.keys.has(name) ? `name:${name}` : `definition:${key}`;
  };
  const renames = new Map<string, string>();
  const taken = new Set<string>();
  for (const [name, key] of base.keys) {
    if (revision.keys.has(name)) continue;
    const to = [...revision.keys].find(([candidate, candidateKey]) => candidateKey === key && !base.keys.has(candidate) && !taken.has(candidate))?.[0];
    if (to === undefined) continue;
    taken.add(to);
    renames.set(name, to);
  }
  return {
    base,
    revision,
    baseIdentity: identity(base, revisionKeys, revision),
    revisionIdentity: identity(revision, baseKeys, base),
    renames,
  };
}

interface Requirement {
  /** The names and scopes as written. */
  names: JsonObject;
  /** The same by scheme identity: what is compared. */
  key: string;
}

function securityOf(document: JsonObject, operation: Operation, identity: (name: string) => string): { alternatives: Requirement[]; pointer: string } {
  const own = Array.isArray(operation.node.security);
  const list = own ? operation.node.security : document.security;
  const requirements = Array.isArray(list) && list.length > 0 ? list : [{}];
  const alternatives: Requirement[] = [];
  const seen = new Set<string>();
  for (const requirement of requirements) {
    if (!isObject(requirement)) continue;
    const names: JsonObject = {};
    const identified: JsonObject = {};
    for (const name of Object.keys(requirement).sort()) {
      const scopes = requirement[name];
      const sorted = Array.isArray(scopes) ? [...scopes].map(String).sort() : [];
      names[name] = sorted;
      identified[identity(name)] = sorted;
    }
    const key = canonical(identified);
    if (seen.has(key)) continue;
    seen.add(key);
    alternatives.push({ names, key });
  }
  return { alternatives, pointer: own ? child(operation.pointer, 'security') : '#/security' };
}

function showRequirement(requirement: JsonObject): string {
  const names = Object.entries(requirement).map(([name, scopes]) =>
    Array.isArray(scopes) && scopes.length > 0 ? `${name} (${scopes.join(', ')})` : name,
  );
  return names.length > 0 ? names.join(' + ') : 'no authentication';
}

/**
 * What differs between two scheme definitions, field by field; undefined when nothing but additions to the OAuth
 * flows did (a new flow, a new scope: what clients obtain today still works, and an operation that now requires a
 * scope says so in its `security`, compared there).
 */
function schemeDifference(was: JsonObject, now: JsonObject): string | undefined {
  const flat = (value: unknown, prefix: string, into: Map<string, string>): Map<string, string> => {
    if (isObject(value)) for (const [key, inner] of Object.entries(value)) flat(inner, prefix ? `${prefix}.${key}` : key, into);
    else into.set(prefix, Array.isArray(value) ? value.join(', ') : String(value));
    return into;
  };
  const a = flat(was, '', new Map());
  const b = flat(now, '', new Map());
  const changes: string[] = [];
  let onlyAdditions = true;
  for (const key of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    const before = a.get(key);
    const after = b.get(key);
    if (before === after) continue;
    const flow = key.startsWith('flows.');
    const addedOnly =
      flow && (before === undefined || (key.endsWith('.scopes') && after !== undefined && splitList(before).every((scope) => splitList(after).includes(scope))));
    if (!addedOnly) onlyAdditions = false;
    changes.push(`${key} ${before === undefined || before === '' ? 'none' : before} → ${after === undefined || after === '' ? 'none' : after}`);
  }
  return changes.length === 0 || onlyAdditions ? undefined : changes.join('; ');
}

function splitList(value: string): string[] {
  return value === '' ? [] : value.split(', ');
}

export function compareSecurity(context: Context, security: SecurityContext, before: Operation, after: Operation): void {
  const operation = after.ref;
  const base = securityOf(context.base, before, security.baseIdentity);
  const revision = securityOf(context.revision, after, security.revisionIdentity);
  const revisionKeys = new Set(revision.alternatives.map((requirement) => requirement.key));
  const baseKeys = new Set(base.alternatives.map((requirement) => requirement.key));
  const anonymous = canonical({});
  for (const requirement of base.alternatives) {
    if (revisionKeys.has(requirement.key) || revisionKeys.has(anonymous)) continue;
    emit(context, {
      rule: 'operation-security-changed',
      path: revision.pointer,
      document: 'revision',
      operation,
      detail: `${showRequirement(requirement.names)} no longer accepted; now ${revision.alternatives.map((entry) => showRequirement(entry.names)).join(' or ')}`,
    });
  }
  for (const requirement of revision.alternatives) {
    if (baseKeys.has(requirement.key)) continue;
    emit(context, {
      rule: 'operation-security-alternative-added',
      path: revision.pointer,
      document: 'revision',
      operation,
      detail: `${showRequirement(requirement.names)} now accepted`,
    });
  }

  for (const requirement of revision.alternatives) {
    for (const name of Object.keys(requirement.names)) {
      const was = security.base.definitions.get(name);
      const now = security.revision.definitions.get(name);
      if (was && now) {
        const difference = schemeDifference(was, now);
        if (difference === undefined) continue;
        emit(context, {
          rule: 'security-scheme-changed',
          path: child('#/components/securitySchemes', name),
          document: 'revision',
          operation,
          detail: `security scheme \`${name}\`: ${difference}`,
        });
      }
    }
  }
}

/** Schemes renamed (the same definition under a new name): information, with the operations that use them. */
export function compareSecuritySchemes(context: Context, security: SecurityContext, revisionOperations: readonly Operation[]): void {
  for (const [from, to] of security.renames) {
    const operations = revisionOperations
      .filter((operation) => securityOf(context.revision, operation, security.revisionIdentity).alternatives.some((requirement) => Object.hasOwn(requirement.names, to)))
      .map((operation) => operation.ref);
    emit(context, {
      rule: 'security-scheme-renamed',
      path: child('#/components/securitySchemes', to),
      document: 'revision',
      operations,
      detail: `security scheme \`${from}\` renamed \`${to}\` (the same definition)${operations.length === 0 ? '; no operation uses it' : ''}`,
      renamed: { from, to },
    });
  }
}
