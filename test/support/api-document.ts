// Reads the operation inventory out of the API document (docs/api-document.md) and the wire decisions
// (docs/wire-decisions.md), so that no test hand-writes a path or operation list.
import path from 'node:path';
import { repoRoot } from './repo.ts';

export const apiDocumentPath = path.join(repoRoot, 'docs/api-document.md');
export const designPath = path.join(repoRoot, 'docs/wire-decisions.md');

const METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'HEAD', 'PATCH', 'TRACE'];

/** `METHOD path` for every operation of the endpoint tables under "## Endpoints", in document order. */
export function parseEndpointOperations(markdown: string): string[] {
  const operations: string[] = [];
  let inEndpoints = false;
  let section: Section | undefined;

  markdown.split('\n').forEach((line, index) => {
    const where = `line ${index + 1}`;
    if (line.startsWith('## ')) {
      inEndpoints = line.trim() === '## Endpoints';
      section = undefined;
    } else if (!inEndpoints) {
      return;
    } else if (line.startsWith('### ')) {
      section = newSection();
    } else if (section && line.startsWith('|')) {
      operations.push(...section.row(splitRow(line), where));
    } else if (section) {
      section.prose(line, where);
      operations.push(...commenters(line));
    }
  });
  return operations;
}

/** `METHOD path` of sortSiteStructure, the one operation the wire decisions add without a table row in the document. */
export function parseDesignOperations(markdown: string): string[] {
  const line = markdown.split('\n').find((text) => text.startsWith('- **sortSiteStructure**:'));
  const match = line?.match(/`([A-Z]+) (\/v1\/[^`\s]*)`/);
  if (!match) throw new Error('docs/wire-decisions.md: no "- **sortSiteStructure**: `METHOD /v1/...`" line');
  return [`${match[1]} ${match[2]}`];
}

interface Section {
  prose(line: string, where: string): void;
  row(cells: string[], where: string): string[];
}

function newSection(): Section {
  let bases: string[] = [];
  let changeRequestBase: string | undefined;
  let header: string[] | undefined;
  const earlierPaths: string[][] = [];

  return {
    prose(line) {
      header = undefined; // a table ends at the first line that is not a row
      // "Base: `/v1/...`." or "Space-level base: `...`. Change-request-level base: `...`."
      const stated = [...line.matchAll(/\b[Bb]ase: `(\/v1\/[^`]*)`/g)].map((match) => match[1]);
      if (stated.length > 0) bases = stated;
      // Space content: "the same operation exists under `/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content...`";
      // the change-request base is that path cut after its last {param}, since the suffix column repeats /content.
      const under = line.match(/same operation exists under `(\/v1\/[^`]*)\.\.\.`/);
      if (under) changeRequestBase = truncateAfterLastParameter(under[1]);
    },

    row(cells, where) {
      if (!header) {
        header = cells;
        return [];
      }
      if (cells.every((cell) => /^:?-+:?$/.test(cell))) return [];
      const [method = '', pathCell = ''] = cells;
      if (!METHODS.includes(method)) throw new Error(`${where}: expected an HTTP method, found "${method}"`);

      const paths = resolvePaths(pathCell, bases, earlierPaths, where);
      earlierPaths.push(paths);
      const operations = paths.map((resolved) => `${method} ${resolved}`);

      const suffixColumn = header.indexOf('Change-request path suffix');
      const suffix = suffixColumn >= 0 ? cells[suffixColumn] : undefined;
      if (suffix !== undefined && suffix !== 'none') {
        if (!changeRequestBase) {
          throw new Error(`${where}: a change-request suffix, but no "same operation exists under" line above the table`);
        }
        operations.push(`${method} ${changeRequestBase}${suffix}`);
      }
      return operations;
    },
  };
}

function resolvePaths(cell: string, bases: string[], earlierPaths: string[][], where: string): string[] {
  if (cell.startsWith('/v1')) return [cell];
  if (cell === 'same path') {
    const previous = earlierPaths.at(-1);
    if (!previous) throw new Error(`${where}: "same path" on the first row of a table`);
    return previous;
  }
  // ".../{param}/rest": the most recent earlier path of the table that has the {param} segment, cut after it.
  const relative = cell.match(/^\.\.\.\/(\{[^}]+\})(.*)$/);
  if (relative) {
    const [, parameter, rest] = relative;
    const base = earlierPaths
      .flat()
      .reverse()
      .find((earlier) => earlier.split('/').includes(parameter));
    if (!base) throw new Error(`${where}: no earlier row has a ${parameter} segment for "${cell}"`);
    return [base.slice(0, base.indexOf(`/${parameter}`) + parameter.length + 1) + rest];
  }
  if (cell === '(base)' || cell.startsWith('/')) {
    if (bases.length === 0) throw new Error(`${where}: "${cell}" in a section that states no base`);
    return bases.map((base) => (cell === '(base)' ? base : base + cell));
  }
  throw new Error(`${where}: unrecognised path "${cell}"`);
}

// "Commenters: GET `/v1/...` and GET `/v1/...`, with page and limit, ..."
function commenters(line: string): string[] {
  if (!line.startsWith('Commenters:')) return [];
  return [...line.matchAll(/\b([A-Z]+) `(\/v1\/[^`]*)`/g)].map((match) => `${match[1]} ${match[2]}`);
}

function truncateAfterLastParameter(template: string): string {
  const end = template.lastIndexOf('}');
  if (end < 0) throw new Error(`no {parameter} segment in ${template}`);
  return template.slice(0, end + 1);
}

/** The cells of a markdown table row. */
export function splitRow(line: string): string[] {
  return line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((cell) => cell.trim());
}
