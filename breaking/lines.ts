// Where a JSON path is in a document's text (JSON, or YAML in block or flow style), for the formats that point at
// lines: the line of the deepest part of the path the text holds, found by reading the text along the path, without
// parsing it into a tree. How, why, and what ends a path: breaking/README.md ("The gate").
import { segments } from '../compare/pointer.ts';

/** A line in a file where a finding is shown: its TypeSpec declaration's (locate.ts), or its JSON path's (here). */
export interface SourceLocation {
  /** Relative to the repository (or to the working directory for documents elsewhere). */
  file: string;
  /** 1-based. */
  line: number;
}

/** A container in the text: a flow one at its bracket, or a block mapping or sequence with its indentation. */
type Container =
  | { kind: 'flow'; offset: number }
  | { kind: 'mapping'; indent: number; line: number; first: number }
  | { kind: 'sequence'; indent: number; line: number; first: number };

/** An entry of a container: where it is shown (its key, or its item) and how its value is reached. */
interface Entry {
  offset: number;
  value: () => Container | undefined;
}

const NEWLINE = 10;
const SPACE = 32;
const TAB = 9;
const RETURN = 13;
const HASH = 35;
const DASH = 45;
const COLON = 58;
const COMMA = 44;
const QUOTE = 34;
const APOSTROPHE = 39;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

/** A flow container read so far: its entries, where the next one starts, and whether none does. */
interface Flow {
  entries: Map<string, Entry>;
  /** Where the next entry starts, or the value of the last one read, still to be skipped. */
  next: number;
  pending: boolean;
  done: boolean;
}

/** How many lines apart the line index keeps a start: finding a line counts at most that many. */
const LINE_STEP = 1024;

/** Locates JSON paths in a document's text (YAML or JSON): the line of the deepest part of the path it holds. */
export function documentLocator(text: string, file: string): (pointer: string) => SourceLocation | undefined {
  const reader = new TextReader(text);
  return (pointer) => ({ file, line: reader.lineOf(reader.locate(segments(pointer))) });
}

class TextReader {
  private readonly text: string;
  /** The entries of the block containers read, by where they start. */
  private readonly entries = new Map<number, Map<string, Entry>>();
  /** The flow containers being read, by where they start: read as far as the entries asked for so far. */
  private readonly flows = new Map<number, Flow>();
  /** Where each flow container read to its end ends: skipping it again is a jump. */
  private readonly ends = new Map<number, number>();
  /** The start of every `LINE_STEP`-th line, as far as it was needed. */
  private readonly starts: number[] = [0];
  /** Whether `starts` reaches the end of the text. */
  private counted = false;
  private root: { offset: number; container: Container | undefined } | undefined;

  constructor(text: string) {
    this.text = text;
  }

  /** The offset of the deepest part of the path the text holds. */
  locate(parts: readonly string[]): number {
    this.root ??= this.top();
    let { offset, container } = this.root;
    for (const part of parts) {
      if (!container) break;
      const entry = this.entry(container, part);
      if (!entry) break;
      offset = entry.offset;
      container = entry.value();
    }
    return offset;
  }

  /** The 1-based line of an offset. */
  lineOf(offset: number): number {
    const { text, starts } = this;
    while (!this.counted && starts.at(-1)! <= offset) {
      let position = starts.at(-1)!;
      for (let count = 0; count < LINE_STEP && position !== -1; count += 1) {
        position = text.indexOf('\n', position);
        if (position !== -1) position += 1;
      }
      if (position === -1) this.counted = true;
      else starts.push(position);
    }
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    let line = low * LINE_STEP;
    let position = starts[low]!;
    for (;;) {
      const next = text.indexOf('\n', position);
      if (next === -1 || next >= offset) break;
      position = next + 1;
      line += 1;
    }
    return line + 1;
  }

  /** The document's own node: a flow collection, a block one, or a scalar. */
  private top(): { offset: number; container: Container | undefined } {
    let line = 0;
    for (;;) {
      const content = this.contentLine(line);
      if (content === undefined) return { offset: 0, container: undefined };
      const { start, indent, end } = content;
      const at = start + indent;
      const rest = this.text.slice(at, end).trimEnd();
      // Directives and the document start marker.
      if (rest.startsWith('%') || rest === '---') {
        line = end + 1;
        continue;
      }
      return { offset: at, container: this.nodeAt(at, end, start) };
    }
  }

