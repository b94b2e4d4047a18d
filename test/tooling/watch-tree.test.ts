// The watcher of `npm run dev` (scripts/watch-tree.ts) against the ways editors save, each done twice in a row: both
// saves are reported, once each, and editors' own files never. test/tooling/dev.test.ts has the same saves through a running
// `npm run dev`, served.
import { mkdirSync, mkdtempSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, test, vi } from 'vitest';
import { isEditorFile, type TreeWatcher, watchTree } from '../../scripts/watch-tree.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'watch-tree-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let watcher: TreeWatcher | undefined;
afterEach(() => watcher?.close());

/** A watched folder holding `main.tsp`, and the files reported so far (relative), in order. */
function watched(name: string) {
  const folder = path.join(scratch, name);
  mkdirSync(folder);
  writeFileSync(path.join(folder, 'main.tsp'), 'model A {}\n');
  const reported: string[] = [];
  watcher = watchTree(folder, (file) => file.endsWith('.tsp'), (file) => reported.push(path.relative(folder, file)));
  /** Waits until `count` reports have come, then a little longer to see that no more come. */
  const reports = async (count: number) => {
    await vi.waitFor(() => expect(reported.length).toBeGreaterThanOrEqual(count), { timeout: 10_000, interval: 20 });
    // Events of a save come within milliseconds; one that was not reported would have been by now.
    await new Promise((resolve) => setTimeout(resolve, 200));
    return reported;
  };
  return { folder, file: (relative: string) => path.join(folder, relative), reports };
}

describe('the watcher of npm run dev', () => {
  test('a file written in place, twice', async () => {
    const tree = watched('in-place');
    writeFileSync(tree.file('main.tsp'), 'model B {}\n');
    const first = (await tree.reports(1)).length;
    writeFileSync(tree.file('main.tsp'), 'model C {}\n');
    // A write in place is a truncation and a write: on a loaded machine the empty file between them may be seen too.
    expect(new Set(await tree.reports(first + 1))).toEqual(new Set(['main.tsp']));
  });

  test('a temporary file renamed over the original (vim, sed -i, JetBrains), twice: the second save is seen too', async () => {
    const tree = watched('rename-over');
    for (const [index, content] of ['model B {}\n', 'model C {}\n'].entries()) {
      writeFileSync(tree.file('main.tsp.tmp123'), content);
      renameSync(tree.file('main.tsp.tmp123'), tree.file('main.tsp'));
      expect(await tree.reports(index + 1)).toEqual(Array(index + 1).fill('main.tsp'));
    }
  });

  test('deleted and created again, twice: each change is reported', async () => {
    const tree = watched('delete-create');
    unlinkSync(tree.file('main.tsp'));
    expect(await tree.reports(1)).toEqual(['main.tsp']);
    writeFileSync(tree.file('main.tsp'), 'model B {}\n');
    expect(await tree.reports(2)).toEqual(['main.tsp', 'main.tsp']);
    unlinkSync(tree.file('main.tsp'));
    writeFileSync(tree.file('main.tsp'), 'model C {}\n');
    // Deleted and written back within the same moment: one or two reports, at least one after the write.
    const seen = await tree.reports(3);
    expect(new Set(seen)).toEqual(new Set(['main.tsp']));
  });

  test('new files and new folders (nested), then their files changed twice', async () => {
    const tree = watched('new-folders');
    writeFileSync(tree.file('extra.tsp'), 'model E {}\n');
    expect(await tree.reports(1)).toEqual(['extra.tsp']);
    mkdirSync(tree.file('groups/inner'), { recursive: true });
    writeFileSync(tree.file('groups/inner/deep.tsp'), 'model D {}\n');
    expect(await tree.reports(2)).toEqual(['extra.tsp', 'groups/inner/deep.tsp']);
    writeFileSync(tree.file('groups/inner/deep.tsp'), 'model D2 {}\n');
    expect(await tree.reports(3)).toEqual(['extra.tsp', 'groups/inner/deep.tsp', 'groups/inner/deep.tsp']);
    writeFileSync(tree.file('groups/inner/deep.tsp.tmp'), 'model D3 {}\n');
    renameSync(tree.file('groups/inner/deep.tsp.tmp'), tree.file('groups/inner/deep.tsp'));
    expect(await tree.reports(4)).toEqual(['extra.tsp', 'groups/inner/deep.tsp', 'groups/inner/deep.tsp', 'groups/inner/deep.tsp']);
    // A folder removed: its files are gone.
    rmSync(tree.file('groups'), { recursive: true });
    expect((await tree.reports(5)).at(-1)).toBe('groups/inner/deep.tsp');
  });

  test("editors' own files and a save that changes nothing are not reported", async () => {
    const tree = watched('editor-files');
    for (const name of ['.main.tsp.swp', '.main.tsp.swx', 'main.tsp~', '4913', '.#main.tsp', '#main.tsp#', 'main.tsp___jb_tmp___', 'main.tsp___jb_old___']) {
      expect(isEditorFile(name), name).toBe(true);
      writeFileSync(tree.file(name), 'model Swap {}\n');
    }
    mkdirSync(tree.file('.hidden'));
    writeFileSync(tree.file('.hidden/other.tsp'), 'model H {}\n');
    writeFileSync(tree.file('main.tsp'), 'model A {}\n'); // the same content
    writeFileSync(tree.file('notes.md'), 'not TypeSpec\n'); // refused by `accept`
    // Then a real change: it is the only report.
    writeFileSync(tree.file('main.tsp'), 'model Z {}\n');
    expect(await tree.reports(1)).toEqual(['main.tsp']);
    expect(isEditorFile('main.tsp')).toBe(false);
  });
});
