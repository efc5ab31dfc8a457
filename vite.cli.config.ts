/**
 * Node build of the `runwarden` CLI (and other plain-Node entries: the benchmark in bench/, serve). SSR mode keeps every
 * dependency external, so better-sqlite3's native addon is loaded from node_modules at run time.
 * Add an entry by adding a line to `CLI_ENTRIES`; each lands in `out/cli/<name>.js`.
 */
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { defineConfig, type UserConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export const CLI_ENTRIES: Record<string, string> = {
  runwarden: 'main/cli/runwarden.ts',
  bench: 'bench/bench.ts',
};

const EXTERNAL = [
  'better-sqlite3',
  'electron',
  ...builtinModules,
  ...builtinModules.map((name) => `node:${name}`),
];

/** The build config for a set of Node entries: shared by this file and the test harness (test fixtures). */
export function nodeBuildConfig(entries: Record<string, string>, outDir: string): UserConfig {
  return {
    root,
    logLevel: 'warn',
    publicDir: false,
    ssr: { target: 'node', noExternal: [] },
    build: {
      ssr: true,
      target: 'node20',
      outDir,
      emptyOutDir: true,
      sourcemap: true,
      minify: false,
      copyPublicDir: false,
      reportCompressedSize: false,
      rolldownOptions: {
        input: entries,
        external: EXTERNAL,
        output: {
          format: 'es',
          entryFileNames: '[name].js',
          chunkFileNames: 'chunks/[name]-[hash].js',
        },
      },
    },
  };
}

export default defineConfig(nodeBuildConfig(CLI_ENTRIES, 'out/cli'));