  /** The entry of a container named `part` (a key, or an item's index). */
  private entry(container: Container, part: string): Entry | undefined {
    if (container.kind === 'flow') return this.flowEntry(container.offset, part);
    let known = this.entries.get(container.first);
    if (!known) {
      known = container.kind === 'mapping' ? this.mappingEntries(container) : this.sequenceEntries(container);
      this.entries.set(container.first, known);
    }
    return known.get(part);
  }

  // ---- lines ----------------------------------------------------------------------------------------------------

  /** The line starting at `start`: its end, and its indentation (undefined for a line that is blank or a comment). */
  private lineAt(start: number): { end: number; indent: number | undefined } {
    const { text } = this;
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    let at = start;
    while (at < end && text.charCodeAt(at) === SPACE) at += 1;
    const code = text.charCodeAt(at);
    const blank = at >= end || code === HASH || code === RETURN || (code === TAB && text.slice(at, end).trim() === '');
    return { end, indent: blank ? undefined : at - start };
  }

  /** The first line at or after `start` that holds something. */
  private contentLine(start: number): { start: number; indent: number; end: number } | undefined {
    let position = start;
    while (position <= this.text.length) {
      const { end, indent } = this.lineAt(position);
      if (indent !== undefined) return { start: position, indent, end };
      if (end >= this.text.length) return undefined;
      position = end + 1;
    }
    return undefined;
  }

  // ---- block style ------------------------------------------------------------------------------------------------

  /**
   * The node whose text starts at `at` on the line `[start, end)`: a flow collection, a block mapping whose first
   * key is there, a block sequence whose first item is there, or a scalar (undefined).
   */
  private nodeAt(at: number, end: number, start: number): Container | undefined {
    const { text } = this;
    const code = text.charCodeAt(at);
    if (code === OPEN_BRACE || code === OPEN_BRACKET) return { kind: 'flow', offset: at };
    if (code === DASH && this.isIndicator(at + 1, end)) return { kind: 'sequence', indent: at - start, line: start, first: at };
    if (this.keyAt(at, end)) return { kind: 'mapping', indent: at - start, line: start, first: at };
    return undefined;
  }

  /** Whether the character at `at` ends an indicator (`-`, `:`): a space, or the end of the line. */
  private isIndicator(at: number, end: number): boolean {
    if (at >= end) return true;
    const code = this.text.charCodeAt(at);
    return code === SPACE || code === TAB || code === RETURN;
  }

  /** The key of a mapping entry starting at `at`, and where its value starts on the line (or `end`). */
  private keyAt(at: number, end: number): { key: string; value: number } | undefined {
    const { text } = this;
    const code = text.charCodeAt(at);
    if (code === QUOTE || code === APOSTROPHE) {
      const close = this.quoteEnd(at);
      if (close === -1 || close >= end) return undefined;
      let after = close + 1;
      while (after < end && text.charCodeAt(after) === SPACE) after += 1;
      if (text.charCodeAt(after) !== COLON || !this.isIndicator(after + 1, end)) return undefined;
      return { key: this.quoted(at, close), value: after + 1 };
    }
    if (code === HASH || code === DASH || code === OPEN_BRACE || code === OPEN_BRACKET || code === 63 /* ? */ || code === 38 /* & */ || code === 42 /* * */ || code === 33 /* ! */) {
      return undefined;
    }
    let colon = text.indexOf(':', at);
    while (colon !== -1 && colon < end && !this.isIndicator(colon + 1, end)) colon = text.indexOf(':', colon + 1);
    if (colon === -1 || colon >= end) return undefined;
    return { key: text.slice(at, colon).trimEnd(), value: colon + 1 };
  }

