// House rules on who imports whom (docs/decisions.md): services take plain inputs, never HTTP types; the matcher
// and the list parsers know nothing of the server; schemas/ imports nothing of ours.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/shared-data.js';

function tsFiles(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(REPO_ROOT, join(e.parentPath, e.name)));
}

/** The repository paths a file imports (relative imports only, resolved; `.js` specifiers name `.ts` files). */
function importsOf(file: string): string[] {
  const text = readFileSync(join(REPO_ROOT, file), 'utf8');
  const specs = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+'(\.[^']+)'/g)].map(
    (m) => m[1] as string,
  );
  return specs.map((s) => relative(REPO_ROOT, resolve(REPO_ROOT, dirname(file), s)));
}

const offenders = (files: string[], forbidden: (target: string) => boolean) =>
  files.flatMap((f) =>
    importsOf(f)
      .filter(forbidden)
      .map((t) => `${f} → ${t}`),
  );

describe('import rules', () => {
  it('services (server/**/*-service.ts) import nothing from server/http/', () => {
    const services = tsFiles('server').filter((f) => f.endsWith('-service.ts'));
    expect(services.length).toBeGreaterThan(5);
    expect(offenders(services, (t) => t.startsWith('server/http/'))).toEqual([]);
  });

  it('matcher/, ingest/ and identity/ import nothing from server/; schemas/ imports nothing outside itself', () => {
    const engine = [...tsFiles('matcher'), ...tsFiles('ingest'), ...tsFiles('identity')];
    expect(offenders(engine, (t) => t.startsWith('server/'))).toEqual([]);
    expect(offenders(tsFiles('schemas'), (t) => !t.startsWith('schemas/'))).toEqual([]);
  });
});
