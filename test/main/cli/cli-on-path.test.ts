import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ANNOUNCE_ENVIRONMENT_SCRIPT,
  announceEnvironmentCommand,
  cliPathStatus,
  installCliOnPath,
  nodeCliPathFs,
  uninstallCliOnPath,
  type CliPathFs,
  type CliPathSystem,
  type CommandResult,
} from '../../../main/platform/cli-on-path';
import { stableCliLaunch } from '../../../main/platform/stable-cli-path';
import { RunwardenError } from '../../../shared/errors';

let root: string;
let home: string;
/** An installed app's resources folder: bin/runwarden (a launcher stand-in) beside cli/entry.js. */
let resources: string;
let launcher: string;

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(join(tmpdir(), 'rw-cli-path-')));
  home = join(root, 'home');
  resources = join(root, 'opt', 'Runwarden', 'resources');
  launcher = join(resources, 'bin', 'runwarden');
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(join(resources, 'bin'), { recursive: true });
  fs.mkdirSync(join(resources, 'cli'), { recursive: true });
  fs.writeFileSync(join(resources, 'cli', 'entry.js'), '');
  fs.writeFileSync(launcher, '#!/bin/sh\necho "this app\'s runwarden $*"\n', { mode: 0o755 });
});

afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

function refusal(fn: () => unknown): RunwardenError {
  try {
    fn();
  } catch (error) {
    if (error instanceof RunwardenError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('cli-on-path on Linux, for real in a temporary HOME', () => {
  const linux = (overrides: Partial<CliPathSystem> = {}): CliPathSystem => ({
    platform: 'linux',
    home,
    launcher,
    appImage: null,
    pathEnv: `${join(home, '.local', 'bin')}:/usr/bin:/bin`,
    run: () => {
      throw new Error('Linux runs no command');
    },
    fs: nodeCliPathFs(),
    ...overrides,
  });

  it('links ~/.local/bin/runwarden to this app, says so, and a shell then runs this app', () => {
    const before = cliPathStatus(linux());
    expect(before).toMatchObject({ available: true, installed: false, leadsHere: false, found: null });
    expect(before.message).toBe('No runwarden command on the PATH.');

    const link = join(home, '.local', 'bin', 'runwarden');
    const after = installCliOnPath(linux());
    expect(after).toMatchObject({
      available: true,
      target: link,
      installed: true,
      found: link,
      leadsHere: true,
    });
    expect(fs.readlinkSync(link)).toBe(launcher);

    // A terminal with that PATH runs this app's launcher by the bare name.
    const shell = spawnSync('sh', ['-c', 'runwarden --version'], {
      encoding: 'utf8',
      env: { PATH: `${join(home, '.local', 'bin')}:/usr/bin:/bin`, HOME: home },
    });
    expect(shell.stdout).toBe("this app's runwarden --version\n");

    // Agent hooks then take the name on the PATH, not the path inside the app.
    expect(
      stableCliLaunch({
        moduleUrl: `file://${join(resources, 'cli', 'runwarden.js')}`,
        platform: 'linux',
        execPath: '/nowhere',
        inElectron: true,
        home,
        exists: fs.existsSync,
        realpath: (p) => nodeCliPathFs().realpath(p),
      }),
    ).toEqual({ argv: [link], env: {} });

    // Installing again changes nothing.
    expect(installCliOnPath(linux())).toEqual(after);
  });

  it('removes only its own link, and leaves the rest of ~/.local/bin', () => {
    const bin = join(home, '.local', 'bin');
    fs.mkdirSync(bin, { recursive: true });
    fs.writeFileSync(join(bin, 'other-tool'), 'keep');
    installCliOnPath(linux());
    const after = uninstallCliOnPath(linux());
    expect(after).toMatchObject({ installed: false, found: null, leadsHere: false });
    expect(fs.existsSync(join(bin, 'runwarden'))).toBe(false);
    expect(fs.readdirSync(bin)).toEqual(['other-tool']);
    // Nothing to remove is no error.
    expect(uninstallCliOnPath(linux())).toMatchObject({ installed: false });
  });

  it("refuses to overwrite or remove a runwarden it did not write (a file or another app's link)", () => {
    const bin = join(home, '.local', 'bin');
    fs.mkdirSync(bin, { recursive: true });
    const link = join(bin, 'runwarden');
    fs.writeFileSync(link, '#!/bin/sh\necho npm link\n', { mode: 0o755 });

    const status = cliPathStatus(linux());
    expect(status).toMatchObject({ installed: false, found: link, leadsHere: false });
    expect(status.message).toBe(`runwarden on the PATH (${link}) is another install, not this app.`);
    const refused = refusal(() => installCliOnPath(linux()));
    expect(refused.code).toBe('CONFLICT');
    expect(refused.message).toContain(link);
    expect(refusal(() => uninstallCliOnPath(linux())).code).toBe('CONFLICT');
    expect(fs.readFileSync(link, 'utf8')).toBe('#!/bin/sh\necho npm link\n');

    // A link to another copy of Runwarden, even a dangling one, is not ours either.
    fs.rmSync(link);
    fs.symlinkSync(join(root, 'elsewhere', 'bin', 'runwarden'), link);
    expect(refusal(() => installCliOnPath(linux())).code).toBe('CONFLICT');
    expect(refusal(() => uninstallCliOnPath(linux())).code).toBe('CONFLICT');
    expect(fs.readlinkSync(link)).toBe(join(root, 'elsewhere', 'bin', 'runwarden'));
  });

  it('says when an earlier runwarden on the PATH shadows this app', () => {
    const earlier = join(root, 'earlier');
    fs.mkdirSync(earlier);
    fs.writeFileSync(join(earlier, 'runwarden'), '', { mode: 0o755 });
    const sys = linux({ pathEnv: `${earlier}:${join(home, '.local', 'bin')}` });
    expect(installCliOnPath(sys)).toMatchObject({
      installed: true,
      found: join(earlier, 'runwarden'),
      leadsHere: false,
    });
  });

  it('refuses in the AppImage and in a checkout, writing nothing', () => {
    for (const sys of [linux({ appImage: join(root, 'Runwarden.AppImage') }), linux({ launcher: null })]) {
      expect(cliPathStatus(sys)).toMatchObject({ available: false, target: null, installed: false });
      expect(refusal(() => installCliOnPath(sys)).code).toBe('FORBIDDEN');
      expect(refusal(() => uninstallCliOnPath(sys)).code).toBe('FORBIDDEN');
    }
    expect(cliPathStatus(linux({ appImage: '/x.AppImage' })).message).toContain('install the deb');
    expect(fs.existsSync(join(home, '.local'))).toBe(false);
  });
});

describe('cli-on-path on macOS (real links in a stand-in /usr/local/bin, osascript faked)', () => {
  let linkDir: string;
  let commands: Array<[string, string[]]>;
  beforeEach(() => {
    linkDir = join(root, 'usr-local-bin');
    commands = [];
  });

  /** The real file system, except that the link folder refuses this user (root ignores permissions). */
  function deniedFs(): CliPathFs {
    const real = nodeCliPathFs();
    const denied = (path: string) => {
      if (path.startsWith(linkDir)) throw Object.assign(new Error(`EACCES: ${path}`), { code: 'EACCES' });
    };
    return {
      ...real,
      mkdirp: (path) => {
        denied(path);
        real.mkdirp(path);
      },
      symlink: (target, path) => {
        denied(path);
        real.symlink(target, path);
      },
      unlink: (path) => {
        denied(path);
        real.unlink(path);
      },
    };
  }

  const mac = (run: (file: string, args: string[]) => CommandResult, cliFs = deniedFs()): CliPathSystem => ({
    platform: 'darwin',
    home,
    launcher,
    appImage: null,
    pathEnv: '/usr/bin:/bin',
    macLinkDir: linkDir,
    run: (file, args) => {
      commands.push([file, args]);
      return run(file, args);
    },
    fs: cliFs,
  });

  it('links without asking when the folder is writable', () => {
    const status = installCliOnPath(mac(() => ({ code: 1, stdout: '', stderr: 'unused' }), nodeCliPathFs()));
    expect(commands).toEqual([]);
    expect(status).toMatchObject({ installed: true, leadsHere: true, found: join(linkDir, 'runwarden') });
  });

  it('asks for an administrator through osascript when /usr/local/bin is not writable', () => {
    const asAdmin = (_file: string, args: string[]): CommandResult => {
      // Stand in for the administrator: do what the script says, here, without the rights check.
      const shell = /^do shell script "(.*)" with administrator privileges$/.exec(args[1] ?? '')?.[1] ?? '';
      const ran = spawnSync('sh', ['-c', shell.replaceAll('\\"', '"').replaceAll('\\\\', '\\')]);
      return { code: ran.status ?? 1, stdout: '', stderr: String(ran.stderr) };
    };
    const status = installCliOnPath(mac(asAdmin));
    const link = join(linkDir, 'runwarden');
    expect(commands).toEqual([
      [
        '/usr/bin/osascript',
        [
          '-e',
          `do shell script "mkdir -p '${linkDir}' && ln -s '${launcher}' '${link}'" with administrator privileges`,
        ],
      ],
    ]);
    expect(status).toMatchObject({ installed: true, leadsHere: true, found: link });

    commands = [];
    expect(uninstallCliOnPath(mac(asAdmin))).toMatchObject({ installed: false, found: null });
    expect(commands).toEqual([
      ['/usr/bin/osascript', ['-e', `do shell script "rm '${link}'" with administrator privileges`]],
    ]);
  });

  it('quotes an app path with quotes for both the shell and AppleScript', () => {
    const odd = join(root, `It's "odd"`, 'bin', 'runwarden');
    fs.mkdirSync(join(root, `It's "odd"`, 'bin'), { recursive: true });
    fs.writeFileSync(odd, '');
    const sys = { ...mac(() => ({ code: 0, stdout: '', stderr: '' })), launcher: odd };
    installCliOnPath(sys);
    const script = commands[0]?.[1][1] ?? '';
    expect(script).toContain(`ln -s '${join(root, `It'\\\\''s \\"odd\\"`, 'bin', 'runwarden')}'`);
  });

  it('says the person cancelled when they close the password prompt, and changes nothing', () => {
    const refused = refusal(() =>
      installCliOnPath(
        mac(() => ({ code: 1, stdout: '', stderr: 'execution error: User canceled. (-128)' })),
      ),
    );
    expect(refused).toMatchObject({ code: 'FORBIDDEN' });
    expect(refused.message).toBe(`Cancelled: ${join(linkDir, 'runwarden')} was not changed.`);
    expect(fs.existsSync(linkDir)).toBe(false);
  });
});

describe('cli-on-path on Windows (reg.exe faked)', () => {
  const appBin = 'C:\\Users\\Ann\\AppData\\Local\\Programs\\Runwarden\\resources\\bin';
  const winLauncher = `${appBin}\\runwarden.cmd`;

  /** A fake HKCU\Environment Path and file system; records every reg.exe call. */
  function windows(
    initial: { value: string; type: string } | null,
    extraFiles: string[] = [],
    powershell: { code: number } = { code: 0 },
  ) {
    let userPath = initial;
    const calls: string[][] = [];
    /** Every program run, in order: reg.exe's verb, or PowerShell's path and arguments. */
    const runs: string[][] = [];
    const files = new Set([winLauncher.toLowerCase(), ...extraFiles.map((f) => f.toLowerCase())]);
    const sys: CliPathSystem = {
      platform: 'win32',
      home: 'C:\\Users\\Ann',
      launcher: winLauncher,
      appImage: null,
      pathEnv: 'C:\\Windows\\system32;C:\\Windows',
      systemRoot: 'C:\\Windows',
      run: (file, args) => {
        if (file.endsWith('powershell.exe')) {
          runs.push([file, ...args]);
          return { code: powershell.code, stdout: '', stderr: powershell.code === 0 ? '' : 'blocked' };
        }
        expect(file).toBe('reg.exe');
        calls.push(args);
        runs.push(['reg.exe', args[0] ?? '']);
        if (args[0] === 'query') {
          if (userPath === null) return { code: 1, stdout: '', stderr: 'ERROR: not found' };
          return {
            code: 0,
            stdout: `\r\nHKEY_CURRENT_USER\\Environment\r\n    Path    ${userPath.type}    ${userPath.value}\r\n\r\n`,
            stderr: '',
          };
        }
        if (args[0] === 'add') userPath = { type: args[5] ?? '', value: args[7] ?? '' };
        if (args[0] === 'delete') userPath = null;
        return { code: 0, stdout: '', stderr: '' };
      },
      fs: {
        exists: (path) => files.has(path.toLowerCase()),
        isLink: () => false,
        present: (path) => files.has(path.toLowerCase()),
        realpath: (path) => path,
        symlink: () => {
          throw new Error('Windows writes no link');
        },
        unlink: () => {
          throw new Error('Windows removes no file');
        },
        mkdirp: () => {
          throw new Error('Windows makes no folder');
        },
      },
    };
    return { sys, calls, runs, userPath: () => userPath };
  }

  const POWERSHELL = 'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe';

  it("appends the app's bin folder to the user PATH with reg.exe, keeping its type and entries", () => {
    const w = windows({ value: '%USERPROFILE%\\bin;C:\\Tools', type: 'REG_EXPAND_SZ' });
    expect(cliPathStatus(w.sys)).toMatchObject({
      available: true,
      target: appBin,
      installed: false,
      found: null,
    });
    const status = installCliOnPath(w.sys);
    expect(w.calls).toContainEqual([
      'add',
      'HKCU\\Environment',
      '/v',
      'Path',
      '/t',
      'REG_EXPAND_SZ',
      '/d',
      `%USERPROFILE%\\bin;C:\\Tools;${appBin}`,
      '/f',
    ]);
    expect(status).toMatchObject({ installed: true, found: winLauncher, leadsHere: true });
    // Twice is once.
    const adds = w.calls.filter((c) => c[0] === 'add').length;
    installCliOnPath(w.sys);
    expect(w.calls.filter((c) => c[0] === 'add').length).toBe(adds);
  });

  it('creates the user Path when there is none, and deletes it again when it held only this folder', () => {
    const w = windows(null);
    installCliOnPath(w.sys);
    expect(w.userPath()).toEqual({ value: appBin, type: 'REG_EXPAND_SZ' });
    uninstallCliOnPath(w.sys);
    expect(w.calls.at(-2)).toEqual(['delete', 'HKCU\\Environment', '/v', 'Path', '/f']);
    expect(w.userPath()).toBeNull();
  });

  it('removes only its own folder (any case, trailing backslash) and leaves the rest', () => {
    const w = windows({ value: `C:\\Tools;${appBin.toUpperCase()}\\;D:\\x`, type: 'REG_SZ' });
    expect(cliPathStatus(w.sys)).toMatchObject({ installed: true });
    expect(uninstallCliOnPath(w.sys)).toMatchObject({ installed: false });
    expect(w.userPath()).toEqual({ value: 'C:\\Tools;D:\\x', type: 'REG_SZ' });
  });

  it('says when another runwarden earlier on the PATH wins', () => {
    const w = windows({ value: appBin, type: 'REG_EXPAND_SZ' }, ['C:\\Windows\\runwarden.cmd']);
    const status = cliPathStatus(w.sys);
    expect(status).toMatchObject({ installed: true, found: 'C:\\Windows\\runwarden.cmd', leadsHere: false });
    expect(status.message).toContain('another install');
  });

  it('announces the new PATH with WM_SETTINGCHANGE through PowerShell, after reg.exe wrote it', () => {
    const w = windows({ value: 'C:\\Tools', type: 'REG_EXPAND_SZ' });
    const status = installCliOnPath(w.sys);
    const add = w.runs.findIndex((r) => r[0] === 'reg.exe' && r[1] === 'add');
    const broadcast = w.runs.findIndex((r) => r[0] === POWERSHELL);
    expect(add).toBeGreaterThanOrEqual(0);
    expect(broadcast).toBeGreaterThan(add);
    expect(w.runs[broadcast]).toEqual([
      POWERSHELL,
      '-NoProfile',
      '-NonInteractive',
      '-WindowStyle',
      'Hidden',
      '-Command',
      ANNOUNCE_ENVIRONMENT_SCRIPT,
    ]);
    expect(status.message).not.toContain('sign out');
    // Removing announces too; an install or removal that changes nothing announces nothing.
    uninstallCliOnPath(w.sys);
    expect(w.runs.filter((r) => r[0] === POWERSHELL)).toHaveLength(2);
    uninstallCliOnPath(w.sys);
    expect(w.runs.filter((r) => r[0] === POWERSHELL)).toHaveLength(2);
    expect(w.userPath()).toEqual({ value: 'C:\\Tools', type: 'REG_EXPAND_SZ' });
  });

  it("the broadcast touches only a variable of its own, never the PATH's value or type", () => {
    // .NET's SetEnvironmentVariable broadcasts after each write; it would store the PATH as REG_SZ.
    expect(ANNOUNCE_ENVIRONMENT_SCRIPT).toBe(
      "$n = 'RUNWARDEN_PATH_CHANGED'; [Environment]::SetEnvironmentVariable($n, '1', 'User'); " +
        "[Environment]::SetEnvironmentVariable($n, $null, 'User')",
    );
    expect(ANNOUNCE_ENVIRONMENT_SCRIPT).not.toMatch(/\bPath\b/i);
    // Without %SystemRoot% (never on a real Windows), PowerShell by name.
    expect(announceEnvironmentCommand(undefined).file).toBe('powershell.exe');
    expect(announceEnvironmentCommand('D:\\WINNT').file).toBe(
      'D:\\WINNT\\System32\\WindowsPowerShell\\v1.0\\powershell.exe',
    );
  });

  it('a broadcast that fails leaves the PATH written and says a sign-out may be needed', () => {
    const w = windows({ value: 'C:\\Tools', type: 'REG_SZ' }, [], { code: 1 });
    const status = installCliOnPath(w.sys);
    expect(status).toMatchObject({ installed: true, leadsHere: true });
    expect(w.userPath()).toEqual({ value: `C:\\Tools;${appBin}`, type: 'REG_SZ' });
    expect(status.message).toContain(
      'Running programs could not be told of the change: sign out and in if a new terminal does not see it.',
    );
  });

  it('reports a reg.exe failure as a refusal', () => {
    const w = windows({ value: '', type: 'REG_SZ' });
    const sys: CliPathSystem = {
      ...w.sys,
      run: (file, args) =>
        args[0] === 'add'
          ? { code: 1, stdout: '', stderr: 'ERROR: Access is denied.' }
          : w.sys.run(file, args),
    };
    const refused = refusal(() => installCliOnPath(sys));
    expect(refused).toMatchObject({
      code: 'FORBIDDEN',
      message: 'Could not change the user PATH: ERROR: Access is denied.',
    });
  });
});
