// The Node versions the packages run on (`SUPPORTED_NODE`, every package's `engines.node`), and the one line a command
// or the test harness gives on another Node, before it loads anything else. It imports nothing and uses nothing Node 20
// lacks, so that an old Node gets as far as this check (server/docs/design.md, "Supported Node versions").

/** The Node versions the packages support: their `engines.node`, clauses `^X.Y.Z` or `>=X.Y.Z` joined by `||`. */
export const SUPPORTED_NODE = '^22.12.0 || ^24.0.0 || >=26.0.0';

interface Clause {
  /** `^`: this major, from the version on; `>=`: the version and every later one. */
  operator: '^' | '>=';
  version: [number, number, number];
}

const clauses: Clause[] = SUPPORTED_NODE.split('||').map((text) => {
  const match = /^(\^|>=)(\d+)\.(\d+)\.(\d+)$/.exec(text.trim());
  if (!match) throw new Error(`runtime-check: "${text.trim()}" is not a clause of the form ^X.Y.Z or >=X.Y.Z`);
  return { operator: match[1] as Clause['operator'], version: [Number(match[2]), Number(match[3]), Number(match[4])] };
});

/** -1, 0 or 1 as `a` is before, at or after `b`. */
function compare(a: readonly number[], b: readonly number[]): number {
  for (let index = 0; index < 3; index++) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) return Math.sign(difference);
  }
  return 0;
}

/** Whether Node `version` (as `process.versions.node` gives it: 22.12.0) is one the packages support. */
export function supportsNode(version: string): boolean {
  const parts = version.split(/[.-]/, 3).map((part) => Number.parseInt(part, 10) || 0);
  return clauses.some(({ operator, version: from }) => compare(parts, from) >= 0 && (operator === '>=' || parts[0] === from[0]));
}

/** The supported versions in words: `Node 22 (22.12 or later), 24, or 26 or later`. */
export function supportedNodeText(): string {
  const words = clauses.map(({ operator, version: [major, minor, patch] }) => {
    if (operator === '>=') return `${major}${minor || patch ? `.${minor}${patch ? `.${patch}` : ''}` : ''} or later`;
    return minor || patch ? `${major} (${major}.${minor}${patch ? `.${patch}` : ''} or later)` : `${major}`;
  });
  return `Node ${words.length > 1 ? `${words.slice(0, -1).join(', ')}, or ${words.at(-1)}` : words[0]}`;
}

/** The line a command prints on Node `version`, or undefined when that Node is supported. */
export function unsupportedNodeLine(command: string, version: string): string | undefined {
  return supportsNode(version) ? undefined : `${command}: Node ${version} is not supported; use ${supportedNodeText()}`;
}
