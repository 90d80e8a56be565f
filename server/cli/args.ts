/** Minimal --flag value / --flag parser: repeated flags collect into arrays. */
export function parseArgs(argv: string[]): { positional: string[]; flags: Record<string, string[]> } {
  const positional: string[] = [];
  const flags: Record<string, string[]> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
      let value = eq > 0 ? a.slice(eq + 1) : 'true';
      const next = argv[i + 1];
      if (eq < 0 && next !== undefined && !next.startsWith('--')) {
        value = next;
        i++;
      }
      const list = flags[name] ?? [];
      list.push(value);
      flags[name] = list;
    } else {
      positional.push(a);
    }
  }
  return { positional, flags };
}

/** A wrong invocation: one line on stderr, exit status `exitCode` (1 for a bad value, 2 for a wrong option). */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** An expected failure that is not the caller's syntax (a missing file, an unreadable list): one line, exit 1. */
export class CliError extends Error {}

export function flag(flags: Record<string, string[]>, name: string): string | undefined {
  const v = flags[name];
  return v?.[v.length - 1];
}

/** What a command accepts: options taking a value, boolean switches, and whether it takes positional arguments. */
export interface OptionSpec {
  values: readonly string[];
  switches: readonly string[];
  positional: boolean;
}

export const wantsHelp = (argv: readonly string[]): boolean => argv.some((a) => a === '--help' || a === '-h');

/**
 * Checks an argument list against a command's spec before the command runs (so nothing starts on a typo):
 * an unknown option, an option without its value or an unexpected argument is a UsageError with exit status 2.
 */
export function checkOptions(command: string, argv: readonly string[], spec: OptionSpec): void {
  const hint = `(see: veriscreen ${command} --help)`;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
      if (spec.values.includes(name)) {
        if (eq > 0) continue;
        const next = argv[i + 1];
        if (next === undefined || next.startsWith('--'))
          throw new UsageError(`${command}: option --${name} needs a value ${hint}`, 2);
        i++;
      } else if (spec.switches.includes(name)) {
        const v = eq > 0 ? a.slice(eq + 1) : 'true';
        if (v !== 'true') throw new UsageError(`${command}: option --${name} takes no value ${hint}`, 2);
      } else {
        throw new UsageError(`${command}: unknown option --${name} ${hint}`, 2);
      }
    } else if (a.startsWith('-') && a.length > 1) {
      throw new UsageError(`${command}: unknown option ${a} ${hint}`, 2);
    } else if (!spec.positional) {
      throw new UsageError(`${command}: unexpected argument "${a}" ${hint}`, 2);
    }
  }
}
