/**
 * "Launch at login" on Linux: an XDG autostart entry written and removed in a real folder, with the Exec line
 * quoted as the Desktop Entry spec asks (checked by parsing it back the way a session does).
 */
import type Electron from 'electron';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { applyLaunchAtLogin, HIDDEN_ARG } from '../../../main/electron/login-item';
import {
  applyXdgAutostart,
  autostartDir,
  autostartEntry,
  autostartExecutable,
} from '../../../main/electron/xdg-autostart';
import { execArguments as execArgs } from '../../helpers/desktop-entry';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('XDG autostart (Linux "Launch at login")', () => {
  it('writes an entry that starts the app hidden, and removes it when turned off', () => {
    const home = mkdtempSync(join(tmpdir(), 'runwarden-autostart-'));
    dirs.push(home);
    const file = applyXdgAutostart(true, { env: {}, home, execPath: '/opt/Runwarden/runwarden' });
    expect(file).toBe(join(home, '.config', 'autostart', 'runwarden.desktop'));
    const entry = readFileSync(file, 'utf8');
    expect(entry.split('\n')[0]).toBe('[Desktop Entry]');
    expect(entry).toContain('Type=Application');
    expect(execArgs(entry)).toEqual(['/opt/Runwarden/runwarden', HIDDEN_ARG]);
    expect(statSync(file).mode & 0o777).toBe(0o644);
    applyXdgAutostart(false, { env: {}, home, execPath: '/opt/Runwarden/runwarden' });
    expect(existsSync(file)).toBe(false);
    // Turning it off twice is fine.
    applyXdgAutostart(false, { env: {}, home, execPath: '/opt/Runwarden/runwarden' });
  });

  it('the AppImage names its own file, not the executable inside its mount', () => {
    expect(
      autostartExecutable({ APPIMAGE: '/home/me/Apps/Runwarden.AppImage' }, '/tmp/.mount_Xy/runwarden'),
    ).toBe('/home/me/Apps/Runwarden.AppImage');
    expect(autostartExecutable({}, '/opt/Runwarden/runwarden')).toBe('/opt/Runwarden/runwarden');
  });

  it('follows XDG_CONFIG_HOME when it is absolute', () => {
    expect(autostartDir({ XDG_CONFIG_HOME: '/cfg' }, '/home/me')).toBe('/cfg/autostart');
    expect(autostartDir({ XDG_CONFIG_HOME: 'relative' }, '/home/me')).toBe('/home/me/.config/autostart');
  });

  it('quotes paths with spaces, quotes, dollars, backslashes and percents so they come back unchanged', () => {
    const odd = '/home/me/My Apps/"Run"$HOME\\x 100%/Runwarden.AppImage';
    expect(execArgs(autostartEntry(odd))).toEqual([odd, HIDDEN_ARG]);
    expect(() => autostartEntry('/a\nExec=evil')).toThrow(/line break/);
  });

  it('applyLaunchAtLogin on Linux uses the autostart entry in the installed app only', () => {
    const app = { setLoginItemSettings: vi.fn<(settings: Electron.Settings) => void>() };
    const autostart = vi.fn<(enabled: boolean) => void>();
    expect(applyLaunchAtLogin(app, true, 'linux', true, autostart)).toBe(true);
    expect(autostart).toHaveBeenCalledWith(true);
    expect(applyLaunchAtLogin(app, true, 'linux', false, autostart)).toBe(false);
    expect(autostart).toHaveBeenCalledTimes(1);
    expect(app.setLoginItemSettings).not.toHaveBeenCalled();
  });
});
