/**
 * The `launchAtLogin` setting → the OS login item: Electron's login items on macOS and Windows, an XDG
 * autostart entry on Linux (xdg-autostart.ts; Electron's call does nothing there). Only the installed app
 * registers one: under `npm start` the running executable is the bare development Electron, and a login item
 * for it would open Electron's default app at every login.
 */
import type { App, MessageBoxOptions } from 'electron';

/** Started at login, the app opens hidden in the tray instead of popping a window. */
export const HIDDEN_ARG = '--hidden';

export function applyLaunchAtLogin(
  app: Pick<App, 'setLoginItemSettings'>,
  enabled: boolean,
  platform: NodeJS.Platform,
  packaged = true,
  linuxAutostart?: (enabled: boolean) => void,
): boolean {
  if (!packaged) return false;
  if (platform === 'linux' && linuxAutostart !== undefined) {
    linuxAutostart(enabled);
    return true;
  }
  if (platform !== 'darwin' && platform !== 'win32') return false;
  app.setLoginItemSettings(
    platform === 'win32' ? { openAtLogin: enabled, args: [HIDDEN_ARG] } : { openAtLogin: enabled },
  );
  return true;
}

/** Whether this launch should start hidden (an OS login launch). */
export function startsHidden(argv: readonly string[], wasOpenedAtLogin: boolean): boolean {
  return wasOpenedAtLogin || argv.includes(HIDDEN_ARG);
}

/**
 * macOS 13 and later can register a login item that still waits for the person's approval in System Settings
 * (`getLoginItemSettings().status === 'requires-approval'`): then Runwarden does not start at login until they
 * allow it, and nobody would know. What to tell them, or null when nothing is to be said.
 */
export function loginItemApprovalNotice(
  platform: NodeJS.Platform,
  enabled: boolean,
  status: string | undefined,
): MessageBoxOptions | null {
  if (platform !== 'darwin' || !enabled || status !== 'requires-approval') return null;
  return {
    type: 'info',
    title: 'Runwarden',
    message: 'macOS asks you to allow Runwarden to open at login.',
    detail:
      'Open System Settings → General → Login Items and turn Runwarden on; until then it does not start at login.',
  };
}
