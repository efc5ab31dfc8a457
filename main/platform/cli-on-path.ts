/**
 * Settings' "Install 'runwarden' command in PATH", for the installs with no installer step that can do it
 * (docs/DESKTOP-CHECKLIST.md#the-runwarden-command): a link in /usr/local/bin on macOS (asking for an
 * administrator through osascript when that folder is not writable, as VS Code's shell command does), the app's
 * `resources\bin` in the user PATH on Windows (HKCU\Environment, written with reg.exe, then announced to the
 * running programs with WM_SETTINGCHANGE through PowerShell, so new terminals see it), a link in
 * `~/.local/bin` on Linux. It removes only what it wrote and never replaces a `runwarden` it did not write.
 * Plain Node: the platform, paths, file system and the commands it runs are injected, so every branch is
 * tested on one machine.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { homedir } from 'node:os';
import { delimiter as hostDelimiter, posix, win32 } from 'node:path';
import { RunwardenError } from '../../shared/errors';
import type { CliPathStatus } from '../../shared/views';
import { installedLauncher, unstableHome } from './stable-cli-path';

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a program with arguments, no shell. */
export type RunCommand = (file: string, args: string[]) => CommandResult;

export interface CliPathFs {
  exists: (path: string) => boolean;
  /** Whether the path itself is a symbolic link (not followed); false when missing. */
  isLink: (path: string) => boolean;
  /** Whether anything at all is at the path, a dangling link included. */
  present: (path: string) => boolean;
  /** The file a path finally points at; the path itself when it cannot be resolved. */
  realpath: (path: string) => string;
  symlink: (target: string, path: string) => void;
  unlink: (path: string) => void;
  mkdirp: (path: string) => void;
}

export interface CliPathSystem {
  platform: NodeJS.Platform;
  home: string;
  /** This app's launcher (`<resources>/bin/runwarden`, `runwarden.cmd`); null in a checkout. */
  launcher: string | null;
  /** `$APPIMAGE` when the app runs as an AppImage. */
  appImage: string | null;
  /** The PATH of this process: what the status looks through first. */
  pathEnv: string;
  /** Where macOS links the command (default /usr/local/bin). */
  macLinkDir?: string;
  /** Windows' folder (`%SystemRoot%`): PowerShell is run from its System32, not looked up on the PATH. */
  systemRoot?: string;
  run: RunCommand;
  fs: CliPathFs;
}

const MAC_LINK_DIR = '/usr/local/bin';
const USER_ENV_KEY = 'HKCU\\Environment';

/** The link this app writes (macOS, Linux), or null where it writes none. */
function linkPath(sys: CliPathSystem): string | null {
  switch (sys.platform) {
    case 'darwin':
      return posix.join(sys.macLinkDir ?? MAC_LINK_DIR, 'runwarden');
    case 'win32':
      return null;
    default:
      return posix.join(sys.home, '.local', 'bin', 'runwarden');
  }
}

/** Why this app cannot install the command, or null when it can. */
function unavailableReason(sys: CliPathSystem): string | null {
  if (sys.launcher === null) {
    return 'Only an installed Runwarden puts its command on the PATH; in a checkout, use npm link.';
  }
  // The AppImage's files live in a mount that exists only while it runs, and its AppRun may add
  // --no-sandbox, which Node mode rejects (docs/DESKTOP-CHECKLIST.md#the-runwarden-command).
  if (sys.appImage !== null) {
    return 'The AppImage cannot run its command outside its own mount: install the deb for the runwarden command.';
  }
  // A translocated or mounted copy on macOS: a link to it would dangle after the first quit.
  return unstableHome(sys.launcher, sys.platform);
}

export function cliPathStatus(sys: CliPathSystem): CliPathStatus {
  const reason = unavailableReason(sys);
  const launcher = sys.launcher;
  if (reason !== null || launcher === null) {
    const found = firstOnPath(sys, splitPath(sys, sys.pathEnv));
    return {
      available: false,
      target: null,
      installed: false,
      found,
      leadsHere: false,
      message: reason ?? '',
    };
  }
  if (sys.platform === 'win32') return windowsStatus(sys, launcher);
  const link = linkPath(sys) ?? '';
  const installed = isOurLink(sys, link, launcher);
  // A new terminal's PATH: this process's, and the link's folder (a GUI app's PATH may lack /usr/local/bin).
  const dirs = [...splitPath(sys, sys.pathEnv), posix.dirname(link)];
  const found = firstOnPath(sys, dirs);
  const leadsHere = found !== null && sys.fs.realpath(found) === sys.fs.realpath(launcher);
  return { available: true, target: link, installed, found, leadsHere, message: describe(found, leadsHere) };
}

