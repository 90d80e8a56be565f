import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/shared-data.js';

export const DASHBOARD_DIST = join(REPO_ROOT, 'dist', 'dashboard');
export const APPLICANT_DIST = join(REPO_ROOT, 'dist', 'applicant');

async function ensureBuilt(dist: string, config: string): Promise<void> {
  if (existsSync(join(dist, 'index.html'))) return;
  const { build } = await import('vite');
  await build({ configFile: join(REPO_ROOT, config, 'vite.config.ts'), logLevel: 'warn' });
}

/** `npm test` builds the pages first; a bare `vitest run test/e2e` builds them here when they are missing. */
export const ensureDashboardBuilt = () => ensureBuilt(DASHBOARD_DIST, 'dashboard');
export const ensureApplicantBuilt = () => ensureBuilt(APPLICANT_DIST, 'applicant');
