import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const SHARED_DATA = process.env.VERISCREEN_SHARED_DATA ?? resolve(REPO_ROOT, '../shared/data');
export const HAS_SHARED_DATA = existsSync(SHARED_DATA);
export const sharedPath = (...parts: string[]) => join(SHARED_DATA, ...parts);

if (!HAS_SHARED_DATA) {
  process.stderr.write(`skipped: real-list tests need ../shared/data (not found at ${SHARED_DATA})\n`);
}
