/**
 * The AppImage's runwarden:// registration, with the real xdg-mime (xdg-utils) in a temporary home: the
 * desktop entry is written, and xdg-mime then names it as the scheme's handler.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  APPIMAGE_DESKTOP_FILE,
  appImageDesktopEntry,
  registerAppImageScheme,
} from '../../../main/electron/appimage-scheme';
import { runCommand } from '../../../main/electron/run-command';

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function tempHome() {
  const home = mkdtempSync(join(tmpdir(), 'runwarden-appimage-'));
  homes.push(home);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_DATA_DIRS: join(home, 'nowhere'),
  };
  return { home, env };
}

describe('registerAppImageScheme (real xdg-mime)', () => {
  it('writes a desktop entry for the AppImage file and makes it the runwarden:// handler', async () => {
    const { home, env } = tempHome();
    const appImage = join(home, 'Apps', 'Runwarden 0.1.0 "x64" $HOME.AppImage');
    const outcome = await registerAppImageScheme({
      env: { ...env, APPIMAGE: appImage },
      home,
      scheme: 'runwarden',
      run: runCommand,
    });
    expect(outcome).toBe('registered');
    const file = join(home, '.local', 'share', 'applications', APPIMAGE_DESKTOP_FILE);
    expect(readFileSync(file, 'utf8')).toBe(appImageDesktopEntry(appImage, 'runwarden'));
    expect(statSync(file).mode & 0o777).toBe(0o644);
    const handler = execFileSync('xdg-mime', ['query', 'default', 'x-scheme-handler/runwarden'], {
      env,
      encoding: 'utf8',
    });
    expect(handler.trim()).toBe(APPIMAGE_DESKTOP_FILE);
  });

  it('does nothing outside an AppImage', async () => {
    const { home, env } = tempHome();
    const never = () => Promise.reject(new Error('not run'));
    expect(await registerAppImageScheme({ env, home, scheme: 'runwarden', run: never })).toBe(
      'not-an-appimage',
    );
  });

  it('reports, never throws, when xdg-mime is missing', async () => {
    const { home, env } = tempHome();
    const missing = () => Promise.reject(new Error('spawn xdg-mime ENOENT'));
    expect(
      await registerAppImageScheme({
        env: { ...env, APPIMAGE: '/a/R.AppImage' },
        home,
        scheme: 'runwarden',
        run: missing,
      }),
    ).toEqual({ failed: 'spawn xdg-mime ENOENT' });
  });
});

describe('the desktop entry', () => {
  it('quotes the AppImage path as one Exec argument and passes the link as %U', () => {
    const entry = appImageDesktopEntry('/home/me/R.AppImage', 'runwarden');
    expect(entry).toContain('Exec="/home/me/R.AppImage" %U\n');
    expect(entry).toContain('MimeType=x-scheme-handler/runwarden;\n');
    expect(entry.startsWith('[Desktop Entry]\n')).toBe(true);
  });
});
