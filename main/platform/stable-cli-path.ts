/**
 * The command that runs this `runwarden` CLI and keeps working for as long as this install does: what other
 * programs' settings (agent hooks) should hold, never a path that moves (an AppImage's mount, a temporary
 * folder) or a checkout the app was not started from (docs/DESKTOP-CHECKLIST.md#the-runwarden-command).
 */
import { posix, win32 } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shellCommand, shellQuote } from './shell-quote';

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

/**
 * How to start the CLI with no shell in between: an executable the OS can spawn, its first arguments, and the
 * variables it needs. On Windows that is never `runwarden.cmd`: since Node's fix for CVE-2024-27980, `spawn` of
 * a `.cmd` or `.bat` without a shell fails with EINVAL, so the launch is the app's own executable in Node mode
 * (`ELECTRON_RUN_AS_NODE=1`, what the `.cmd` itself does) on `resources\cli\entry.js`.
 */
export interface CliLaunch {
  argv: string[];
  env: Record<string, string>;
}

/** The variable that puts the app's executable in Node mode (allowed by the runAsNode fuse). */
export const NODE_MODE_ENV = { ELECTRON_RUN_AS_NODE: '1' } as const;

function pathOf(probe: StableCliProbe): typeof posix {
  return probe.platform === 'win32' ? win32 : posix;
}

/** The folder of the probe's module, in the probe platform's own path syntax. */
function moduleDir(probe: StableCliProbe): string {
  return pathOf(probe).dirname(fileURLToPath(probe.moduleUrl, { windows: probe.platform === 'win32' }));
}

/** Where the packages put `runwarden` on the PATH: the deb's link, the macOS Settings action's, the AppImage's. */
function pathLinks(probe: StableCliProbe): string[] {
  if (probe.platform === 'win32') return [];
  return [
    '/usr/bin/runwarden',
    '/usr/local/bin/runwarden',
    posix.join(probe.home, '.local', 'bin', 'runwarden'),
  ];
}

/** The first folder at or above the module that `holds` accepts (five levels at most). */
function findUp(probe: StableCliProbe, holds: (dir: string) => boolean): string | null {
  const path = pathOf(probe);
  let dir = moduleDir(probe);
  for (let level = 0; level < 5; level++) {
    if (holds(dir)) return dir;
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return null;
}

/** An installed app's `resources` folder: `cli/entry.js` beside `bin/runwarden` (`bin\runwarden.cmd`). */
function installedResources(probe: StableCliProbe): string | null {
  const path = pathOf(probe);
  const launcherName = probe.platform === 'win32' ? 'runwarden.cmd' : 'runwarden';
  return findUp(
    probe,
    (dir) =>
      probe.exists(path.join(dir, 'cli', 'entry.js')) && probe.exists(path.join(dir, 'bin', launcherName)),
  );
}

/** The launcher of an installed app: `<resources>/bin/runwarden` beside `<resources>/cli/entry.js`. */
export function installedLauncher(probe: StableCliProbe): string | null {
  const resources = installedResources(probe);
  if (resources === null) return null;
  return pathOf(probe).join(resources, 'bin', probe.platform === 'win32' ? 'runwarden.cmd' : 'runwarden');
}

/** A checkout's `bin/runwarden.js` (beside package.json), from its sources or its out/ bundles. */
function checkoutShim(probe: StableCliProbe): string | null {
  const path = pathOf(probe);
  const dir = findUp(
    probe,
    (at) => probe.exists(path.join(at, 'bin', 'runwarden.js')) && probe.exists(path.join(at, 'package.json')),
  );
  return dir === null ? null : path.join(dir, 'bin', 'runwarden.js');
}

/** Windows: `<install>\Runwarden.exe` (electron-builder names it after productName) in Node mode on the entry. */
function windowsInstalledLaunch(resources: string): CliLaunch {
  return {
    argv: [win32.join(resources, '..', 'Runwarden.exe'), win32.join(resources, 'cli', 'entry.js')],
    env: { ...NODE_MODE_ENV },
  };
}

/**
 * The launch of the CLI that keeps working for as long as this install does, per platform: an installed app's
 * `runwarden` on the PATH when that link leads to this app's launcher, else the launcher inside the app (a
 * POSIX shell script with `#!`, which the OS starts itself); on Windows the app's executable in Node mode; in
 * a checkout, a Node and `bin/runwarden.js`; `runwarden` when neither is found.
 */
export function stableCliLaunch(probe: StableCliProbe = currentProcessProbe()): CliLaunch {
  const resources = installedResources(probe);
  if (resources !== null) {
    if (probe.platform === 'win32') return windowsInstalledLaunch(resources);
    const launcher = posix.join(resources, 'bin', 'runwarden');
    const target = probe.realpath(launcher);
    const onPath = pathLinks(probe).find((link) => probe.exists(link) && probe.realpath(link) === target);
    return { argv: [onPath ?? launcher], env: {} };
  }
  const shim = checkoutShim(probe);
  // Electron's main process is no Node: a checkout's hooks then run the `node` on the PATH, as npm's link would.
  const node = probe.inElectron ? 'node' : probe.execPath;
  if (shim !== null) return { argv: [node, shim], env: {} };
  return { argv: ['runwarden'], env: {} };
}

/**
 * The launch of the CLI running now, named by its own path (`binPath`: a checkout's `bin/runwarden.js`, or the
 * installed launcher the entry names): a Node script under this Node; on Windows the `.cmd` launcher's work
 * done without it (this process is the app's executable in Node mode); a POSIX launcher by itself.
 */
export function runningCliLaunch(binPath: string, probe: StableCliProbe = currentProcessProbe()): CliLaunch {
  if (/\.[cm]?js$/.test(binPath)) return { argv: [probe.execPath, binPath], env: {} };
  if (probe.platform === 'win32' && /\.(cmd|bat)$/i.test(binPath)) {
    const entry = win32.join(win32.dirname(binPath), '..', 'cli', 'entry.js');
    return { argv: [probe.execPath, entry], env: { ...NODE_MODE_ENV } };
  }
  return { argv: [binPath], env: {} };
}

/** The launch as one POSIX shell command line (sh, bash, Git Bash on Windows): variables first, then the argv. */
export function launchCommandLine(launch: CliLaunch, extra: readonly string[] = []): string {
  const vars = Object.entries(launch.env).map(([name, value]) => `${name}=${shellQuote(value)}`);
  return [...vars, shellCommand([...launch.argv, ...extra])].join(' ');
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

/**
 * Why a path of this app must not be baked into other programs' settings, or null when it may: on macOS an
 * app started from a downloaded or mounted copy runs from a temporary App Translocation folder or from the
 * disk image under /Volumes, and both are gone after it quits (docs/DESKTOP-CHECKLIST.md#a-stable-home).
 */
export function unstableHome(path: string, platform: NodeJS.Platform): string | null {
  if (platform !== 'darwin') return null;
  if (path.includes('/AppTranslocation/')) {
    return 'Runwarden is running from a temporary copy macOS made of a downloaded app (App Translocation), which is gone once it quits: move Runwarden to Applications, start it from there, then try again.';
  }
  if (path.startsWith('/Volumes/')) {
    return 'Runwarden is running from its disk image, which is gone once it is ejected: drag Runwarden to Applications, start it from there, then try again.';
  }
  return null;
}
