#!/usr/bin/env node
/**
 * `npm start`: build the app, make sure the Electron binary is present, and run it.
 *
 * better-sqlite3 ships one N-API binary per platform inside its npm package, and the same file loads in
 * Node (CLI, tests) and in Electron: nothing is compiled or copied here (docs/ARCHITECTURE.md#native-addon).
 * The Electron binary is a download on first use; where it cannot be had (or cannot start here: as root, or
 * without a usable sandbox), this says why within seconds and opens browser mode itself (`runwarden serve`,
 * which needs no Electron and prints the URL to open).
 *
 * The pure helpers below are unit-tested (test/main/electron/start-script.test.ts).
 */
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** How Electron is launched: the project folder as the app. */
export function electronLaunch({ electronPath, projectRoot, env, args }) {
  const childEnv = { ...env };
  // Set, it would make Electron behave as plain Node (and the app would not start).
  delete childEnv.ELECTRON_RUN_AS_NODE;
  return { command: electronPath, args: [projectRoot, ...args], env: childEnv };
}

/** The sentence for an Electron binary that could not be had, naming the way on without it. */
export function electronMissingMessage(electronVersion, cause) {
  return (
    `the Electron ${electronVersion} binary is not installed and could not be downloaded (${cause}). ` +
    'Check the network (or set ELECTRON_MIRROR) and run `npm start` again. ' +
    'Without Electron, browser mode shows the same window (`npx runwarden serve`).'
  );
}

/** Is this module the script node was asked to run? Compares real paths, so a symlinked checkout works. */
export function isMainModule(moduleUrl, argv1, realpath = realpathSync) {
  if (argv1 === undefined) return false;
  try {
    return realpath(fileURLToPath(moduleUrl)) === realpath(resolve(argv1));
  } catch {
    return moduleUrl === pathToFileURL(resolve(argv1)).href;
  }
}

/** The real file system, as the sandbox check reads it (tests pass fakes). */
export const realFs = {
  readFile: (path) => readFileSync(path, 'utf8'),
  stat: (path) => statSync(path),
  readdir: (path) => readdirSync(path),
  realpath: (path) => realpathSync(path),
};

function readOr(fs, path, fallback) {
  try {
    return fs.readFile(path).trim();
  } catch {
    return fallback;
  }
}

/**
 * Linux as root: Chromium refuses to run a root process with its sandbox on ("Running as root without
 * --no-sandbox is not supported"), and `npm start` never turns the sandbox off. Returns the sentence, or null.
 */
export function rootProblem({ platform, uid }) {
  if (platform !== 'linux' || uid !== 0) return null;
  return (
    'Electron does not start as root with its sandbox on, and npm start never turns the sandbox off: ' +
    'run it as your own user. Without Electron, browser mode shows the same window (`npx runwarden serve`).'
  );
}

/**
 * Linux only: will Chromium's sandbox start? It needs either unprivileged user namespaces or the setuid
 * helper `chrome-sandbox` next to the Electron binary, owned by root with mode 4755. npm installs that helper
 * as the user, so where the kernel restricts user namespaces (Ubuntu 23.10 and later:
 * `kernel.apparmor_restrict_unprivileged_userns = 1`; older Debian: `kernel.unprivileged_userns_clone = 0`)
 * Electron aborts at once with "The SUID sandbox helper binary was found, but is not configured correctly".
 * An AppArmor profile for this Electron that allows `userns` lifts the restriction for it.
 *
 * Returns null when the sandbox can start (or this is not Linux), else the sentence with both remedies.
 * The sandbox is never turned off (no --no-sandbox): the person chooses a remedy.
 */
export function sandboxProblem({ platform, electronPath, fs = realFs }) {
  if (platform !== 'linux') return null;
  const restricted =
    readOr(fs, '/proc/sys/kernel/apparmor_restrict_unprivileged_userns', '0') === '1' ||
    readOr(fs, '/proc/sys/kernel/unprivileged_userns_clone', '1') === '0';
  if (!restricted) return null;
  const helper = join(dirname(electronPath), 'chrome-sandbox');
  let stats;
  try {
    stats = fs.stat(helper);
  } catch {
    return null; // No helper: Electron then reports its own error, which names the missing file.
  }
  const setuidRoot = stats.uid === 0 && (stats.mode & 0o7777) === 0o4755;
  if (setuidRoot) return null;
  let binary = electronPath;
  try {
    binary = fs.realpath(electronPath);
  } catch {
    // Keep the path as given.
  }
  if (hasAppArmorProfileFor(fs, binary)) return null;
  return sandboxRemedy(helper, binary);
}

