import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The platform (and the web deployable) serve the build: hashed files under /assets, index.html uncached.
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  // The one runtime module the app shares with the services: the 14 languages and how a tag is matched.
  resolve: {
    alias: { '@fed/contracts/locales': path.resolve(import.meta.dirname, '../../libs/contracts/src/text/locales.ts') },
  },
  build: {
    outDir: '../../dist/web',
    emptyOutDir: true,
    sourcemap: true,
    // No inline scripts or styles: the app's CSP forbids them.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
});
