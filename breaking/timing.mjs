// How long the gate's command takes from the command line, as breaking/README.md reports it:
// `node breaking/timing.mjs [runs] [-- command…]` runs each command `runs` times (default 11) one after the other and
// prints the median and the fastest wall time, and the median CPU time (user + system, from /usr/bin/time when the
// machine has it). Without a command it times `npm run check:breaking`, `node breaking/check.mjs`, the same with
// no cached document (`BREAKING_NO_CACHE=1`), `node breaking/check.mjs --help`, and `node -e 0` (Node's own start).
// hyperfine gives the same figures where it is installed; this needs nothing but Node.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { root } from './bundle.mjs';

const args = process.argv.slice(2);
const split = args.indexOf('--');
const runs = Number((split === -1 ? args : args.slice(0, split))[0] ?? 11);
const given = split === -1 ? [] : [args.slice(split + 1)];
const COMMANDS = given.length > 0
  ? given.map((command) => ({ label: command.join(' '), command, env: {} }))
  : [
      { label: 'npm run check:breaking', command: ['npm', 'run', 'check:breaking'], env: {} },
      { label: 'node breaking/check.mjs', command: ['node', 'breaking/check.mjs'], env: {} },
      { label: 'node breaking/check.mjs (documents not cached)', command: ['node', 'breaking/check.mjs'], env: { BREAKING_NO_CACHE: '1' } },
      { label: 'node breaking/check.mjs --help', command: ['node', 'breaking/check.mjs', '--help'], env: {} },
      { label: 'node -e 0', command: ['node', '-e', '0'], env: {} },
    ];
const time = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

process.stdout.write(`${runs} runs each, one after the other; load average ${loadavg().map((load) => load.toFixed(1)).join(' ')}\n`);
// One run first, unmeasured: the bundle and the caches are built as a first run builds them.
for (const { command, env } of COMMANDS) spawnSync(command[0], command.slice(1), { cwd: root, env: { ...process.env, ...env }, stdio: 'ignore' });
for (const { label, command, env } of COMMANDS) {
  const walls = [];
  const cpus = [];
  for (let run = 0; run < runs; run += 1) {
    const started = performance.now();
    const result = time
      ? spawnSync(time, ['-f', '%U %S', ...command], { cwd: root, env: { ...process.env, ...env }, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] })
      : spawnSync(command[0], command.slice(1), { cwd: root, env: { ...process.env, ...env }, stdio: 'ignore' });
    walls.push(performance.now() - started);
    if (time) {
      const [user, system] = result.stderr.trim().split('\n').at(-1).split(' ').map(Number);
      cpus.push((user + system) * 1000);
    }
  }
  const cpu = cpus.length > 0 ? `, CPU median ${median(cpus).toFixed(0)} ms` : '';
  process.stdout.write(`${label}: wall median ${median(walls).toFixed(0)} ms (fastest ${Math.min(...walls).toFixed(0)} ms)${cpu}\n`);
}
process.stdout.write(`load average after: ${loadavg().map((load) => load.toFixed(1)).join(' ')}\n`);
