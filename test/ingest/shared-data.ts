// Locates the real list data shared next to the repo (never copied into it). Integration tests use
// `describe.skipIf(!hasSharedData)` so the suite still runs where the data is absent.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const dataDir = process.env['VERISCREEN_SHARED_DATA'] ?? path.resolve(repoRoot, '../shared/data');
export const hasSharedData = existsSync(dataDir);

export function dataPath(...parts: string[]): string {
  return path.join(dataDir, ...parts);
}

export function fixturePath(...parts: string[]): string {
  return path.join(repoRoot, 'test/fixtures/ingest', ...parts);
}

if (!hasSharedData) console.warn('skipped: ../shared/data not found');
