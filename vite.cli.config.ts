/**
 * Node build of the `runwarden` CLI (and other plain-Node entries: the benchmark in bench/, serve). SSR mode keeps every
 * dependency external, so better-sqlite3's native addon is loaded from node_modules at run time.
 * Add an entry by adding a line to `CLI_ENTRIES`; each lands in `out/cli/<name>.js`.
 */
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Rolldown, type UserConfig } from 'vite';

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
          ...('runwarden' in entries && {
            codeSplitting: { groups: [{ name: cliChunkName, debugName: 'cli' }] },
          }),
        },
      },
    },
  };
}

export default defineConfig(nodeBuildConfig(CLI_ENTRIES, 'out/cli'));
