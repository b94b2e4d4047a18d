// The version `npm run pack:*` gives the packages: the contract's own while generated/openapi.yaml is the last release's
// document; while it holds unreleased changes, a pre-release of the next version, `<next>-dev.<hash>`, written into each
// package's manifest and into `info.version` of the contract it carries, so that a record made against it names it and
// can-i-deploy judges it with its base. Why a hash, and which next: docs/packages.md ("Versions").
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { load, CORE_SCHEMA } from 'js-yaml';
import { compareDocuments } from '../compare/index.ts';
import { listReleases, locations, readDeclarations, readDocument, versionOf } from '../breaking/files.ts';
import { compareVersions, evaluateGate, parseVersion, type Version } from '../breaking/gate.ts';
import { checkPromise } from '../breaking/promise.ts';
import { contractHash } from '../server/http/contract.ts';

/** What is packed: the contract's version as released, or a pre-release of the next version and why that one. */
export type PackedVersion =
  | { version: string; unreleased?: undefined }
  | { version: string; unreleased: { base: string; next: 'minor' | 'major'; why?: string } };

const text = (version: Version) => version.join('.');

/**
 * The pre-release's identifier: the first 8 hex digits of the SHA-256 of the contract as generated (its JSON), so
 * the same contract always packs as the same version and two contracts never do; one of digits only loses its leading
 * zeros (a numeric identifier has none, as semver requires).
 */
export function contractTag(document: Record<string, unknown>): string {
  const hex = createHash('sha256').update(JSON.stringify(document)).digest('hex').slice(0, 8);
  return /^\d+$/.test(hex) ? String(Number(hex)) : hex;
}

/**
 * The version the packages of the repository at `root` are packed as (`packageVersion`, package.json's, while the
 * contract is its last release's document). Else the next minor of the last release, or the next major when a break
 * is not allowed in a minor (undeclared, or declared and breaking a known consumer that has not accepted it:
 * breaking/promise.ts), or the contract's own info.version where that is higher; `-dev.<contractTag>`.
 */
export async function packedVersion(root: string, packageVersion: string): Promise<PackedVersion> {
  const where = locations(root);
  const last = listReleases(root).at(-1);
  if (!last) return { version: packageVersion };
  const document = readDocument(where.document);
  const base = readDocument(last.document);
  if (JSON.stringify(document) === JSON.stringify(base)) return { version: packageVersion };
  const minor: Version = [last.parsed[0], last.parsed[1] + 1, 0];
  const verdict = evaluateGate(compareDocuments(base, document), { baseVersion: last.version, revisionVersion: text(minor), declarations: readDeclarations(where.declarations).declarations });
  const kept = await checkPromise(root, verdict, base, document);
  const unaccepted = [...new Set(kept.unaccepted.map((hit) => hit.name))];
  const why =
    verdict.undeclared.length > 0
      ? `${verdict.undeclared.length} undeclared break(s)`
      : unaccepted.length > 0
        ? `a declared break that ${unaccepted.slice(0, 3).join(', ')}${unaccepted.length > 3 ? ` and ${unaccepted.length - 3} more` : ''} ha${unaccepted.length === 1 ? 's' : 've'} not accepted`
        : '';
  let next: Version = why ? [last.parsed[0] + 1, 0, 0] : minor;
  const own = parseVersion(versionOf(document));
  if (own && compareVersions(own, next) > 0) next = own;
  const kind = next[0] > last.parsed[0] ? 'major' : 'minor';
  return {
    version: `${text(next)}-dev.${contractTag(document)}`,
    unreleased: { base: last.version, next: kind, ...(kind === 'major' && why ? { why } : {}) },
  };
}

/** The one line `npm run pack:*` prints of a pre-release. */
export const prereleaseLine = ({ version, unreleased }: PackedVersion & { unreleased: object }): string =>
  `pack: the contract has changes release ${unreleased.base} does not: packed as ${version}, a pre-release of the next ${unreleased.next}${unreleased.why ? ` (${unreleased.why})` : ''}`;

/** `yamlText` (an OpenAPI document as generated) with `info.version` set to `version`, the rest byte for byte. */
export function withContractVersion(yamlText: string, version: string): string {
  // info's fields are indented two spaces, as the contract is emitted; its version is the one at that depth.
  const info = /^(info:\n(?:(?: {2}.*)?\n)*? {2}version: ).*$/m;
  if (!info.test(yamlText)) throw new Error('pack: the contract has no info.version to set');
  const rewritten = yamlText.replace(info, (_, head: string) => `${head}${version}`);
  const parsed = load(rewritten, { schema: CORE_SCHEMA }) as { info?: { version?: unknown } };
  if (parsed.info?.version !== version) throw new Error(`pack: info.version of the contract could not be set to ${version}`);
  return rewritten;
}

/**
 * Versions the package staged or built in `folder` as `version`: its package.json (and the server's peer range of the
 * client, `^<version>`), the contract it carries (`generated/openapi.yaml`, under `dist/` for the runner) and the
 * server's JSON copy of it (`dist/server/openapi.json`, with the SHA-256 of the YAML it stands for).
 */
export function stampVersion(folder: string, version: string, clientName: string): void {
  const manifestFile = path.join(folder, 'package.json');
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { version: string; peerDependencies?: Record<string, string> };
  manifest.version = version;
  if (manifest.peerDependencies?.[clientName]) manifest.peerDependencies[clientName] = `^${version}`;
  writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  for (const contract of ['generated/openapi.yaml', 'dist/generated/openapi.yaml'].map((file) => path.join(folder, file)).filter((file) => existsSync(file))) {
    const yamlText = withContractVersion(readFileSync(contract, 'utf8'), version);
    writeFileSync(contract, yamlText);
    const json = path.join(folder, 'dist/server/openapi.json');
    if (path.dirname(contract) === path.join(folder, 'generated') && existsSync(json)) {
      const built = JSON.parse(readFileSync(json, 'utf8')) as { document: { info: Record<string, unknown> } };
      built.document.info.version = version;
      writeFileSync(json, JSON.stringify({ sha256: contractHash(yamlText), document: built.document }));
    }
  }
}
