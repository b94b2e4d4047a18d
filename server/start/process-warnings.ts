// Node's process warnings (a dependency's deprecation, the YAML reader's warning about a seed file) in the server's
// log, as lines of its format at level warn, instead of Node's own lines on stderr (`(node:123) [DEP0169] …`) among
// them; but for the warnings of KNOWN, each one warning that a dependency causes and this server cannot act on,
// dropped until the fix it names is released (server/docs/own-pages-cors-logs.md, "Logs").
import type { Logger } from 'pino';

type ProcessWarning = Error & { code?: string };

/** A warning dropped: its code, the function of the dependency it comes from, and what would let the entry go. */
export interface KnownWarning {
  code: string;
  /** The dependency, as named in package.json. */
  dependency: string;
  /**
   * The function that triggers it, as the warning's stack names its caller (`Class.method`). In the compiled server
   * esbuild may have numbered the class (`RequestParameterMutator2`: another module of the bundle has a class of that
   * name), which the match allows.
   */
  caller: string;
  /** The fix upstream that makes the entry useless: once released and installed, delete the entry. */
  until: string;
}

/**
 * express-openapi-validator reads every request's query with `url.parse(req.originalUrl)` (its
 * req.parameter.mutator.js, `RequestParameterMutator.modifyRequest`), up to 5.6.2 and 6.0.0-alpha.9 (the newest
 * published). Node says nothing of a call from a file under node_modules, but the compiled server bundles the
 * validator into dist/server/server.cjs, where Node cannot tell it from the server's own code: the first request
 * logged `DeprecationWarning: url.parse() … DEP0169`, which users read as the server's own problem, and which they
 * can do nothing about (the validator takes only the query of the request's path from it, to check its reserved
 * characters). Node warns of a deprecation once a process: dropping this one leaves a later call of url.parse from
 * elsewhere unwarned too, as it was before (the server's own code calls none). `test/server/process-warnings.test.ts`
 * fails once the installed validator no longer calls url.parse there: then delete the entry.
 */
export const KNOWN: readonly KnownWarning[] = [
  {
    code: 'DEP0169',
    dependency: 'express-openapi-validator',
    caller: 'RequestParameterMutator.modifyRequest',
    until: 'express-openapi-validator reading the query with the WHATWG URL API (new URL) in src/middlewares/parsers/req.parameter.mutator.ts',
  },
];

/**
 * The function that made Node emit `warning`: the first frame of its stack outside Node's own modules (`node:url`),
 * as V8 names it (`Class.method`), or undefined.
 */
export function callerOf(warning: ProcessWarning): string | undefined {
  for (const line of (warning.stack ?? '').split('\n').slice(1)) {
    // `    at Name (where)`, `    at Name [as alias] (where)`, or `    at where` for an anonymous function.
    const frame = /^\s+at (?:async )?(?:(\S+)(?: \[as [^\]]+\])? \((.*)\)|(.*))$/.exec(line);
    if (!frame) continue;
    const [, name, where = frame[3]!] = frame;
    if (where.startsWith('node:')) continue;
    return name;
  }
  return undefined;
}

/** Whether a frame's `Class.method` is `caller`'s, its class numbered or not (`Class2.method`: esbuild's renaming). */
const sameFunction = (frame: string, caller: string): boolean => {
  const [frameClass = '', frameMethod] = frame.split('.');
  const [callerClass = '', callerMethod] = caller.split('.');
  return frameMethod === callerMethod && frameClass.startsWith(callerClass) && /^\d*$/.test(frameClass.slice(callerClass.length));
};

/** The entry of KNOWN that `warning` is, if any: its code, from its function. */
export function knownWarning(warning: ProcessWarning): KnownWarning | undefined {
  if (warning.code === undefined) return undefined;
  const caller = callerOf(warning);
  return caller === undefined ? undefined : KNOWN.find((entry) => entry.code === warning.code && sameFunction(caller, entry.caller));
}

/** Sends the process's warnings to `log` at warn, but those of KNOWN. */
export function logWarnings(log: Logger): void {
  process.removeAllListeners('warning');
  process.on('warning', (warning: ProcessWarning) => {
    if (knownWarning(warning)) return;
    log.warn({ warning: { name: warning.name, ...(warning.code ? { code: warning.code } : {}) } }, `${warning.name}: ${warning.message}`);
  });
}
