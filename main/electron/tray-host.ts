/**
 * Is there anything on this desktop that will show our tray icon? On Linux, Electron's tray is a
 * StatusNotifierItem, drawn only when a host has claimed the session bus name `org.kde.StatusNotifierWatcher`
 * (KDE, Cinnamon, XFCE with its plugin, GNOME only with the AppIndicator extension). Vanilla GNOME has none:
 * there the icon never appears, and hiding the window to the tray would make the app vanish. macOS and
 * Windows always have a place for it. See docs/DESKTOP-CHECKLIST.md#linux.
 */
import { runCommand, type RunCommand } from './run-command';

export type { RunCommand } from './run-command';

export const STATUS_NOTIFIER_WATCHER = 'org.kde.StatusNotifierWatcher';

/** `present`: an icon will show; `absent`: no host answered; `unknown`: the bus could not be asked. */
export type TrayHost = 'present' | 'absent' | 'unknown';

/** The two standard command-line D-Bus clients, each asking the bus whether the watcher name has an owner. */
const QUERIES: ReadonlyArray<{ command: string; args: string[]; parse: (out: string) => boolean | null }> = [
  {
    command: 'dbus-send',
    args: [
      '--session',
      '--print-reply=literal',
      '--dest=org.freedesktop.DBus',
      '/org/freedesktop/DBus',
      'org.freedesktop.DBus.NameHasOwner',
      `string:${STATUS_NOTIFIER_WATCHER}`,
    ],
    parse: (out) => (/\bboolean\s+true\b/.test(out) ? true : /\bboolean\s+false\b/.test(out) ? false : null),
  },
  {
    command: 'gdbus',
    args: [
      'call',
      '--session',
      '--dest',
      'org.freedesktop.DBus',
      '--object-path',
      '/org/freedesktop/DBus',
      '--method',
      'org.freedesktop.DBus.NameHasOwner',
      STATUS_NOTIFIER_WATCHER,
    ],
    parse: (out) => (/\(true,?\)/.test(out) ? true : /\(false,?\)/.test(out) ? false : null),
  },
];

export async function detectTrayHost(
  platform: NodeJS.Platform,
  env: NodeJS.ProcessEnv,
  run: RunCommand = runCommand,
): Promise<TrayHost> {
  if (platform !== 'linux') return 'present';
  // Without a session bus there is no StatusNotifierItem host to find.
  if ((env.DBUS_SESSION_BUS_ADDRESS ?? '') === '' && (env.XDG_RUNTIME_DIR ?? '') === '') return 'absent';
  for (const query of QUERIES) {
    try {
      const answer = query.parse(await run(query.command, query.args, env));
      if (answer !== null) return answer ? 'present' : 'absent';
    } catch {
      // Not installed, or the bus did not answer: try the next client.
    }
  }
  return 'unknown';
}

/**
 * Whether closing the window may hide it to the tray: only when an icon is known to show. Otherwise the
 * window is minimised instead, so the app never disappears with no way back.
 */
export function canHideToTray(host: TrayHost): boolean {
  return host === 'present';
}
