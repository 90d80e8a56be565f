import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root: the nearest folder up with a package.json (from test/helpers as source, or from
 * dist/test/helpers when a bench compiled it). */
function findRoot(from: string): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

export const REPO_ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));
export const SHARED_DATA = process.env.VERISCREEN_SHARED_DATA ?? resolve(REPO_ROOT, '../shared/data');
export const HAS_SHARED_DATA = existsSync(SHARED_DATA);
export const sharedPath = (...parts: string[]) => join(SHARED_DATA, ...parts);

if (!HAS_SHARED_DATA) {
  process.stderr.write(`skipped: real-list tests need ../shared/data (not found at ${SHARED_DATA})\n`);
}