/** Whether some AppArmor profile names this Electron binary (then it governs its user namespaces). */
function hasAppArmorProfileFor(fs, binary) {
  let names;
  try {
    names = fs.readdir('/etc/apparmor.d');
  } catch {
    return false;
  }
  for (const name of names) {
    try {
      if (fs.readFile(join('/etc/apparmor.d', name)).includes(binary)) return true;
    } catch {
      // A folder or an unreadable file: not a profile for us.
    }
  }
  return false;
}

export function sandboxRemedy(helper, binary) {
  return [
    'Electron cannot start its sandbox here: this kernel restricts unprivileged user namespaces',
    `(AppArmor), and ${helper} is not owned by root with mode 4755.`,
    'Fix it once, with either:',
    `  sudo chown root:root '${helper}' && sudo chmod 4755 '${helper}'`,
    'or an AppArmor profile that lets this Electron use user namespaces:',
    `  printf 'abi <abi/4.0>,\\ninclude <tunables/global>\\nprofile runwarden-electron "%s" flags=(unconfined) {\\n  userns,\\n}\\n' '${binary}' | sudo tee /etc/apparmor.d/runwarden-electron >/dev/null && sudo apparmor_parser -r /etc/apparmor.d/runwarden-electron`,
    'then run `npm start` again (npm ci replaces the helper: the chown/chmod is needed again after it).',
    'The sandbox stays on. Without Electron, browser mode shows the same window (`npx runwarden serve`).',
  ].join('\n');
}

const say = (message) => console.log(`runwarden start: ${message}`);

function runSync(command, args, options) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

/** Locates Electron's binary; `require('electron')` downloads it on first use and throws when it cannot. */
export function locateElectron(req, electronVersion) {
  try {
    return req('electron');
  } catch (error) {
    const first = error instanceof Error ? error.message.split('\n')[0] : String(error);
    // Electron's own wording ("failed to install correctly, delete node_modules/electron") blames the
    // install; the cause is almost always that the download did not get through.
    const cause = /failed to install correctly/i.test(first ?? '')
      ? 'the download did not complete; nothing was left in node_modules'
      : first;
    throw new Error(electronMissingMessage(electronVersion, cause), { cause: error });
  }
}

/** Electron's binary, or the sentence saying why it cannot start here (missing, as root, no sandbox). */
function electronOrReason(req, electronVersion) {
  try {
    const electronPath = locateElectron(req, electronVersion);
    return (
      rootProblem({ platform: process.platform, uid: process.getuid?.() }) ??
      sandboxProblem({ platform: process.platform, electronPath }) ?? { electronPath }
    );
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Runs a vite build (`configArgs` after `build`); throws when it fails. */
function build(projectRoot, bin, configArgs, what) {
  if (runSync(process.execPath, [bin, 'build', ...configArgs], { cwd: projectRoot }) !== 0) {
    throw new Error(`${what} failed (see above).`);
  }
}

/** Runs a child with the terminal, passing Ctrl-C on; resolves with its exit code. */
function runForeground(command, args, options) {
  const child = spawn(command, args, { stdio: 'inherit', ...options });
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      if (!child.killed) child.kill(signal);
    });
  }
  return new Promise((resolvePromise, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => resolvePromise(code ?? (signal ? 1 : 0)));
  });
}

export async function main(argv = process.argv.slice(2)) {
  const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const req = createRequire(join(projectRoot, 'package.json'));
  const electronVersion = JSON.parse(readFileSync(req.resolve('electron/package.json'), 'utf8')).version;
  const viteBin = join(dirname(req.resolve('vite/package.json')), 'bin', 'vite.js');
  const electronViteBin = join(dirname(req.resolve('electron-vite/package.json')), 'bin', 'electron-vite.js');

  say(`locating the Electron ${electronVersion} binary (downloaded on first use)…`);
  const electron = electronOrReason(req, electronVersion);
  say('building main, preload and renderer (electron-vite build)…');
  build(projectRoot, electronViteBin, [], 'electron-vite build');
  if (typeof electron === 'string') {
    // Browser mode: the same window, served by the CLI (which prints the URL to open).
    say(electron);
    say('opening browser mode instead (runwarden serve); open the URL it prints:');
    build(projectRoot, viteBin, ['--config', 'vite.cli.config.ts', '--logLevel', 'warn'], 'the CLI build');
    const cli = join(projectRoot, 'out', 'cli', 'runwarden.js');
    return await runForeground(process.execPath, [cli, 'serve'], { cwd: projectRoot });
  }
  const launch = electronLaunch({
    electronPath: electron.electronPath,
    projectRoot,
    env: process.env,
    args: argv,
  });
  say('starting Runwarden…');
  return await runForeground(launch.command, launch.args, { env: launch.env, cwd: projectRoot });
}

if (isMainModule(import.meta.url, process.argv[1])) {
  main().then(
    (code) => process.exit(code),
    (error) => {
      console.error(`runwarden start: ${error.message}`);
      process.exit(1);
    },
  );
}
