#!/usr/bin/env node
// The `runwarden` command: a thin shim over the built CLI bundle (npm run build:cli).
import { fileURLToPath } from 'node:url';

// Node's own objects, not through `import`: the ESM wrapper of node:fs reads every export, which loads
// fs/promises, readline and the stream modules into every start (docs/CLI.md#start-up).
const fs = process.getBuiltinModule('node:fs');
const nodeModule = process.getBuiltinModule('node:module');

const bundle = new URL('../out/cli/runwarden.js', import.meta.url);
if (!fs.existsSync(bundle)) {
  process.stderr.write("Runwarden's CLI is not built: run npm run build:cli\n");
  process.exit(1);
}
// Runners start this often (notify, progress, step): V8's compiled code for the bundle and better-sqlite3 is
// kept beside the bundle, so later starts skip compiling it (docs/CLI.md#start-up). Beside the code
// it caches, whoever could write the cache could write the code; an unwritable folder only means no cache.
const cacheDir = fileURLToPath(new URL('../out/cli/.compile-cache', import.meta.url));
try {
  nodeModule.enableCompileCache(cacheDir);
} catch {
  // A Node without it, or a cache it cannot use: start without one.
}

/**
 * An agent starts `agents hook` on every event: its own one-file entry, without the rest of the CLI, run as a
 * script with V8's code cache taken after its first run, so the functions a hook calls are not compiled on
 * every start either (docs/CLI.md#start-up). The cache is named by the bundle's size, time and inode, so a
 * rebuilt bundle never runs another's code (and replaces its cache); V8 refuses a cache of another V8 (then it is written again).
 * build/cli/lib/entry.js does the same for an installed app.
 */
function runHook(file) {
  const vm = process.getBuiltinModule('node:vm');
  const path = process.getBuiltinModule('node:path');
  const stat = fs.statSync(file);
  const key = `agent-hook-${stat.size}-${Math.trunc(stat.mtimeMs)}-${stat.ino}.v8`;
  const cacheFile = path.join(cacheDir, key);
  let cached;
  try {
    cached = fs.readFileSync(cacheFile);
  } catch {
    // No cache yet: this run writes it.
  }
  const script = new vm.Script(nodeModule.wrap(fs.readFileSync(file, 'utf8')), {
    filename: file,
    cachedData: cached,
  });
  if (cached === undefined || script.cachedDataRejected === true) {
    process.once('exit', () => {
      try {
        fs.mkdirSync(cacheDir, { recursive: true });
        const temporary = `${cacheFile}.${process.pid}.tmp`;
        fs.writeFileSync(temporary, script.createCachedData());
        fs.renameSync(temporary, cacheFile);
        // A rebuilt bundle's cache replaces the one before it.
        for (const name of fs.readdirSync(cacheDir)) {
          if (name.startsWith('agent-hook-') && name !== key)
            fs.rmSync(path.join(cacheDir, name), { force: true });
        }
      } catch {
        // An unwritable folder only means no cache.
      }
    });
  }
  const module = { exports: {} };
  script
    .runInThisContext()
    .call(module.exports, module.exports, nodeModule.createRequire(file), module, file, path.dirname(file));
  return module.exports.runAgentHook(process.argv.slice(2));
}

const hook = fileURLToPath(new URL('../out/cli/agent-hook.cjs', import.meta.url));
const code =
  process.argv[2] === 'agents' && process.argv[3] === 'hook' && fs.existsSync(hook)
    ? await runHook(hook)
    : null;
// Anything but a hook call the hook's entry answers: the whole CLI.
if (code === null) await import(bundle.href);
else process.exitCode = code;
