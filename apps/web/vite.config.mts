import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The platform (and the web deployable) serve the build: hashed files under /assets, index.html uncached.
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  build: {
    outDir: '../../dist/web',
    emptyOutDir: true,
    sourcemap: true,
    // No inline scripts or styles: the app's CSP forbids them.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
});