export function installCliOnPath(sys: CliPathSystem): CliPathStatus {
  const launcher = requireAvailable(sys);
  if (sys.platform === 'win32') {
    const binDir = win32.dirname(launcher);
    const current = readUserPath(sys);
    const entries = current.value === '' ? [] : current.value.split(';');
    if (entries.some((entry) => sameDir(entry, binDir))) return cliPathStatus(sys);
    const value = [...entries.filter((entry) => entry !== ''), binDir].join(';');
    writeUserPath(sys, value, current.type);
    return announced(sys, announceEnvironmentChange(sys));
  }
  const link = linkPath(sys) ?? '';
  if (isOurLink(sys, link, launcher)) return cliPathStatus(sys);
  if (sys.fs.present(link)) {
    throw new RunwardenError(
      'CONFLICT',
      `${link} already exists and is not this app's runwarden; remove it first, then install again.`,
    );
  }
  try {
    sys.fs.mkdirp(posix.dirname(link));
    sys.fs.symlink(launcher, link);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (sys.platform !== 'darwin' || (code !== 'EACCES' && code !== 'EPERM' && code !== 'ENOENT')) {
      throw new RunwardenError('FORBIDDEN', `Could not create ${link}: ${(error as Error).message}`);
    }
    // /usr/local/bin belongs to an administrator on a stock Mac: macOS asks for the password.
    runAsAdmin(
      sys,
      `mkdir -p ${shellQuote(posix.dirname(link))} && ln -s ${shellQuote(launcher)} ${shellQuote(link)}`,
      link,
    );
  }
  return cliPathStatus(sys);
}

export function uninstallCliOnPath(sys: CliPathSystem): CliPathStatus {
  const launcher = requireAvailable(sys);
  if (sys.platform === 'win32') {
    const binDir = win32.dirname(launcher);
    const current = readUserPath(sys);
    const entries = current.value.split(';');
    const kept = entries.filter((entry) => !sameDir(entry, binDir));
    if (kept.length === entries.length) return cliPathStatus(sys);
    writeUserPath(sys, kept.join(';'), current.type);
    return announced(sys, announceEnvironmentChange(sys));
  }
  const link = linkPath(sys) ?? '';
  if (!sys.fs.present(link)) return cliPathStatus(sys);
  if (!isOurLink(sys, link, launcher)) {
    throw new RunwardenError('CONFLICT', `${link} is not this app's runwarden: it was left as it is.`);
  }
  try {
    sys.fs.unlink(link);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (sys.platform !== 'darwin' || (code !== 'EACCES' && code !== 'EPERM')) {
      throw new RunwardenError('FORBIDDEN', `Could not remove ${link}: ${(error as Error).message}`);
    }
    runAsAdmin(sys, `rm ${shellQuote(link)}`, link);
  }
  return cliPathStatus(sys);
}

function requireAvailable(sys: CliPathSystem): string {
  const reason = unavailableReason(sys);
  if (reason !== null || sys.launcher === null) throw new RunwardenError('FORBIDDEN', reason ?? '');
  return sys.launcher;
}

/** A link (not a copy, not a script) whose final target is this app's launcher. */
function isOurLink(sys: CliPathSystem, link: string, launcher: string): boolean {
  return sys.fs.isLink(link) && sys.fs.realpath(link) === sys.fs.realpath(launcher);
}

function describe(found: string | null, leadsHere: boolean): string {
  if (found === null) return 'No runwarden command on the PATH.';
  if (leadsHere) return `runwarden on the PATH (${found}) runs this app's CLI.`;
  return `runwarden on the PATH (${found}) is another install, not this app.`;
}

function splitPath(sys: CliPathSystem, value: string): string[] {
  const separator = sys.platform === 'win32' ? ';' : sys.platform === process.platform ? hostDelimiter : ':';
  return value.split(separator).filter((dir) => dir !== '');
}

