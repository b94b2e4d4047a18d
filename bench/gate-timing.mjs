// How long the gate's command takes from the command line, as breaking/README.md ("How fast it answers") reports it:
// `node bench/gate-timing.mjs [runs] [-- command…]` runs each command `runs` times (default 11), the commands in turn,
// and prints the median and fastest wall time, the median CPU time and peak memory; `--formats <base> <revision>`
// times the formats that locate lines against `json`. What it times without a command: bench/README.md.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { root } from '../breaking/bundle.mjs';

const args = process.argv.slice(2);
const split = args.indexOf('--');
const options = split === -1 ? args : args.slice(0, split);
const formats = options.indexOf('--formats');
const runs = Number((formats === 0 ? [] : options)[0] ?? 11);
const given = split === -1 ? [] : [args.slice(split + 1)];
const check = (...more) => ['node', 'breaking/check.mjs', ...more];
const COMMANDS =
  formats !== -1
    ? ['json', 'github', 'sarif'].map((format) => ({
        label: `--format ${format}`,
        command: check('--base', options[formats + 1], '--revision', options[formats + 2], '--format', format),
        env: {},
      }))
    : given.length > 0
      ? given.map((command) => ({ label: command.join(' '), command, env: {} }))
      : [
          { label: 'npm run check:breaking', command: ['npm', 'run', 'check:breaking'], env: {} },
          { label: 'node breaking/check.mjs', command: check(), env: {} },
          { label: 'node breaking/check.mjs (documents not cached)', command: check(), env: { BREAKING_NO_CACHE: '1' } },
          { label: 'node breaking/check.mjs --help', command: check('--help'), env: {} },
          { label: 'node -e 0', command: ['node', '-e', '0'], env: {} },
        ];
const time = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

process.stdout.write(`${runs} runs each, in turn; load average ${loadavg().map((load) => load.toFixed(1)).join(' ')}\n`);
// One run first, unmeasured: the bundle and the caches are built as a first run builds them.
for (const { command, env } of COMMANDS) spawnSync(command[0], command.slice(1), { cwd: root, env: { ...process.env, ...env }, stdio: 'ignore' });
const measured = COMMANDS.map(() => ({ walls: [], cpus: [], memories: [] }));
for (let run = 0; run < runs; run += 1) {
  COMMANDS.forEach(({ command, env }, index) => {
    const started = performance.now();
    const result = time
      ? spawnSync(time, ['-f', '%U %S %M', ...command], { cwd: root, env: { ...process.env, ...env }, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] })
      : spawnSync(command[0], command.slice(1), { cwd: root, env: { ...process.env, ...env }, stdio: 'ignore' });
    const { walls, cpus, memories } = measured[index];
    walls.push(performance.now() - started);
    if (time) {
      const [user, system, memory] = result.stderr.trim().split('\n').at(-1).split(' ').map(Number);
      cpus.push((user + system) * 1000);
      memories.push(memory / 1024);
    }
  });
}
COMMANDS.forEach(({ label }, index) => {
  const { walls, cpus, memories } = measured[index];
  const cpu = cpus.length > 0 ? `, CPU median ${median(cpus).toFixed(0)} ms, peak memory median ${median(memories).toFixed(0)} MB` : '';
  const ratio = formats !== -1 && index > 0 ? `, ${(median(walls) / median(measured[0].walls)).toFixed(2)}× json` : '';
  process.stdout.write(`${label}: wall median ${median(walls).toFixed(0)} ms (fastest ${Math.min(...walls).toFixed(0)} ms)${cpu}${ratio}\n`);
});
process.stdout.write(`load average after: ${loadavg().map((load) => load.toFixed(1)).join(' ')}\n`);
