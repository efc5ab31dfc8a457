// The CLI of an installed Runwarden, started by bin/runwarden (or runwarden.cmd) as the app's executable in
// Node mode (docs/DESKTOP-CHECKLIST.md#the-runwarden-command).
const { existsSync } = process.getBuiltinModule('node:fs');
const { enableCompileCache } = process.getBuiltinModule('node:module');
const { homedir } = process.getBuiltinModule('node:os');
const { dirname, join } = process.getBuiltinModule('node:path');
const { fileURLToPath } = process.getBuiltinModule('node:url');

// Node mode must end here: an Electron app that a wrapped command starts would otherwise run as Node too.
delete process.env.ELECTRON_RUN_AS_NODE;

// Commands that `runwarden exec` starts find `runwarden` first on their PATH in the folder of the CLI's own
// path (argv[1]): that is the launcher folder, not this one.
const launcher = fileURLToPath(
  new URL(process.platform === 'win32' ? '../bin/runwarden.cmd' : '../bin/runwarden', import.meta.url),
);
if (existsSync(launcher)) process.argv[1] = launcher;
// A supervisor that re-executes itself (main/runner/subreaper.ts) starts this file again, not the launcher.
globalThis[Symbol.for('runwarden.entry')] = fileURLToPath(import.meta.url);

// Runners start the CLI often: keep V8's compiled code in the person's own cache folder (the app's folder is
// not theirs to write, and a shared temporary folder is anyone's to write).
function cacheDir() {
  const env = process.env;
  if (process.platform === 'win32' && env.LOCALAPPDATA)
    return join(env.LOCALAPPDATA, 'Runwarden', 'compile-cache');
  if (process.platform === 'darwin')
    return join(homedir(), 'Library', 'Caches', 'Runwarden', 'compile-cache');
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'runwarden', 'compile-cache');
}
const cache = cacheDir();
try {
  enableCompileCache(cache);
} catch {
  // No cache: the CLI starts all the same.
}

/**
 * `agents hook`, which an agent starts on every event: its own one-file entry, run as a script with V8's code
 * cache taken after its first run, as bin/runwarden.js does in a checkout (docs/CLI.md#start-up). The cache
 * is named by the bundle's size, time and inode, so an updated app never runs another version's code.
 */
function runHook(file) {
  const fs = process.getBuiltinModule('node:fs');
  const nodeModule = process.getBuiltinModule('node:module');
  const vm = process.getBuiltinModule('node:vm');
  const stat = fs.statSync(file);
  const key = `agent-hook-${stat.size}-${Math.trunc(stat.mtimeMs)}-${stat.ino}.v8`;
  const cacheFile = join(cache, key);
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
        fs.mkdirSync(cache, { recursive: true });
        const temporary = `${cacheFile}.${process.pid}.tmp`;
        fs.writeFileSync(temporary, script.createCachedData());
        fs.renameSync(temporary, cacheFile);
        // An updated app's cache replaces the one before it.
        for (const name of fs.readdirSync(cache)) {
          if (name.startsWith('agent-hook-') && name !== key) fs.rmSync(join(cache, name), { force: true });
        }
      } catch {
        // An unwritable folder only means no cache.
      }
    });
  }
  const module = { exports: {} };
  script
    .runInThisContext()
    .call(module.exports, module.exports, nodeModule.createRequire(file), module, file, dirname(file));
  return module.exports.runAgentHook(process.argv.slice(2));
}

const hook = fileURLToPath(new URL('./agent-hook.cjs', import.meta.url));
const code =
  process.argv[2] === 'agents' && process.argv[3] === 'hook' && existsSync(hook) ? await runHook(hook) : null;
// Anything but a hook call the hook's entry answers: the whole CLI.
if (code === null) await import('./runwarden.js');
else process.exitCode = code;
