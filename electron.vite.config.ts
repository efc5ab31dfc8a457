/**
 * electron-vite build of the three Electron targets (the top-level `main/` and `renderer/`
 * folders are not electron-vite's default `src/` layout, so every target names its input).
 *   main     main/electron/main.ts → out/main/index.js (ESM; better-sqlite3 stays external: it is native)
 *   preload  main/electron/preload.ts → out/preload/index.cjs (one CommonJS file requiring only `electron`,
 *            as a sandboxed preload must be)
 *   renderer renderer/index.html → out/renderer (base './' for file://), with the CSP meta tag injected here
 *            so the policy has one source: shared/csp.ts.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';
import { CONTENT_SECURITY_POLICY } from './shared/csp';

const projectRoot = fileURLToPath(new URL('.', import.meta.url));
const fromRoot = (...parts: string[]): string => resolve(projectRoot, ...parts);

/**
 * The renderer's import aliases (the same as `paths` in tsconfig.base.json): `$lib/…` is renderer/src/lib and
 * `$shared/…` is shared/, so no renderer import climbs with `../`. The vitest renderer project uses them too.
 */
export const RENDERER_ALIASES: Record<string, string> = {
  $lib: fromRoot('renderer/src/lib'),
  $shared: fromRoot('shared'),
};

const CSP_META_RE = /<meta[^>]+http-equiv\s*=\s*["']?content-security-policy/i;

/** Injects `<meta http-equiv="Content-Security-Policy">` from shared/csp.ts as the first tag of `<head>`. */
export function cspMetaPlugin(policy: string): Plugin {
  return {
    name: 'runwarden:csp-meta',
    transformIndexHtml: {
      order: 'pre',
      handler(html) {
        // Two policies would both apply (the stricter wins): keep one source of truth.
        if (CSP_META_RE.test(html)) {
          throw new Error(
            'renderer/index.html declares its own Content-Security-Policy; remove it: the build injects the one from shared/csp.ts.',
          );
        }
        return [
          {
            tag: 'meta',
            attrs: { 'http-equiv': 'Content-Security-Policy', content: policy },
            injectTo: 'head-prepend',
          },
        ];
      },
    },
  };
}

export default defineConfig({
  main: {
    build: {
      outDir: fromRoot('out/main'),
      // Bundle valibot, @noble/hashes and electron-updater (with what it requires); leave only the native
      // better-sqlite3 external.
      externalizeDeps: { exclude: ['valibot', '@noble/hashes', 'electron-updater'] },
      rolldownOptions: {
        input: { index: fromRoot('main/electron/main.ts') },
        external: ['better-sqlite3'],
      },
    },
  },
  preload: {
    build: {
      outDir: fromRoot('out/preload'),
      // Sandboxed preloads cannot require anything but `electron` and a few built-ins: bundle everything.
      externalizeDeps: false,
      rolldownOptions: {
        input: { index: fromRoot('main/electron/preload.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: fromRoot('renderer'),
    base: './',
    resolve: { alias: RENDERER_ALIASES },
    plugins: [svelte({ configFile: fromRoot('svelte.config.js') }), cspMetaPlugin(CONTENT_SECURITY_POLICY)],
    build: {
      outDir: fromRoot('out/renderer'),
      emptyOutDir: true,
      // electron-vite leaves output unminified; the UI is parsed on every window open and browser load.
      minify: true,
      rolldownOptions: {
        input: { index: fromRoot('renderer/index.html') },
      },
    },
  },
});
