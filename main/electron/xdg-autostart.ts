/**
 * "Launch at login" on Linux: Electron's login-item API does nothing there, so the installed app writes (or
 * removes) a desktop entry in the XDG autostart folder, which every freedesktop session starts at login
 * (docs/DESKTOP-CHECKLIST.md#linux). The AppImage names its own file ($APPIMAGE): the executable it runs
 * lives in a mount that is gone once it quits.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { desktopExecArg } from './desktop-entry';
import { HIDDEN_ARG } from './login-item';

export const AUTOSTART_FILE = 'runwarden.desktop';

/** The autostart entry that starts `executable` hidden in the tray. */
export function autostartEntry(executable: string): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=Runwarden',
    'Comment=A control room for durable workflow runs',
    `Exec=${desktopExecArg(executable)} ${HIDDEN_ARG}`,
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

/** `$XDG_CONFIG_HOME/autostart`, or `~/.config/autostart`. */
export function autostartDir(env: NodeJS.ProcessEnv, home: string): string {
  const configHome = env.XDG_CONFIG_HOME?.startsWith('/') ? env.XDG_CONFIG_HOME : join(home, '.config');
  return join(configHome, 'autostart');
}

/** The executable a login should start: the AppImage file itself, else the app's executable. */
export function autostartExecutable(env: NodeJS.ProcessEnv, execPath: string): string {
  return env.APPIMAGE !== undefined && env.APPIMAGE.startsWith('/') ? env.APPIMAGE : execPath;
}

/** Writes or removes the entry; returns its path. */
export function applyXdgAutostart(
  enabled: boolean,
  place: { env: NodeJS.ProcessEnv; home: string; execPath: string },
): string {
  const dir = autostartDir(place.env, place.home);
  const file = join(dir, AUTOSTART_FILE);
  if (!enabled) {
    rmSync(file, { force: true });
    return file;
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, autostartEntry(autostartExecutable(place.env, place.execPath)), { mode: 0o644 });
  return file;
}
