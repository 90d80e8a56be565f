import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/shared-data.js';

export const DASHBOARD_DIST = join(REPO_ROOT, 'dist', 'dashboard');

/** `npm test` builds the dashboard first; a bare `vitest run test/e2e` builds it here when it is missing. */
export async function ensureDashboardBuilt(): Promise<void> {
  if (existsSync(join(DASHBOARD_DIST, 'index.html'))) return;
  const { build } = await import('vite');
  await build({ configFile: join(REPO_ROOT, 'dashboard', 'vite.config.ts'), logLevel: 'warn' });
}
