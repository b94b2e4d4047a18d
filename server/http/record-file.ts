// A record a server of the test harness writes of its own (coverage-recorder.ts, usage-recorder.ts): one file per
// server in a records folder, so that test files and workers need no coordination, written whole (a temporary file,
// then a rename: a report reading the folder while another worker's server writes sees no half record) when the
// server stops and again when its process exits.
import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The writes of this process's records, made when it exits (one hook, however many servers it started). */
const unwritten = new Set<() => void>();
let exitHook = false;

/**
 * The write of a record of its own into `folder`: `content()` gives the record's text, or undefined when nothing
 * changed since it was last written (nothing is written then). Made at process exit too.
 */
export function recordWriter(folder: string, content: () => string | undefined): () => void {
  const file = path.join(folder, `${process.pid}-${randomBytes(8).toString('hex')}.json`);
  const write = () => {
    const text = content();
    if (text === undefined) return;
    mkdirSync(folder, { recursive: true });
    writeFileSync(`${file}.tmp`, text);
    renameSync(`${file}.tmp`, file);
  };
  unwritten.add(write);
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => unwritten.forEach((pending) => pending()));
  }
  return write;
}
