// What each test file needs beyond Node and node_modules, read from what it imports: the fast inner loop
// (`npm run test:unit`, vitest.unit.config.ts) runs the files that need none of it. A file needs what any module it
// imports from test/ or bench/ needs, so a test that starts the app through a helper is known by that helper.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** What a test can need: the shared Postgres/Redis/NATS (or private instances, or s3rver); `npm run build` (it runs
 * dist/: the CLI, the worker threads); Chromium; the identity models (face detection, OCR: slow to load). */
export type Need = 'services' | 'build' | 'browser' | 'models';

/** Modules (repository paths) and packages that bring a need with them, or calls that do (the identity models load
 * when an analyser or reader is created, not when its module is imported). */
const NEEDS: { need: Need; modules?: string[]; packages?: RegExp; calls?: RegExp }[] = [
  {
    need: 'services',
    modules: [
      'test/helpers/test-app.ts',
      'test/helpers/private-services.ts',
      'server/app.ts',
      'server/db/watchdog.ts',
      'server/storage/local-s3.ts',
    ],
    packages: /^(postgres|ioredis|s3rver|@nats-io\/.*)$/,
  },
  {
    need: 'build',
    modules: [
      'test/helpers/cli.ts',
      'test/e2e/dashboard-build.ts',
      'server/screening/matcher-pool.ts',
      'server/identity/identity-pool.ts',
      'server/trust-store/trust-pool.ts',
    ],
  },
  { need: 'browser', modules: ['test/helpers/chromium.ts', 'test/e2e/applicant-browser.ts'] },
  { need: 'models', calls: /\b(createFaceAnalyzer|createDocumentReader)\(/ },
];

/** The imports of a file (type-only ones bring nothing): repository paths for relative specifiers (`.js` naming
 * `.ts`), package names otherwise; and its text. */
function importsOf(root: string, file: string): { modules: string[]; packages: string[]; text: string } {
  const text = readFileSync(join(root, file), 'utf8');
  const specs = [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)\s+(?!type\b)[^'"]*?from\s+'([^']+)'/g),
    ...text.matchAll(/(?:^|\n)\s*import\s+'([^']+)'/g),
    ...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g),
  ].map((m) => m[1] as string);
  const modules = specs
    .filter((s) => s.startsWith('.'))
    .map((s) => relative(root, resolve(root, dirname(file), s)).replace(/\.js$/, '.ts'));
  const packages = specs.filter((s) => !s.startsWith('.') && !s.startsWith('node:'));
  return { modules, packages, text };
}

/** What `file` (a repository path) needs, from its imports and those of the test and bench modules it reaches. */
export function needsOf(root: string, file: string): Need[] {
  const found = new Set<Need>();
  const seen = new Set<string>();
  const queue = [file];
  for (let f = queue.pop(); f !== undefined; f = queue.pop()) {
    if (seen.has(f)) continue;
    seen.add(f);
    const { modules, packages, text } = importsOf(root, f);
    for (const n of NEEDS) {
      if (
        modules.some((m) => n.modules?.includes(m)) ||
        packages.some((p) => n.packages?.test(p)) ||
        n.calls?.test(text)
      ) {
        found.add(n.need);
      }
    }
    queue.push(...modules.filter((m) => /^(test|bench)\/.*\.ts$/.test(m)));
  }
  return [...found].sort();
}

/** Every test file (repository paths, sorted). */
export function testFiles(root: string): string[] {
  return readdirSync(join(root, 'test'), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.test.ts'))
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .filter((f) => !f.startsWith('test/openapi-client/'))
    .sort();
}

/** The test files that need nothing beyond Node: `npm run test:unit`. */
export function unitTestFiles(root: string): string[] {
  return testFiles(root).filter((f) => needsOf(root, f).length === 0);
}
