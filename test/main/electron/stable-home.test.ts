/**
 * A stable home before anything is baked in (docs/DESKTOP-CHECKLIST.md#a-stable-home): on macOS a translocated
 * or mounted copy offers to move to Applications, and refuses to put its path into the PATH link or agent hooks;
 * with fakes for Electron and for the file system and commands.
 */
import { describe, expect, it } from 'vitest';
import { cliPathActions, cliPathStatus, type CliPathSystem } from '../../../main/platform/cli-on-path';
import { unstableHome } from '../../../main/platform/stable-cli-path';
import { offerApplicationsFolder } from '../../../main/electron/applications-folder';
import { RunwardenError } from '../../../shared/errors';

const TRANSLOCATED =
  '/private/var/folders/x1/abc/T/AppTranslocation/1F2E3D4C-0000-4000-8000-000000000000/d/Runwarden.app';
const MOUNTED = '/Volumes/Runwarden 0.1.1/Runwarden.app';
const INSTALLED = '/Applications/Runwarden.app';

describe('unstableHome()', () => {
  it('names App Translocation and disk images on macOS, nothing elsewhere', () => {
    expect(unstableHome(`${TRANSLOCATED}/Contents/Resources/bin/runwarden`, 'darwin')).toMatch(
      /App Translocation.*move Runwarden to Applications/,
    );
    expect(unstableHome(`${MOUNTED}/Contents/Resources/bin/runwarden`, 'darwin')).toMatch(
      /disk image.*Applications/,
    );
    expect(unstableHome(`${INSTALLED}/Contents/Resources/bin/runwarden`, 'darwin')).toBeNull();
    expect(unstableHome(`${process.env.HOME ?? '/Users/me'}/Apps/Runwarden.app/x`, 'darwin')).toBeNull();
    expect(unstableHome('/Volumes/data/opt/Runwarden/resources/bin/runwarden', 'linux')).toBeNull();
  });
});

describe("Settings' Install 'runwarden' command in PATH from an unstable copy", () => {
  function mac(appPath: string, written: string[]): CliPathSystem {
    return {
      platform: 'darwin',
      home: '/Users/me',
      launcher: `${appPath}/Contents/Resources/bin/runwarden`,
      appImage: null,
      pathEnv: '/usr/bin:/bin',
      run: (file, args) => {
        written.push([file, ...args].join(' '));
        return { code: 0, stdout: '', stderr: '' };
      },
      fs: {
        exists: () => false,
        isLink: () => false,
        present: () => false,
        realpath: (path) => path,
        symlink: (target, path) => written.push(`ln ${target} ${path}`),
        unlink: (path) => written.push(`rm ${path}`),
        mkdirp: (path) => written.push(`mkdir ${path}`),
      },
    };
  }

  it('is not offered, says why, and an install writes nothing', () => {
    for (const appPath of [TRANSLOCATED, MOUNTED]) {
      const written: string[] = [];
      const sys = mac(appPath, written);
      const status = cliPathStatus(sys);
      expect(status.available).toBe(false);
      expect(status.message).toMatch(/Applications/);
      let refused: unknown = null;
      try {
        cliPathActions(sys).install();
      } catch (error) {
        refused = error;
      }
      expect(refused).toBeInstanceOf(RunwardenError);
      expect((refused as RunwardenError).code).toBe('FORBIDDEN');
      expect((refused as RunwardenError).message).toBe(status.message);
      expect(written).toEqual([]);
    }
  });

  it('from Applications it links as before', () => {
    const written: string[] = [];
    const status = cliPathActions(mac(INSTALLED, written)).install();
    expect(written).toContain(`ln ${INSTALLED}/Contents/Resources/bin/runwarden /usr/local/bin/runwarden`);
    expect(status.available).toBe(true);
  });
});

describe('offerApplicationsFolder()', () => {
  function fakeApp(inApplications: boolean, move: () => boolean) {
    const calls: string[] = [];
    return {
      calls,
      app: {
        isInApplicationsFolder: () => inApplications,
        moveToApplicationsFolder: () => {
          calls.push('move');
          return move();
        },
      },
    };
  }
  const base = { packaged: true, platform: 'darwin' as const, log: () => {} };

  it('asks only a packaged Mac app outside Applications; moves on yes', () => {
    const asked: string[] = [];
    const ask = (options: { detail?: string }) => {
      asked.push(options.detail ?? '');
      return 0;
    };
    const inside = fakeApp(true, () => true);
    expect(
      offerApplicationsFolder({
        ...base,
        app: inside.app,
        execPath: `${INSTALLED}/Contents/MacOS/Runwarden`,
        ask,
      }),
    ).toBe('in-applications');
    const dev = fakeApp(false, () => true);
    expect(offerApplicationsFolder({ ...base, packaged: false, app: dev.app, execPath: '/x', ask })).toBe(
      'not-offered',
    );
    expect(offerApplicationsFolder({ ...base, platform: 'linux', app: dev.app, execPath: '/x', ask })).toBe(
      'not-offered',
    );
    expect(asked).toEqual([]);
    const outside = fakeApp(false, () => true);
    expect(
      offerApplicationsFolder({
        ...base,
        app: outside.app,
        execPath: `${TRANSLOCATED}/Contents/MacOS/Runwarden`,
        ask,
      }),
    ).toBe('moved');
    expect(asked[0]).toMatch(/temporary copy macOS made/);
    expect(outside.calls).toEqual(['move']);
  });

  it('"Not Now", a cancelled password prompt and a failed move leave the app where it is', () => {
    const logged: string[] = [];
    const execPath = `${MOUNTED}/Contents/MacOS/Runwarden`;
    const notNow = fakeApp(false, () => true);
    expect(offerApplicationsFolder({ ...base, app: notNow.app, execPath, ask: () => 1 })).toBe('declined');
    expect(notNow.calls).toEqual([]);
    const cancelled = fakeApp(false, () => false);
    expect(offerApplicationsFolder({ ...base, app: cancelled.app, execPath, ask: () => 0 })).toBe('declined');
    const broken = fakeApp(false, () => {
      throw new Error('copy failed');
    });
    expect(
      offerApplicationsFolder({
        ...base,
        app: broken.app,
        execPath,
        ask: () => 0,
        log: (m) => logged.push(m),
      }),
    ).toBe('failed');
    expect(logged).toEqual(['runwarden: could not move to Applications: copy failed']);
  });
});
