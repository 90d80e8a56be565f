import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

/** The applicant's hosted page (docs/journey.md): Preact + TypeScript, built into dist/applicant and served by the
 * service at /applicant/. Its own bundle, apart from the dashboard's, kept small (bench:journey weighs it). */
export default defineConfig({
  root: here,
  base: '/applicant/',
  publicDir: false,
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: fileURLToPath(new URL('../dist/applicant', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // the service serves text assets only: inline anything else
    assetsInlineLimit: 100_000,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
  // `npx vite --config applicant/vite.config.ts` for development next to `npm start`
  server: {
    proxy: {
      '/v1': { target: 'http://127.0.0.1:8080', changeOrigin: false },
      '/verify': { target: 'http://127.0.0.1:8080', changeOrigin: false },
    },
  },
});