  /**
   * The value of an entry whose text may start at `from` on a line ending at `end`, the entry at column `indent`: on
   * the line, or on the lines below, more indented (or, for a mapping's key, a sequence at the key's column).
   */
  private valueOf(from: number, end: number, indent: number, key: boolean): Container | undefined {
    const { text } = this;
    let at = from;
    while (at < end && (text.charCodeAt(at) === SPACE || text.charCodeAt(at) === TAB)) at += 1;
    // An anchor before the value names it; the value follows.
    if (text.charCodeAt(at) === 38 /* & */) {
      while (at < end && text.charCodeAt(at) !== SPACE) at += 1;
      while (at < end && text.charCodeAt(at) === SPACE) at += 1;
    }
    if (at < end && text.charCodeAt(at) !== HASH && text.charCodeAt(at) !== RETURN) {
      const code = text.charCodeAt(at);
      return code === OPEN_BRACE || code === OPEN_BRACKET ? { kind: 'flow', offset: at } : undefined;
    }
    // On the lines below: a collection more indented, or a sequence at the same indentation.
    const next = this.contentLine(end + 1);
    if (!next) return undefined;
    const first = next.start + next.indent;
    if (next.indent > indent || (key && next.indent === indent && text.charCodeAt(first) === DASH && this.isIndicator(first + 1, next.end))) {
      return this.nodeAt(first, next.end, next.start);
    }
    return undefined;
  }

  private mappingEntries(mapping: { indent: number; line: number; first: number }): Map<string, Entry> {
    const entries = new Map<string, Entry>();
    let start = mapping.line;
    let at = mapping.first;
    while (start < this.text.length) {
      const { end, indent } = this.lineAt(start);
      if (indent !== undefined) {
        if (at === -1) {
          if (indent < mapping.indent) break;
          if (indent === mapping.indent) at = start + indent;
        }
        if (at !== -1) {
          const key = this.keyAt(at, end);
          // At the mapping's indentation: a key, or the items of an indentless sequence (the last key's value).
          if (key) {
            if (!entries.has(key.key)) entries.set(key.key, { offset: at, value: () => this.valueOf(key.value, end, mapping.indent, true) });
          } else if (!(this.text.charCodeAt(at) === DASH && this.isIndicator(at + 1, end))) break;
        }
      }
      at = -1;
      if (end >= this.text.length) break;
      start = end + 1;
    }
    return entries;
  }

  private sequenceEntries(sequence: { indent: number; line: number; first: number }): Map<string, Entry> {
    const entries = new Map<string, Entry>();
    let start = sequence.line;
    // The first item may stand after another indicator on its line (`- - a`).
    let dash = sequence.first;
    while (start < this.text.length) {
      const { end, indent } = this.lineAt(start);
      if (indent !== undefined) {
        if (dash === -1) {
          if (indent < sequence.indent) break;
          if (indent === sequence.indent) dash = start + indent;
        }
        if (dash !== -1) {
          if (this.text.charCodeAt(dash) !== DASH || !this.isIndicator(dash + 1, end)) break;
          let item = dash + 1;
          while (item < end && this.text.charCodeAt(item) === SPACE) item += 1;
          const itemEnd = end;
          const lineStart = start;
          if (item < end && this.text.charCodeAt(item) !== HASH) {
            entries.set(String(entries.size), { offset: item, value: () => this.nodeAt(item, itemEnd, lineStart) });
          } else {
            // The item is on the lines below.
            const below = this.contentLine(end + 1);
            const offset = below && below.indent > sequence.indent ? below.start + below.indent : dash;
            entries.set(String(entries.size), { offset, value: () => this.valueOf(itemEnd, itemEnd, sequence.indent, false) });
          }
        }
      }
      dash = -1;
      if (end >= this.text.length) break;
      start = end + 1;
    }
    return entries;
  }

  // ---- flow style (JSON) ----------------------------------------------------------------------------------------

  private skipSpace(at: number): number {
    const { text } = this;
    for (;;) {
      const code = text.charCodeAt(at);
      if (code === SPACE || code === NEWLINE || code === RETURN || code === TAB) at += 1;
      else if (code === HASH) {
        const end = text.indexOf('\n', at);
        at = end === -1 ? text.length : end;
      } else return at;
    }
  }

  /** The offset of the quote that closes the string opened at `at`; -1 when none does. */
  private quoteEnd(at: number): number {
    const { text } = this;
    const quote = text[at]!;
    let position = at + 1;
    for (;;) {
      const close = text.indexOf(quote, position);
      if (close === -1) return -1;
      if (quote === "'") {
        // '' is an escaped quote in a single-quoted YAML string.
        if (text.charCodeAt(close + 1) === APOSTROPHE) {
          position = close + 2;
          continue;
        }
        return close;
      }
      let backslashes = 0;
      while (text.charCodeAt(close - 1 - backslashes) === 92) backslashes += 1;
      if (backslashes % 2 === 0) return close;
      position = close + 1;
    }
  }

