/**
 * The command that runs this `runwarden` CLI and keeps working for as long as this install does: what other
 * programs' settings (agent hooks) should hold, never a path that moves (an AppImage's mount, a temporary
 * folder) or a checkout the app was not started from (docs/DESKTOP-CHECKLIST.md#the-runwarden-command).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface StableCliProbe {
  /** `import.meta.url` of a module of this build: the CLI bundle, the Electron main bundle, or this source. */
  moduleUrl: string;
  platform: NodeJS.Platform;
  /** The executable running this process (Node, or the app's own executable in Node mode). */
  execPath: string;
  /** True inside Electron's main process, whose executable is not a Node. */
  inElectron: boolean;
  home: string;
  exists: (path: string) => boolean;
  /** The file a path finally points at; the path itself when it cannot be resolved. */
  realpath: (path: string) => string;
}

/** Where the packages put `runwarden` on the PATH: the deb's link, the macOS Settings action's, the AppImage's. */
function pathLinks(probe: StableCliProbe): string[] {
  if (probe.platform === 'win32') return [];
  return ['/usr/bin/runwarden', '/usr/local/bin/runwarden', join(probe.home, '.local', 'bin', 'runwarden')];
}

/** The launcher of an installed app: `<resources>/bin/runwarden` beside `<resources>/cli/entry.js`. */
export function installedLauncher(probe: StableCliProbe): string | null {
  const launcherName = probe.platform === 'win32' ? 'runwarden.cmd' : 'runwarden';
  let dir = dirname(fileURLToPath(probe.moduleUrl));
  for (let level = 0; level < 5; level++) {
    const launcher = join(dir, 'bin', launcherName);
    if (probe.exists(join(dir, 'cli', 'entry.js')) && probe.exists(launcher)) return launcher;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return null;
}

/** A checkout's `bin/runwarden.js` (beside package.json), from its sources or its out/ bundles. */
function checkoutShim(probe: StableCliProbe): string | null {
  let dir = dirname(fileURLToPath(probe.moduleUrl));
  for (let level = 0; level < 5; level++) {
    const shim = join(dir, 'bin', 'runwarden.js');
    if (probe.exists(shim) && probe.exists(join(dir, 'package.json'))) return shim;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return null;
}

/**
 * The argv prefix that runs the CLI: an installed app's `runwarden` on the PATH when that link leads to this
 * app's launcher, else the launcher inside the app; in a checkout, a Node and `bin/runwarden.js`.
 */
export function stableCliCommand(probe: StableCliProbe = currentProcessProbe()): string[] {
  const launcher = installedLauncher(probe);
  if (launcher !== null) {
    const target = probe.realpath(launcher);
    const onPath = pathLinks(probe).find((link) => probe.exists(link) && probe.realpath(link) === target);
    return [onPath ?? launcher];
  }
  const shim = checkoutShim(probe);
  // Electron's main process is no Node: a checkout's hooks then run the `node` on the PATH, as npm's link would.
  const node = probe.inElectron ? 'node' : probe.execPath;
  if (shim !== null) return [node, shim];
  return ['runwarden'];
}

function currentProcessProbe(): StableCliProbe {
  const fs = process.getBuiltinModule('node:fs');
  const os = process.getBuiltinModule('node:os');
  return {
    moduleUrl: import.meta.url,
    platform: process.platform,
    execPath: process.execPath,
    // Electron's main process says 'browser'; the app's executable in Node mode has no type.
    inElectron: (process as { type?: string }).type === 'browser',
    home: os.homedir(),
    exists: (path) => fs.existsSync(path),
    realpath: (path) => {
      try {
        return fs.realpathSync(path);
      } catch {
        return path;
      }
    },
  };
}
