import { defineConfig } from 'vite';
import { pageConfig } from './vite-page';

/** The operator dashboard: built into dist/dashboard and served by the service at /dashboard. */
export default defineConfig(pageConfig('dashboard', ['/v1', '/admin']));
