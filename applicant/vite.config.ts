import { defineConfig } from 'vite';
import { pageConfig } from '../dashboard/vite-page';

/** The applicant's hosted page (docs/journey.md): built into dist/applicant and served by the service at
 * /applicant/. Its own bundle, apart from the dashboard's, kept small (bench:journey weighs it). */
export default defineConfig(pageConfig('applicant', ['/v1', '/verify']));
