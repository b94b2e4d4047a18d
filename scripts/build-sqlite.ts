// Builds better-sqlite3's native addon from its sources, with one change of ours (npm runs this first in `prepare`,
// so `npm ci` leaves the addon built; `npm run build:sqlite` runs it alone). package.json's `allowScripts` keeps
// npm from running better-sqlite3's own install script, which would build the addon unchanged (and which, like this
// build, compiles from source: `.npmrc` sets build-from-source, no prebuilt binary is downloaded).
//
// The change. On Node 20 (NODE_MODULE_VERSION below 127), better-sqlite3 12 makes each row it reads raw, and the array
// of rows `all()` returns, as an empty V8 array grown by one `Set` per element: V8's generic property store, reached
// through its C++ API, about 75 ns per value. Its code for Node 22 and later collects the elements first and makes
// the array in one `v8::Array::New(isolate, elements, length)`, a V8 function much older than Node 20; the change
// gives the Node 20 branch the same (with a std::vector where the Node 22 branch has a LocalVector, which V8 11 has
// not). Reading 51 rows of the 17 columns of `spaces` raw: 85 -> 44 µs; one column of 51 rows: 22 -> 14 µs. The
// server reads every row raw (store/db.ts), so every multi-row read gains; a list page of 50 spaces about 12% of its
// CPU. Nothing else changes: the same values, in the same arrays, and the same errors.
//
// On Node 22 and later the changed lines are not compiled: drop the change when the project requires Node 22, or
// when better-sqlite3 uses `v8::Array::New` with its elements on Node 20 too. A better-sqlite3 whose sources no
// longer hold the lines the change replaces fails this build, naming the file: update the change or remove it.
//
// The build is skipped when the addon on disk was built by this script from the same sources for the same Node ABI
// (a stamp beside it, with the addon's digest); anything else (another better-sqlite3, another Node, an addon built
// by npm's own install script or copied there) builds it again, so switching Node versions and running
// `npm run build:sqlite` repairs the addon.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packingTheClient } from './npm-lifecycle.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The installed better-sqlite3 package. */
export const SQLITE_PACKAGE = path.dirname(createRequire(path.join(root, 'package.json')).resolve('better-sqlite3/package.json'));
/** The addon node-gyp builds, where better-sqlite3 loads it from. */
export const ADDON = path.join(SQLITE_PACKAGE, 'build/Release/better_sqlite3.node');
/** Written beside the addon after a build: what it was built from (`stampOf`) and the addon's own digest. */
export const STAMP = path.join(SQLITE_PACKAGE, 'build/Release/docs-platform-build.json');

export interface SourceChange {
  /** A file of better-sqlite3's sources, relative to the package. */
  file: string;
  /** The text as better-sqlite3 ships it: it must occur exactly once. */
  before: string;
  after: string;
}

/** The change (see above), as exact replacements in better-sqlite3 12.6's sources. */
export const SOURCE_CHANGES: SourceChange[] = [
  {
    // Data::GetRawRowJS, the Node < 22 branch: a raw row (an array of the row's values).
    file: 'src/util/data.cpp',
    before: `		v8::Local<v8::Array> row = v8::Array::New(isolate);
		int column_count = sqlite3_column_count(handle);
		for (int i = 0; i < column_count; ++i) {
			row->Set(ctx, i, Data::GetValueJS(isolate, handle, i, safe_ints)).FromJust();
		}
		return row;`,
    after: `		int column_count = sqlite3_column_count(handle);
		std::vector<v8::Local<v8::Value>> row;
		row.reserve(column_count);
		for (int i = 0; i < column_count; ++i) {
			row.push_back(Data::GetValueJS(isolate, handle, i, safe_ints));
		}
		return v8::Array::New(isolate, row.data(), row.size());`,
  },
  {
    // Statement::JS_all, the Node < 22 branch: the array of rows.
    file: 'src/objects/statement.cpp',
    before: `	bool js_error = false;
	uint32_t row_count = 0;
	v8::Local<v8::Array> result = v8::Array::New(isolate, 0);

	while (sqlite3_step(handle) == SQLITE_ROW) {
		if (row_count == 0xffffffff) { ThrowRangeError("Array overflow (too many rows returned)"); js_error = true; break; }
		result->Set(ctx, row_count++, Data::GetRowJS(isolate, ctx, handle, safe_ints, mode)).FromJust();
	}

	if (sqlite3_reset(handle) == SQLITE_OK && !js_error) {
		STATEMENT_RETURN(result);
	}`,
    after: `	bool js_error = false;
	std::vector<v8::Local<v8::Value>> rows;

	while (sqlite3_step(handle) == SQLITE_ROW) {
		if (rows.size() == 0xffffffff) { ThrowRangeError("Array overflow (too many rows returned)"); js_error = true; break; }
		rows.push_back(Data::GetRowJS(isolate, ctx, handle, safe_ints, mode));
	}

	if (sqlite3_reset(handle) == SQLITE_OK && !js_error) {
		STATEMENT_RETURN(v8::Array::New(isolate, rows.data(), rows.size()));
	}`,
  },
];

