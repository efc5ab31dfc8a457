import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  electronLaunch,
  electronMissingMessage,
  isMainModule,
  locateElectron,
  rootProblem,
  sandboxProblem,
  sandboxRemedy,
  type StartFs,
} from '../../../scripts/start.js';

describe('scripts/start.js helpers', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('launches the project folder, and never as plain Node', () => {
    const launch = electronLaunch({
      electronPath: '/cache/electron',
      projectRoot: '/p',
      env: { HOME: '/home/me', ELECTRON_RUN_AS_NODE: '1' },
      args: ['--hidden'],
    });
    expect(launch).toEqual({
      command: '/cache/electron',
      args: ['/p', '--hidden'],
      env: { HOME: '/home/me' },
    });
  });

  it('names the missing Electron binary and browser mode when the download fails', () => {
    const failing = () => {
      throw new Error('Electron failed to install correctly.\nmore detail');
    };
    expect(() => locateElectron(failing, '45.5.0')).toThrow(
      electronMissingMessage('45.5.0', 'the download did not complete; nothing was left in node_modules'),
    );
    const other = () => {
      throw new Error('EACCES: permission denied, open path.txt\nstack');
    };
    expect(() => locateElectron(other, '45.5.0')).toThrow(
      electronMissingMessage('45.5.0', 'EACCES: permission denied, open path.txt'),
    );
    expect(electronMissingMessage('45.5.0', 'x')).toMatch(/runwarden serve/);
    expect(locateElectron(() => '/dist/electron', '45.5.0')).toBe('/dist/electron');
  });

  it('runs when started through a symlinked checkout', () => {
    const root = mkdtempSync(join(tmpdir(), 'runwarden-start-'));
    dirs.push(root);
    mkdirSync(join(root, 'real', 'scripts'), { recursive: true });
    const script = join(root, 'real', 'scripts', 'start.js');
    writeFileSync(script, '');
    symlinkSync(join(root, 'real'), join(root, 'link'));
    const url = pathToFileURL(script).href;
    expect(isMainModule(url, join(root, 'link', 'scripts', 'start.js'))).toBe(true);
    expect(isMainModule(url, script)).toBe(true);
    expect(isMainModule(url, join(root, 'other.js'))).toBe(false);
    expect(isMainModule(url, undefined)).toBe(false);
  });
});

describe('the Linux sandbox check (Ubuntu 23.10+ AppArmor user-namespace restriction)', () => {
  const ELECTRON = '/home/me/runwarden/node_modules/electron/dist/electron';
  const HELPER = '/home/me/runwarden/node_modules/electron/dist/chrome-sandbox';

  function fakeFs(files: Record<string, string>, helper: { uid: number; mode: number } | null): StartFs {
    return {
      readFile: (path) => {
        const text = files[path];
        if (text === undefined) throw new Error(`ENOENT: ${path}`);
        return text;
      },
      stat: (path) => {
        if (path !== HELPER || helper === null) throw new Error(`ENOENT: ${path}`);
        return helper;
      },
      readdir: (path) => {
        const prefix = `${path}/`;
        const names = Object.keys(files)
          .filter((f) => f.startsWith(prefix))
          .map((f) => f.slice(prefix.length));
        if (names.length === 0) throw new Error(`ENOENT: ${path}`);
        return names;
      },
      realpath: (path) => path,
    };
  }
  const ubuntu = { '/proc/sys/kernel/apparmor_restrict_unprivileged_userns': '1\n' };
  const userOwned = { uid: 1000, mode: 0o100755 };

  it('Ubuntu 24.04 with the helper as npm installed it: the exact remedy, sandbox kept on', () => {
    const problem = sandboxProblem({
      platform: 'linux',
      electronPath: ELECTRON,
      fs: fakeFs(ubuntu, userOwned),
    });
    expect(problem).toBe(sandboxRemedy(HELPER, ELECTRON));
    expect(problem).toContain(`sudo chown root:root '${HELPER}' && sudo chmod 4755 '${HELPER}'`);
    expect(problem).toContain('apparmor_parser -r /etc/apparmor.d/runwarden-electron');
    expect(problem).toContain(`'${ELECTRON}'`);
    expect(problem).toMatch(/runwarden serve/);
    expect(problem).not.toMatch(/--no-sandbox/);
  });

  it('as root on Linux: one sentence (Chromium refuses a root process with the sandbox on), nothing else', () => {
    const problem = rootProblem({ platform: 'linux', uid: 0 });
    expect(problem).toMatch(/^Electron does not start as root with its sandbox on.*as your own user\./);
    expect(problem).toMatch(/runwarden serve/);
    expect(problem).not.toMatch(/--no-sandbox/);
    expect(rootProblem({ platform: 'linux', uid: 1000 })).toBeNull();
    expect(rootProblem({ platform: 'darwin', uid: 0 })).toBeNull();
  });

  it('older Debian (unprivileged_userns_clone = 0) is the same problem', () => {
    const fs = fakeFs({ '/proc/sys/kernel/unprivileged_userns_clone': '0' }, userOwned);
    expect(sandboxProblem({ platform: 'linux', electronPath: ELECTRON, fs })).toBe(
      sandboxRemedy(HELPER, ELECTRON),
    );
  });

  it.each([
    ['a root-owned 4755 helper', ubuntu, { uid: 0, mode: 0o104755 }],
    ['user namespaces allowed', { '/proc/sys/kernel/apparmor_restrict_unprivileged_userns': '0' }, userOwned],
    ['neither sysctl present (not Ubuntu, not old Debian)', {}, userOwned],
    [
      'an AppArmor profile for this Electron',
      {
        ...ubuntu,
        '/etc/apparmor.d/runwarden-electron': `profile runwarden-electron "${ELECTRON}" flags=(unconfined) {\n  userns,\n}\n`,
      },
      userOwned,
    ],
    ['no helper at all (Electron names it itself)', ubuntu, null],
  ] as const)('no problem with %s', (_case, files, helper) => {
    expect(
      sandboxProblem({ platform: 'linux', electronPath: ELECTRON, fs: fakeFs(files, helper) }),
    ).toBeNull();
  });

  it('a root-owned helper without the setuid bit is still a problem; so is a profile for another binary', () => {
    expect(
      sandboxProblem({
        platform: 'linux',
        electronPath: ELECTRON,
        fs: fakeFs(ubuntu, { uid: 0, mode: 0o100755 }),
      }),
    ).not.toBeNull();
    const other = {
      ...ubuntu,
      '/etc/apparmor.d/chrome': 'profile chrome /opt/google/chrome/chrome {\n userns,\n}\n',
    };
    expect(
      sandboxProblem({ platform: 'linux', electronPath: ELECTRON, fs: fakeFs(other, userOwned) }),
    ).not.toBeNull();
  });

  it.each(['darwin', 'win32'] as const)('%s has no such check', (platform) => {
    expect(sandboxProblem({ platform, electronPath: ELECTRON, fs: fakeFs(ubuntu, userOwned) })).toBeNull();
  });

  it('reads this machine without throwing', () => {
    expect(() =>
      sandboxProblem({ platform: process.platform, electronPath: '/nonexistent/electron' }),
    ).not.toThrow();
  });
});
