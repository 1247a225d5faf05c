/// <reference types="vitest/config" />
import { defineConfig } from 'vite'
import { svelte } from '@sveltejs/vite-plugin-svelte'

export default defineConfig({
  plugins: [svelte()],
  build: { outDir: 'dist', emptyOutDir: false, target: 'es2022' },
  // Unit tests run in Node. A test of a store (*.svelte.test.ts) needs its
  // runes compiled as the window runs them, effects included: Svelte's
  // browser build and Vite's web transform, not the server's.
  resolve: process.env.VITEST ? { conditions: ['browser'] } : undefined,
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
    testTransformMode: { web: ['**/*.svelte.test.ts'] },
  },
})