const occurrences = (text: string, part: string) => text.split(part).length - 1;

/**
 * Applies `changes` to the sources under `dir`; a file that already holds its change is left as it is. Throws, naming
 * the file, when a file holds neither the text to replace (exactly once) nor its replacement.
 */
export function applySourceChanges(dir: string, changes: SourceChange[] = SOURCE_CHANGES): { changed: string[] } {
  const changed: string[] = [];
  for (const change of changes) {
    const file = path.join(dir, change.file);
    const text = readFileSync(file, 'utf8');
    if (occurrences(text, change.after) === 1 && occurrences(text, change.before) === 0) continue;
    if (occurrences(text, change.before) !== 1) {
      throw new Error(
        `build-sqlite: ${change.file} of better-sqlite3 does not hold the code scripts/build-sqlite.ts changes ` +
          '(another version?): update the change there, or remove it',
      );
    }
    writeFileSync(file, text.replace(change.before, () => change.after));
    changed.push(change.file);
  }
  return { changed };
}

/** What an addon built from `dir`'s sources for this Node is stamped with: the package's version, the changed sources, the ABI. */
export function stampOf(dir: string, changes: SourceChange[] = SOURCE_CHANGES): { modules: string; platform: string; arch: string; sources: string } {
  const hash = createHash('sha256');
  hash.update(readFileSync(path.join(dir, 'package.json')));
  for (const change of changes) hash.update(change.file).update(readFileSync(path.join(dir, change.file)));
  return { modules: process.versions.modules, platform: process.platform, arch: process.arch, sources: hash.digest('hex') };
}

/** node-gyp as npm bundles it: npm names it to the scripts it runs; else beside npm's own script; else on the PATH. */
function nodeGyp(): string[] {
  const named = process.env.npm_config_node_gyp;
  if (named && existsSync(named)) return [process.execPath, named];
  const npm = process.env.npm_execpath;
  const beside = npm && path.join(path.dirname(npm), '../node_modules/node-gyp/bin/node-gyp.js');
  if (beside && existsSync(beside)) return [process.execPath, beside];
  return ['node-gyp'];
}

const digestOf = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** The stamp of the addon built from `SQLITE_PACKAGE`'s sources as they are now, for this Node. */
const stampNow = () => JSON.stringify({ ...stampOf(SQLITE_PACKAGE), addon: digestOf(ADDON) });

/** Whether the addon on disk is the one this script built from the sources as they are now, for this Node. */
export function addonIsBuilt(): boolean {
  return existsSync(ADDON) && existsSync(STAMP) && readFileSync(STAMP, 'utf8') === stampNow();
}

/** Changes the sources and builds the addon, unless it is built from them already (`force` builds anyway). */
export function buildSqlite(options: { force?: boolean } = {}): 'built' | 'up to date' {
  applySourceChanges(SQLITE_PACKAGE);
  if (!options.force && addonIsBuilt()) return 'up to date';
  const [command, ...args] = nodeGyp();
  const result = spawnSync(command!, [...args, 'rebuild', '--release'], { cwd: SQLITE_PACKAGE, stdio: 'inherit' });
  if (result.status !== 0) {
    throw new Error(`build-sqlite: node-gyp rebuild failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`})`);
  }
  writeFileSync(STAMP, stampNow());
  return 'built';
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (packingTheClient()) {
    console.log(`build-sqlite: skipped: npm ${process.env.npm_command} makes the client package, which holds no server`);
  } else {
    const outcome = buildSqlite({ force: process.argv.includes('--force') });
    console.log(`build-sqlite: ${path.relative(root, ADDON)} ${outcome}`);
  }
}
