import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

/** The operator dashboard: Preact + TypeScript, built into dist/dashboard and served by the service at /dashboard. */
export default defineConfig({
  root: here,
  base: '/dashboard/',
  publicDir: false,
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: fileURLToPath(new URL('../dist/dashboard', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // the service serves text assets only: inline anything else (there is nothing else today)
    assetsInlineLimit: 100_000,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
  // `npx vite --config dashboard/vite.config.ts` for development next to `npm start` (same-origin through the proxy)
  server: {
    proxy: {
      '/v1': { target: 'http://127.0.0.1:8080', changeOrigin: false },
      '/admin': { target: 'http://127.0.0.1:8080', changeOrigin: false },
    },
  },
});
