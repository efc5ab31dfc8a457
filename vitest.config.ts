import { svelte } from '@sveltejs/vite-plugin-svelte';
import { svelteTesting } from '@testing-library/svelte/vite';
import { defineConfig } from 'vitest/config';
import { RENDERER_ALIASES } from './electron.vite.config';

export default defineConfig({
  test: {
    projects: [
      {
        // test/shared reads the renderer's answer form, which imports through the renderer's aliases.
        resolve: { alias: RENDERER_ALIASES },
        test: {
          name: 'node',
          environment: 'node',
          include: [
            'test/main/**/*.test.ts',
            'test/shared/**/*.test.ts',
            'test/reliability/**/*.test.ts',
            // The real coding agents (test/agents/harness.ts: skipped unless installed, failing under CI).
            'test/agents/*.test.ts',
          ],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          pool: 'forks',
          // Builds the CLI bundle and the reliability fixtures once: the CLI tests spawn the real thing.
          globalSetup: ['test/helpers/global-setup.ts'],
        },
      },
      {
        plugins: [svelte({ configFile: './svelte.config.js' }), svelteTesting()],
        resolve: { alias: RENDERER_ALIASES },
        test: {
          name: 'renderer',
          environment: 'jsdom',
          include: ['test/renderer/**/*.test.ts', 'test/renderer-host/**/*.test.ts'],
        },
      },
    ],
  },
});
