// The CLI of an installed Runwarden, started by bin/runwarden (or runwarden.cmd) as the app's executable in
// Node mode (docs/DESKTOP-CHECKLIST.md#the-runwarden-command).
const { existsSync } = process.getBuiltinModule('node:fs');
const { enableCompileCache } = process.getBuiltinModule('node:module');
const { homedir } = process.getBuiltinModule('node:os');
const { join } = process.getBuiltinModule('node:path');
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
try {
  enableCompileCache(cacheDir());
} catch {
  // No cache: the CLI starts all the same.
}

await import('./runwarden.js');
