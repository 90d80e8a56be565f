import { fileURLToPath } from 'node:url';
import type { UserConfig } from 'vite';

/**
 * The Vite build of a page the service serves itself (the operator dashboard, the applicant's hosted page): Preact +
 * TypeScript from `<name>/`, built into `dist/<name>` for `/<name>/`, text assets only.
 */
export function pageConfig(name: string, proxied: string[]): UserConfig {
  return {
    root: fileURLToPath(new URL(`../${name}/`, import.meta.url)),
    base: `/${name}/`,
    publicDir: false,
    esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
    build: {
      outDir: fileURLToPath(new URL(`../dist/${name}`, import.meta.url)),
      emptyOutDir: true,
      target: 'es2022',
      // the service serves text assets only: inline anything else
      assetsInlineLimit: 100_000,
      modulePreload: { polyfill: false },
      reportCompressedSize: false,
    },
    // `npx vite --config <name>/vite.config.ts` for development next to `npm start` (same origin through the proxy)
    server: {
      proxy: Object.fromEntries(
        proxied.map((path) => [path, { target: 'http://127.0.0.1:8080', changeOrigin: false }]),
      ),
    },
  };
}
