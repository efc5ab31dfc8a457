/**
 * Node build of the `runwarden` CLI (and other plain-Node entries: the benchmark in bench/, serve). SSR mode keeps the
 * built-in modules and electron external; better-sqlite3's JavaScript is bundled and its native addon loaded
 * from node_modules at run time (`bundledSqlite` below).
 * Add an entry by adding a line to `CLI_ENTRIES`; each lands in `out/cli/<name>.js`.
 */
import { readFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin, type Rolldown, type UserConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export const CLI_ENTRIES: Record<string, string> = {
  runwarden: 'main/cli/runwarden.ts',
  bench: 'bench/bench.ts',
};

/**
 * `runwarden agents hook AGENT`, which an agent starts on every event: built on its own into one CommonJS
 * file (`out/cli/agent-hook.cjs`), so it resolves and reads no chunk, and the shims can run it as a script
 * with V8's code cache taken after it ran (main/cli/agents/hook-entry.ts, docs/CLI.md#start-up).
 * `vite build --mode hook` builds it beside the CLI (npm run build:cli).
 */
export const HOOK_ENTRY: Record<string, string> = { 'agent-hook': 'main/cli/agents/hook-entry.ts' };

const EXTERNAL = ['electron', ...builtinModules, ...builtinModules.map((name) => `node:${name}`)];

/**
 * A runner starts `runwarden notify` / `progress` / `step` / `effect` often, and each ES module file a process
 * loads costs a resolution, a read and a compile (docs/CLI.md#start-up). So the CLI's chunks are cut by who
 * needs them: `cli-core` is what the entry itself imports (every command loads it), `runner` is the rest of
 * what these four commands import — the runner's side of the store and its checks — and everything else (the
 * person, host, view and search code) lies in chunks only other commands load.
 */
const RUNNER_COMMANDS = ['notify', 'progress', 'step', 'effect'].map((name) =>
  fileURLToPath(new URL(`main/cli/commands/${name}.ts`, import.meta.url)),
);
const CLI_ENTRY = fileURLToPath(new URL('main/cli/runwarden.ts', import.meta.url));

type ChunkingContext = Parameters<Extract<Rolldown.CodeSplittingNameFunction, Function>>[1];

/** Every module `from` imports statically, transitively (`from` itself excluded). */
function staticImports(ctx: ChunkingContext, from: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const queue = from.flatMap((id) => ctx.getModuleInfo(id)?.importedIds ?? []);
  for (let id = queue.pop(); id !== undefined; id = queue.pop()) {
    if (seen.has(id) || from.includes(id)) continue;
    seen.add(id);
    queue.push(...(ctx.getModuleInfo(id)?.importedIds ?? []));
  }
  return seen;
}

const cutsByPass = new WeakMap<ChunkingContext, { core: Set<string>; runner: Set<string> }>();

function cliChunkName(id: string, ctx: ChunkingContext): string | null {
  let cuts = cutsByPass.get(ctx);
  if (cuts === undefined) {
    cuts = { core: staticImports(ctx, [CLI_ENTRY]), runner: staticImports(ctx, RUNNER_COMMANDS) };
    cutsByPass.set(ctx, cuts);
  }
  if (cuts.core.has(id)) return 'cli-core';
  if (cuts.runner.has(id)) return 'runner';
  return null;
}

/**
 * better-sqlite3's JavaScript (14 CommonJS files, each a resolution, a read and a compile: ~7 ms of every
 * command that opens the store) is bundled into the chunks, and `Database` is built by its own factory, as
 * its index.js does. Its `binding.js`, which finds the native addon (a local build, else the prebuilt binary
 * for this platform), runs unchanged inside the bundle with its `__dirname` set to the installed package's
 * lib folder: the nearest node_modules/better-sqlite3 above the bundle, else wherever Node resolves it. The
 * addon is loaded with `process.dlopen`, as Node's loader does for a `.node` file, so no CommonJS loading
 * (resolution through the package's exports, package.json reads) is left on the path (docs/CLI.md#start-up).
 */
const SQLITE_LIB = path.dirname(createRequire(import.meta.url).resolve('better-sqlite3'));
const SQLITE_ENTRY = '\0better-sqlite3';

function bundledSqlite(): Plugin {
  return {
    name: 'runwarden:bundled-better-sqlite3',
    enforce: 'pre',
    resolveId: (id) => (id === 'better-sqlite3' ? SQLITE_ENTRY : null),
    load(id) {
      if (id !== SQLITE_ENTRY) return null;
      const binding = readFileSync(path.join(SQLITE_LIB, 'binding.js'), 'utf8');
      return `import createDatabase from ${JSON.stringify(path.join(SQLITE_LIB, 'database.js'))};
import SqliteError from ${JSON.stringify(path.join(SQLITE_LIB, 'sqlite-error.js'))};

const nodeFs = process.getBuiltinModule('node:fs');
const nodePath = process.getBuiltinModule('node:path');

function installedLib() {
  const tail = nodePath.join('node_modules', 'better-sqlite3', 'lib');
  for (let dir = nodePath.dirname(process.getBuiltinModule('node:url').fileURLToPath(import.meta.url)); ; ) {
    if (nodeFs.existsSync(nodePath.join(dir, tail, 'binding.js'))) return nodePath.join(dir, tail);
    const up = nodePath.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  const { createRequire } = process.getBuiltinModule('node:module');
  return nodePath.dirname(createRequire(import.meta.url).resolve('better-sqlite3'));
}

function bindingModule(__dirname) {
  const module = { exports: {} };
  const exports = module.exports;
  const require = (id) => {
    if (!id.endsWith('.node')) {
      const builtin = process.getBuiltinModule(id);
      if (builtin === undefined) throw new Error('better-sqlite3/lib/binding.js now requires ' + id + ': bundle it');
      return builtin;
    }
    const addon = { exports: {} };
    process.dlopen(addon, nodePath.toNamespacedPath(id));
    return addon.exports;
  };
  require.main = undefined;
  ${binding.replace("'use strict';", '')}
  return module.exports;
}

const Database = createDatabase(bindingModule(installedLib()).getBinding, true);
Database.SqliteError = SqliteError;
export default Database;
`;
    },
  };
}

/** The build config for a set of Node entries: shared by this file and the test harness (test fixtures). */
export function nodeBuildConfig(
  entries: Record<string, string>,
  outDir: string,
  { oneFile = false }: { oneFile?: boolean } = {},
): UserConfig {
  return {
    root,
    logLevel: 'warn',
    publicDir: false,
    plugins: [bundledSqlite()],
    // @noble/hashes is bundled: its three ES module files would each be a resolution and a read on every
    // runner call that checks a token (docs/CLI.md#start-up). smol-toml (Codex's config) and jsonc-parser
    // (the JSON settings files) are bundled too: an installed app's CLI has no node_modules but
    // better-sqlite3's.
    ssr: { target: 'node', noExternal: ['@noble/hashes', 'smol-toml', 'jsonc-parser'] },
    build: {
      ssr: true,
      target: 'node20',
      outDir,
      // One file is built beside the others, into the same folder.
      emptyOutDir: !oneFile,
      sourcemap: true,
      minify: false,
      copyPublicDir: false,
      reportCompressedSize: false,
      rolldownOptions: {
        input: entries,
        external: EXTERNAL,
        output: {
          format: oneFile ? 'cjs' : 'es',
          // Every start reads, decodes and hashes (for the compile cache) the chunks it loads: no comments
          // (the source maps keep them), and ASCII only — one other character and V8 holds the whole file as a
          // two-byte string (docs/CLI.md#start-up).
          comments: false,
          charset: 'ascii',
          entryFileNames: oneFile ? '[name].cjs' : '[name].js',
          chunkFileNames: 'chunks/[name]-[hash].js',
          ...('runwarden' in entries && {
            codeSplitting: { groups: [{ name: cliChunkName, debugName: 'cli' }] },
          }),
          ...(oneFile && { codeSplitting: false }),
        },
      },
    },
  };
}

export default defineConfig(({ mode }) =>
  mode === 'hook'
    ? nodeBuildConfig(HOOK_ENTRY, 'out/cli', { oneFile: true })
    : nodeBuildConfig(CLI_ENTRIES, 'out/cli'),
);
