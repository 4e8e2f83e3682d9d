/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The API serves the build from functions/api/static (same origin). `npm run dev` proxies /api to `make run`'s API.
export default defineConfig({
  plugins: [react()],
  build: {
    outDir: '../functions/api/static',
    emptyOutDir: true,
    chunkSizeWarningLimit: 1500,
  },
  server: {
    proxy: { '/api': 'http://127.0.0.1:8000', '/health': 'http://127.0.0.1:8000' },
  },
  test: {
    environment: 'jsdom',
    setupFiles: ['./src/test/setup.ts'],
    css: false,
    // page tests render whole MUI forms in jsdom; on a busy 2-core CI machine that takes seconds, not milliseconds
    testTimeout: 20000,
  },
});
