// House rules on who imports whom (docs/architecture.md): services take plain inputs, never HTTP types; the matcher,
// the list parsers and the identity readers know nothing of the server; schemas/ imports nothing of ours; what the
// request path calls depends on the edge's leaf modules only; and no module imports itself through others.
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
  const specs = [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+'(\.[^']+)'/g),
    ...text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g),
  ].map((m) => m[1] as string);
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

  it('auth/, audit/ and idempotency/ depend on the request types, not on the router or the request path', () => {
    // (their routes, like every feature's, are part of the edge)
    const callees = [
      ...tsFiles('server/auth'),
      ...tsFiles('server/audit'),
      ...tsFiles('server/idempotency'),
    ].filter((f) => !f.endsWith('-routes.ts'));
    const edge = new Set(['server/http/router.js', 'server/http/server.js']);
    expect(offenders(callees, (t) => edge.has(t))).toEqual([]);
  });

  it('has no import circle (type imports and dynamic imports count)', () => {
    const files = ['server', 'matcher', 'ingest', 'identity', 'schemas'].flatMap(tsFiles);
    const known = new Set(files);
    const graph = new Map(
      files.map((f) => [
        f,
        importsOf(f)
          .map((t) => t.replace(/\.js$/, '.ts'))
          .filter((t) => known.has(t)),
      ]),
    );
    expect(circles(graph)).toEqual([]);
  });
});

/** The import circles of a graph: each strongly connected set of more than one file, sorted (Tarjan). */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) !== index.get(v)) return;
    const part: string[] = [];
    let w: string | undefined;
    do {
      w = stack.pop() as string;
      onStack.delete(w);
      part.push(w);
    } while (w !== v);
    if (part.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(part.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}
