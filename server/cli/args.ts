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

export class UsageError extends Error {}

export function flag(flags: Record<string, string[]>, name: string): string | undefined {
  const v = flags[name];
  return v?.[v.length - 1];
}
