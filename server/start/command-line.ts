// The command line of the server (`npm start -- …`, the `docs-platform-server` command of the server package): four
// flags, each setting one configuration variable and winning over the environment, a switch setting one to true, plus
// --help and --version.
// Every other setting is an environment variable (config.ts), so that a flag is never a second, different way to
// say what a variable says.
import { StartupError } from '../common/config.ts';

/** The flags that set a variable, in the order --help lists them. */
export const FLAGS = [
  { flag: '--port', variable: 'PORT', value: 'N' },
  { flag: '--data-dir', variable: 'DATA_DIR', value: 'DIR' },
  { flag: '--seed', variable: 'SEED_FILE', value: 'FILE' },
  { flag: '--token', variable: 'DOCS_API_TOKEN', value: 'TOKEN' },
] as const;

/** The switches: each sets its variable to true, and takes no value. */
export const SWITCHES = [{ flag: '--answer-from-contract', variable: 'ANSWER_FROM_CONTRACT' }] as const;

export type CommandLine =
  | { action: 'help' }
  | { action: 'version' }
  /** Serve, with these variables set by flags (to be laid over the environment). */
  | { action: 'serve'; variables: Record<string, string> };

/** Reads the arguments: `--flag value` or `--flag=value`; a flag given twice takes its last value. */
export function parseCommandLine(args: readonly string[]): CommandLine {
  if (args.includes('--help') || args.includes('-h')) return { action: 'help' };
  if (args.includes('--version') || args.includes('-v')) return { action: 'version' };
  const variables: Record<string, string> = {};
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    const [name, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const toggle = SWITCHES.find((entry) => entry.flag === arg);
    if (toggle) {
      variables[toggle.variable] = 'true';
      continue;
    }
    const flag = FLAGS.find((entry) => entry.flag === name);
    if (!flag) {
      throw new StartupError(
        `unknown argument ${arg}: the flags are ${[...FLAGS, ...SWITCHES].map((entry) => entry.flag).join(', ')}, --help and --version; everything else is an environment variable (see --help)`,
      );
    }
    const value = inline ?? args[++index];
    if (value === undefined || (inline === undefined && value.startsWith('--'))) {
      throw new StartupError(`${flag.flag} needs a value: ${flag.flag} ${flag.value} (or ${flag.variable}=${flag.value} in the environment)`);
    }
    variables[flag.variable] = value;
  }
  return { action: 'serve', variables };
}

/**
 * A start-up error's message in the words the user typed: an error about a variable that a flag (or a switch) set
 * starts with the variable's name (`PORT 3000 is already in use …`, `SEED_FILE seed.yaml (/srv/seed.yaml): no such
 * file`), which becomes the flag's (`--port 3000 …`, `--seed seed.yaml …`), and the values it suggests (`PORT=3001`)
 * are given as the flag (`--port 3001`). `variables` are those the flags set (parseCommandLine's).
 */
export function asTyped(message: string, variables: Record<string, string>): string {
  let text = message;
  for (const { flag, variable } of FLAGS) {
    if (!(variable in variables)) continue;
    if (text.startsWith(`${variable} `)) text = `${flag} ${text.slice(variable.length + 1)}`;
    text = text.replaceAll(`${variable}=`, `${flag} `);
  }
  // A switch stands for its variable set to true.
  for (const { flag, variable } of SWITCHES) {
    if (!(variable in variables)) continue;
    text = text.replaceAll(`${variable}=true`, flag);
    if (text.startsWith(`${variable} `)) text = `${flag} ${text.slice(variable.length + 1)}`;
  }
  return text;
}
