// server/code-cache.ts: a CommonJS file runs as a module would, with a V8 code cache that is used when it fits, and
// never when it was made from another source (even of the same length), by another V8 or under other flags, or is
// not one of ours. The compiled server's own cache is checked in main.test.ts.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { cacheFileOf, compileCommonJs } from '../../server/code-cache.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'code-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
/** A new CommonJS file exporting what it was given as a module sees it, and `answer`. */
function moduleFile(answer: number): string {
  const file = path.join(dir, `m${files++}.cjs`);
  writeFileSync(
    file,
    [
      `const { join } = require('node:path');`,
      `exports.answer = () => ${answer};`,
      `exports.seen = { filename: __filename, dirname: __dirname, same: module.exports === exports, joined: join('a', 'b'), self: this === exports };`,
      `exports.stack = () => new Error('here').stack;`,
    ].join('\n'),
  );
  return file;
}

type Exports = { answer(): number; seen: Record<string, unknown>; stack(): string };

describe('compileCommonJs', () => {
  test('runs the file as Node runs a CommonJS module: exports, require, module, __filename, __dirname, this', () => {
    const file = moduleFile(1);
    const exports = compileCommonJs(file).run() as Exports;
    expect(exports.answer()).toBe(1);
    expect(exports.seen).toEqual({ filename: file, dirname: dir, same: true, joined: path.join('a', 'b'), self: true });
    expect(exports.stack()).toContain(`${file}:4:`); // errors point at the file's own lines
  });

  test('without a cache it compiles the source; save() writes one, which the next compile uses', () => {
    const file = moduleFile(2);
    const first = compileCommonJs(file);
    expect(first.status).toBe('none');
    expect((first.run() as Exports).answer()).toBe(2);
    expect(first.save()).toBe(true);
    expect(existsSync(cacheFileOf(file))).toBe(true);
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);

    const second = compileCommonJs(file);
    expect(second.status).toBe('used');
    expect((second.run() as Exports).answer()).toBe(2);
  });

  test('a cache of another source of the same length is not used: V8 alone would take it and run the old code', () => {
    const file = moduleFile(3);
    const first = compileCommonJs(file);
    first.run();
    first.save();
    writeFileSync(file, readFileSync(file, 'utf8').replace('=> 3', '=> 4'));

    const changed = compileCommonJs(file);
    expect(changed.status).toBe('stale');
    expect((changed.run() as Exports).answer()).toBe(4);
    changed.save();
    expect(compileCommonJs(file).status).toBe('used');
  });

  test('a file that is not one of our caches is ignored', () => {
    const file = moduleFile(5);
    writeFileSync(cacheFileOf(file), 'not a cache');
    const script = compileCommonJs(file);
    expect(script.status).toBe('none');
    expect((script.run() as Exports).answer()).toBe(5);
  });

  test('V8 refuses a cache made under other V8 flags; the file runs from its source', () => {
    const file = moduleFile(6);
    const compile = (flags: string[]) =>
      spawnSync(
        process.execPath,
        [...flags, '--import', 'tsx', '--input-type=module', '-e',
          `import { compileCommonJs } from ${JSON.stringify(path.resolve('server/code-cache.ts'))};
           const script = compileCommonJs(${JSON.stringify(file)});
           const answer = script.run().answer();
           if (script.status !== 'used') script.save();
           console.log(script.status, answer);`],
        { encoding: 'utf8' },
      ).stdout.trim();
    expect(compile(['--max-semi-space-size=2'])).toBe('none 6');
    expect(compile(['--max-semi-space-size=2'])).toBe('used 6');
    expect(compile(['--max-semi-space-size=4'])).toBe('rejected 6');
  }, 30_000);

  test('a cache that cannot be written is not written, and says so', () => {
    const file = moduleFile(8);
    const script = compileCommonJs(file, path.join(dir, 'no-such-folder', 'm.cache'));
    expect((script.run() as Exports).answer()).toBe(8);
    expect(script.save()).toBe(false);
  });
});