function firstOnPath(sys: CliPathSystem, dirs: string[]): string | null {
  const join = sys.platform === 'win32' ? win32.join : posix.join;
  const names =
    sys.platform === 'win32' ? ['runwarden.cmd', 'runwarden.exe', 'runwarden.bat'] : ['runwarden'];
  for (const dir of dirs) {
    for (const name of names) {
      const candidate = join(dir, name);
      if (sys.fs.exists(candidate)) return candidate;
    }
  }
  return null;
}

// ---- Windows: the user PATH in HKCU\Environment, as the per-user installers of VS Code and others keep it.

interface UserPath {
  value: string;
  type: 'REG_SZ' | 'REG_EXPAND_SZ';
}

function readUserPath(sys: CliPathSystem): UserPath {
  const result = sys.run('reg.exe', ['query', USER_ENV_KEY, '/v', 'Path']);
  // Exit 1: the user has no Path of their own yet.
  if (result.code !== 0) return { value: '', type: 'REG_EXPAND_SZ' };
  for (const line of result.stdout.split(/\r?\n/)) {
    const match = /^\s+Path\s+(REG_SZ|REG_EXPAND_SZ)\s+(.*)$/i.exec(line);
    if (match !== null) {
      return {
        value: (match[2] ?? '').trim(),
        type: match[1]?.toUpperCase() === 'REG_SZ' ? 'REG_SZ' : 'REG_EXPAND_SZ',
      };
    }
  }
  return { value: '', type: 'REG_EXPAND_SZ' };
}

function writeUserPath(sys: CliPathSystem, value: string, type: UserPath['type']): void {
  const args =
    value === ''
      ? ['delete', USER_ENV_KEY, '/v', 'Path', '/f']
      : ['add', USER_ENV_KEY, '/v', 'Path', '/t', type, '/d', value, '/f'];
  const result = sys.run('reg.exe', args);
  if (result.code !== 0) {
    throw new RunwardenError(
      'FORBIDDEN',
      `Could not change the user PATH: ${result.stderr.trim() || `reg.exe exited ${result.code}`}`,
    );
  }
}

/**
 * The PowerShell that tells running programs the user environment changed: .NET's
 * `SetEnvironmentVariable(…, 'User')` broadcasts WM_SETTINGCHANGE ("Environment") after each write, so
 * Explorer, and every terminal started from it afterwards, read the user PATH again without a sign-out. It
 * sets and then removes a variable of Runwarden's own: the PATH itself is written by reg.exe, which keeps its
 * REG_EXPAND_SZ type (.NET would rewrite it as REG_SZ, and `%USERPROFILE%` entries would stop expanding), and
 * the last broadcast comes after the removal, so nothing of it is left. No compiled helper is needed: Windows
 * PowerShell 5.1 ships with every Windows 10 and 11.
 */
export const ANNOUNCE_ENVIRONMENT_SCRIPT =
  "$n = 'RUNWARDEN_PATH_CHANGED'; " +
  "[Environment]::SetEnvironmentVariable($n, '1', 'User'); " +
  "[Environment]::SetEnvironmentVariable($n, $null, 'User')";

/** PowerShell's path and arguments for the broadcast (no profile, no prompt, no window). */
export function announceEnvironmentCommand(systemRoot: string | undefined): { file: string; args: string[] } {
  const file =
    systemRoot === undefined || systemRoot === ''
      ? 'powershell.exe'
      : win32.join(systemRoot, 'System32', 'WindowsPowerShell', 'v1.0', 'powershell.exe');
  return {
    file,
    args: [
      '-NoProfile',
      '-NonInteractive',
      '-WindowStyle',
      'Hidden',
      '-Command',
      ANNOUNCE_ENVIRONMENT_SCRIPT,
    ],
  };
}

/** Broadcasts the change; false when PowerShell could not (the PATH is written all the same). */
function announceEnvironmentChange(sys: CliPathSystem): boolean {
  const { file, args } = announceEnvironmentCommand(sys.systemRoot);
  return sys.run(file, args).code === 0;
}

/** The status after a PATH change, saying when the change could not be announced. */
function announced(sys: CliPathSystem, ok: boolean): CliPathStatus {
  const status = cliPathStatus(sys);
  if (ok) return status;
  return {
    ...status,
    message: `${status.message} Running programs could not be told of the change: sign out and in if a new terminal does not see it.`,
  };
}

