// The contract as the server serves it at /openapi.json and /openapi.yaml: generated/openapi.yaml exactly, but for
// `servers`, which names this server (its public address, the base of every `urls.location`), so that a tool given
// the document (the /docs page, a client generator) calls this server. Both texts are built on first request, once.
import { readFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { CONTRACT_PATH, type OpenApiDocument } from './contract.ts';

export interface ServedContract {
  document: OpenApiDocument;
  json(): string;
  yaml(): string;
}

/** `servers` of the served document: this server, keeping the description the contract gives its server. */
function ownServers(contract: OpenApiDocument, publicUrl: string): { url: string; description?: string }[] {
  const declared = (contract.servers as { description?: string }[] | undefined)?.[0];
  return [{ url: publicUrl, ...(declared?.description ? { description: declared.description } : {}) }];
}

/**
 * The YAML text with its top-level `servers` block replaced: every other byte is the file's, so the served YAML
 * reads exactly as the committed one (comments, order, quoting). Falls back to a full re-serialisation when the
 * file has no top-level `servers` block written in block style.
 */
function withServers(yamlText: string, document: OpenApiDocument): string {
  const block = stringify({ servers: document.servers }, { lineWidth: 0 });
  const lines = yamlText.split('\n');
  const start = lines.indexOf('servers:');
  if (start < 0) return stringify(document, { lineWidth: 0 });
  let end = start + 1;
  while (end < lines.length && (lines[end]!.startsWith(' ') || lines[end]!.startsWith('-') || lines[end] === '')) end++;
  // Blank lines at the end of the block belong to what follows.
  while (end > start + 1 && lines[end - 1] === '') end--;
  return [...lines.slice(0, start), block.replace(/\n$/, ''), ...lines.slice(end)].join('\n');
}

/**
 * The served contract. `contract` is the document the app routes (not modified); `yamlText` the text it was read
 * from (generated/openapi.yaml as it was at start-up), from which the YAML is made; without it the YAML is a
 * serialisation of the document.
 */
export function servedContract(contract: OpenApiDocument, publicUrl: string, yamlText?: string): ServedContract {
  const document: OpenApiDocument = { ...contract, servers: ownServers(contract, publicUrl) };
  let json: string | undefined;
  let yaml: string | undefined;
  return {
    document,
    json: () => (json ??= JSON.stringify(document)),
    yaml: () => (yaml ??= yamlText === undefined ? stringify(document, { lineWidth: 0 }) : withServers(yamlText, document)),
  };
}

/** generated/openapi.yaml as it is now. */
export const contractText = (): string => readFileSync(CONTRACT_PATH, 'utf8');
