import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, whether running from source (vitest) or from dist/. */
function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (
      existsSync(pkg) &&
      (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'veriscreen'
    ) {
      return dir;
    }
    const up = dirname(dir);
    if (up === dir) throw new Error('veriscreen package root not found');
    dir = up;
  }
}

export const ROOT = findRoot();
export const MIGRATIONS_DIR = join(ROOT, 'server', 'db', 'migrations');
export const MATCHER_WORKER = join(ROOT, 'dist', 'matcher', 'worker.js');
export const IDENTITY_WORKER = join(ROOT, 'dist', 'identity', 'worker.js');
export const TRUST_WORKER = join(ROOT, 'dist', 'identity', 'chip', 'trust-worker.js');
export const DEMO_DATASET_DIR = join(ROOT, 'ingest', 'fixtures', 'demo');