function windowsStatus(sys: CliPathSystem, launcher: string): CliPathStatus {
  const binDir = win32.dirname(launcher);
  const user = readUserPath(sys);
  const userDirs = user.value.split(';').filter((dir) => dir !== '');
  const installed = userDirs.some((dir) => sameDir(dir, binDir));
  // A new terminal's PATH is the machine's then the user's; this process's PATH stands in for the machine's.
  const found = firstOnPath(sys, [...splitPath(sys, sys.pathEnv), ...userDirs]);
  const leadsHere = found !== null && sameDir(win32.dirname(found), binDir);
  const message =
    installed && !leadsHere && found === null
      ? `${binDir} is in your PATH: open a new terminal.`
      : describe(found, leadsHere);
  return { available: true, target: binDir, installed, found, leadsHere, message };
}

function sameDir(a: string, b: string): boolean {
  const norm = (dir: string) =>
    dir
      .trim()
      .replace(/[\\/]+$/, '')
      .toLowerCase();
  return norm(a) === norm(b);
}

// ---- macOS: an administrator's rights for /usr/local/bin, through osascript as VS Code asks for them.

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** An AppleScript string literal. */
function appleScriptString(text: string): string {
  return `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

function runAsAdmin(sys: CliPathSystem, shellCommand: string, link: string): void {
  const script = `do shell script ${appleScriptString(shellCommand)} with administrator privileges`;
  const result = sys.run('/usr/bin/osascript', ['-e', script]);
  if (result.code !== 0) {
    // -128: the person cancelled the password prompt.
    const cancelled = /-128\b/.test(result.stderr);
    throw new RunwardenError(
      'FORBIDDEN',
      cancelled ? `Cancelled: ${link} was not changed.` : `Could not change ${link}: ${result.stderr.trim()}`,
    );
  }
}

// ---- The real system.

export function nodeCliPathFs(): CliPathFs {
  return {
    exists: (path) => fs.existsSync(path),
    isLink: (path) => {
      try {
        return fs.lstatSync(path).isSymbolicLink();
      } catch {
        return false;
      }
    },
    present: (path) => {
      try {
        fs.lstatSync(path);
        return true;
      } catch {
        return false;
      }
    },
    realpath: (path) => {
      try {
        return fs.realpathSync(path);
      } catch {
        return path;
      }
    },
    symlink: (target, path) => fs.symlinkSync(target, path),
    unlink: (path) => fs.unlinkSync(path),
    mkdirp: (path) => fs.mkdirSync(path, { recursive: true }),
  };
}

/**
 * Runs a program and waits (the host's requests are synchronous): reg.exe answers at once, PowerShell's broadcast
 * in about a second (each window not answering within 1 s is skipped); osascript waits while macOS asks for the
 * administrator's password, and the window waits with it.
 */
export const runCommand: RunCommand = (file, args) => {
  const result = spawnSync(file, args, { encoding: 'utf8', windowsHide: true, timeout: 120_000 });
  return {
    code: result.status ?? 1,
    stdout: result.stdout ?? '',
    stderr: (result.stderr ?? '') || (result.error?.message ?? ''),
  };
};

/** This process's system: its platform, home, PATH, and the launcher of the app it belongs to. */
export function currentCliPathSystem(moduleUrl: string): CliPathSystem {
  const cliFs = nodeCliPathFs();
  const launcher = installedLauncher({
    moduleUrl,
    platform: process.platform,
    execPath: process.execPath,
    inElectron: false,
    home: homedir(),
    exists: cliFs.exists,
    realpath: cliFs.realpath,
  });
  return {
    platform: process.platform,
    home: homedir(),
    launcher,
    appImage: process.env.APPIMAGE ?? null,
    pathEnv: process.env.PATH ?? '',
    ...(process.env.SystemRoot !== undefined && { systemRoot: process.env.SystemRoot }),
    run: runCommand,
    fs: cliFs,
  };
}

/** The three Settings actions over one system, as the host's handlers take them. */
export function cliPathActions(sys: CliPathSystem): {
  status: () => CliPathStatus;
  install: () => CliPathStatus;
  uninstall: () => CliPathStatus;
} {
  return {
    status: () => cliPathStatus(sys),
    install: () => installCliOnPath(sys),
    uninstall: () => uninstallCliOnPath(sys),
  };
}