  private quoted(open: number, close: number): string {
    const raw = this.text.slice(open + 1, close);
    if (this.text.charCodeAt(open) === APOSTROPHE) return raw.replace(/''/g, "'");
    if (!raw.includes('\\')) return raw;
    try {
      return JSON.parse(`"${raw}"`) as string;
    } catch {
      return raw;
    }
  }

  /** The offset just past the value that starts at `at`. */
  private skipValue(at: number): number {
    const { text } = this;
    const code = text.charCodeAt(at);
    if (code === QUOTE || code === APOSTROPHE) {
      const close = this.quoteEnd(at);
      return close === -1 ? text.length : close + 1;
    }
    const known = this.ends.get(at);
    if (known !== undefined) return known;
    if (code !== OPEN_BRACE && code !== OPEN_BRACKET) {
      let position = at;
      for (; position < text.length; position += 1) {
        const next = text.charCodeAt(position);
        if (next === COMMA || next === CLOSE_BRACE || next === CLOSE_BRACKET || next === NEWLINE) break;
      }
      return position;
    }
    let depth = 0;
    let position = at;
    while (position < text.length) {
      const next = text.charCodeAt(position);
      if (next === QUOTE) {
        const close = this.quoteEnd(position);
        if (close === -1) return text.length;
        position = close + 1;
        continue;
      }
      if (next === OPEN_BRACE || next === OPEN_BRACKET) depth += 1;
      else if (next === CLOSE_BRACE || next === CLOSE_BRACKET) {
        depth -= 1;
        if (depth === 0) return position + 1;
      }
      position += 1;
    }
    return text.length;
  }

  /**
   * The entry `part` of the flow container at `open`, reading its entries from where the last lookup stopped until
   * that one (or the end): each container is read once, and only as far as the lookups need.
   */
  private flowEntry(open: number, part: string): Entry | undefined {
    const { text } = this;
    let flow = this.flows.get(open);
    if (!flow) {
      flow = { entries: new Map(), next: this.skipSpace(open + 1), pending: false, done: false };
      this.flows.set(open, flow);
    }
    const { entries } = flow;
    const object = text.charCodeAt(open) === OPEN_BRACE;
    const close = object ? CLOSE_BRACE : CLOSE_BRACKET;
    while (!entries.has(part) && !flow.done) {
      let at = flow.next;
      if (flow.pending) {
        // The value of the entry read last (not skipped then: the lookup that read it may have wanted to go in).
        flow.pending = false;
        at = this.skipSpace(this.skipValue(at));
        if (text.charCodeAt(at) === COMMA) at = this.skipSpace(at + 1);
        else if (text.charCodeAt(at) !== close) {
          flow.done = true;
          break;
        }
        flow.next = at;
      }
      if (at >= text.length || text.charCodeAt(at) === close) {
        flow.done = true;
        if (at < text.length) this.ends.set(open, at + 1);
        break;
      }
      const offset = at;
      let name = String(entries.size);
      if (object) {
        const code = text.charCodeAt(at);
        let keyEnd: number;
        if (code === QUOTE || code === APOSTROPHE) {
          const end = this.quoteEnd(at);
          if (end === -1) {
            flow.done = true;
            break;
          }
          name = this.quoted(at, end);
          keyEnd = end + 1;
        } else {
          keyEnd = at;
          while (keyEnd < text.length && text.charCodeAt(keyEnd) !== COLON && text.charCodeAt(keyEnd) !== close) keyEnd += 1;
          name = text.slice(at, keyEnd).trim();
        }
        at = this.skipSpace(keyEnd);
        if (text.charCodeAt(at) !== COLON) {
          flow.done = true;
          break;
        }
        at = this.skipSpace(at + 1);
      }
      const valueAt = at;
      const code = text.charCodeAt(valueAt);
      if (!entries.has(name)) {
        entries.set(name, { offset, value: () => (code === OPEN_BRACE || code === OPEN_BRACKET ? { kind: 'flow', offset: valueAt } : undefined) });
      }
      flow.next = valueAt;
      flow.pending = true;
    }
    return entries.get(part);
  }
}
