// Watches the files of a folder tree as editors save them, for `npm run dev`: a watcher for each folder (not Node's
// recursive one, which loses a file an atomic save replaced), and a report only when a file's content changed, it
// appeared or it went; editors' own files are never reported. Why: docs/development.md ("The dev loop").
import { createHash } from 'node:crypto';
import { type FSWatcher, readdirSync, readFileSync, statSync, watch } from 'node:fs';
import path from 'node:path';

/** Names editors write beside the files they edit: vim's swap and backup files and its `4913` probe, Emacs's lock and
 * auto-save files, JetBrains' safe-write temporaries, and hidden files and folders (`.git`, `.DS_Store`). */
export function isEditorFile(name: string): boolean {
  return (
    name.startsWith('.') ||
    name.startsWith('#') ||
    name.endsWith('~') ||
    /\.sw[a-p]$/.test(name) ||
    name === '4913' ||
    /___jb_(tmp|old|bak)___$/.test(name)
  );
}

/** How long a name's events must pause before it is looked at. */
const SETTLE_MS = 20;

export interface TreeWatcher {
  close(): void;
}

/**
 * Calls `onChange` with the absolute paths of the files under `root` whose content changed, appeared or went, for
 * files whose path relative to `root` `accept` takes. Folders named `node_modules` and hidden ones are left out.
 */
export function watchTree(root: string, accept: (relativePath: string) => boolean, onChange: (file: string) => void): TreeWatcher {
  const watchers = new Map<string, FSWatcher>();
  /** The hash of each watched file's content, as last seen. */
  const seen = new Map<string, string>();
  let closed = false;

  const wanted = (file: string) => !isEditorFile(path.basename(file)) && accept(path.relative(root, file));
  const digest = (file: string): string | undefined => {
    try {
      return createHash('sha1').update(readFileSync(file)).digest('hex');
    } catch {
      return undefined; // gone, or a folder
    }
  };

  /** Looks at one name that an event named: a file, a folder, or nothing any more. */
  const look = (file: string) => {
    if (closed) return;
    let isFolder = false;
    try {
      isFolder = statSync(file).isDirectory();
    } catch {
      // gone
    }
    if (isFolder) {
      if (!watchers.has(file)) addFolder(file, true);
      return;
    }
    if (watchers.has(file)) removeFolder(file);
    if (!wanted(file)) return;
    const now = digest(file);
    if (now === seen.get(file)) return;
    if (now === undefined) seen.delete(file);
    else seen.set(file, now);
    onChange(file);
  };

  // A write in place comes as several events (the truncation, then each write): the name is looked at once they
  // have passed, not at the empty file between them.
  const waiting = new Map<string, NodeJS.Timeout>();
  const soon = (file: string) => {
    clearTimeout(waiting.get(file));
    waiting.set(
      file,
      setTimeout(() => {
        waiting.delete(file);
        look(file);
      }, SETTLE_MS),
    );
  };

  const addFolder = (folder: string, isNew: boolean) => {
    const name = path.basename(folder);
    if (folder !== root && (name === 'node_modules' || isEditorFile(name))) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(folder, (_event, entry) => {
        if (entry === null) rescan(folder);
        else soon(path.join(folder, entry.toString()));
      });
    } catch {
      return; // gone before it could be watched
    }
    // A folder removed (or replaced) while watched ends its watcher with an error; its parent's watcher reports it.
    watcher.on('error', () => removeFolder(folder));
    watchers.set(folder, watcher);
    let entries: import('node:fs').Dirent[] = [];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      // gone again
    }
    for (const entry of entries) {
      const child = path.join(folder, entry.name);
      if (entry.isDirectory()) addFolder(child, isNew);
      else if (wanted(child)) {
        // Files of a folder that appears after the start are new: reported. Those there at the start are the baseline.
        if (isNew) look(child);
        else {
          const hash = digest(child);
          if (hash !== undefined) seen.set(child, hash);
        }
      }
    }
  };

  const removeFolder = (folder: string) => {
    for (const [watched, watcher] of watchers) {
      if (watched === folder || watched.startsWith(`${folder}${path.sep}`)) {
        watcher.close();
        watchers.delete(watched);
      }
    }
    for (const file of [...seen.keys()]) {
      if (file.startsWith(`${folder}${path.sep}`)) {
        seen.delete(file);
        onChange(file);
      }
    }
  };

  /** An event without a name: look at everything the folder holds, and at what it held. */
  const rescan = (folder: string) => {
    const names = new Set<string>();
    try {
      for (const name of readdirSync(folder)) names.add(path.join(folder, name));
    } catch {
      // gone
    }
    for (const file of seen.keys()) if (path.dirname(file) === folder) names.add(file);
    for (const name of names) look(name);
  };

  addFolder(root, false);
  return {
    close() {
      closed = true;
      for (const timer of waiting.values()) clearTimeout(timer);
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}
