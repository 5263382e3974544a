import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The console builds into dist/ui, which Baton serves at `/` (src/api/console.ts).
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [react()],
  build: {
    outDir: '../dist/ui',
    emptyOutDir: true,
    assetsDir: 'assets',
    chunkSizeWarningLimit: 2000,
    sourcemap: false,
    // .vite/manifest.json: which chunks the first load takes (test/ui/console-size.test.ts bounds them).
    manifest: true,
  },
});
