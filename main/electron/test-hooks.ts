/**
 * What the real-Electron tests (test/electron/) reach in the main process, through Playwright's
 * `electronApp.evaluate`: the tray's current menu, and the last notification shown. Installed only in a
 * development run started with RUNWARDEN_TEST_HOOKS=1; never in a packaged app.
 */
import type { MenuItemConstructorOptions } from 'electron';
import type { ShownNotification } from './notifier';

export const TEST_HOOKS_ENV = 'RUNWARDEN_TEST_HOOKS';

export interface TestHooks {
  /** Top-level tray menu labels. */
  trayLabels(): string[];
  /** Labels of a submenu, by its parent's label. */
  submenuLabels(parent: string): string[];
  /** Clicks a tray item by its label path (`['Quit Runwarden']`, `['Deploy? (api)', 'yes']`). */
  clickTray(path: string[]): boolean;
  /** How many notifications were shown, and clicks the last one. */
  notificationsShown(): number;
  clickLastNotification(): boolean;
  /** Whether closing the window hides it to the tray (a tray icon host was found) or quits. */
  canHideToTray(): boolean;
  /** Whether the tray host detection has answered (canHideToTray is final). */
  trayHostSettled(): boolean;
  /** The native tray: alive, and the labels of the native Menu it holds (not the JS template). */
  nativeTray(): { alive: boolean; menuLabels: string[] };
  /** Native notification events: how many were shown by the OS, and the errors of those that failed. */
  notificationEvents(): { shown: number; failed: string[] };
}

export function testHooksEnabled(packaged: boolean, env: NodeJS.ProcessEnv): boolean {
  return !packaged && env[TEST_HOOKS_ENV] === '1';
}

function find(items: MenuItemConstructorOptions[], label: string): MenuItemConstructorOptions | undefined {
  return items.find((item) => item.label === label);
}

export function createTestHooks(sources: {
  trayMenu: () => MenuItemConstructorOptions[];
  notifications: () => readonly ShownNotification[];
  emitClick: (notification: ShownNotification) => void;
  canHideToTray: () => boolean;
  trayHostSettled: () => boolean;
  nativeTray: () => { alive: boolean; menuLabels: string[] };
  notificationEvents: () => { shown: number; failed: string[] };
}): TestHooks {
  return {
    trayLabels: () => sources.trayMenu().map((item) => item.label ?? `(${item.type ?? 'item'})`),
    submenuLabels: (parent) => {
      const submenu = find(sources.trayMenu(), parent)?.submenu;
      return Array.isArray(submenu) ? submenu.map((item) => item.label ?? `(${item.type ?? 'item'})`) : [];
    },
    clickTray: (path) => {
      let items = sources.trayMenu();
      let item: MenuItemConstructorOptions | undefined;
      for (const label of path) {
        item = find(items, label);
        if (item === undefined) return false;
        items = Array.isArray(item.submenu) ? item.submenu : [];
      }
      const click = item?.click;
      if (typeof click !== 'function') return false;
      (click as () => void)();
      return true;
    },
    canHideToTray: () => sources.canHideToTray(),
    trayHostSettled: () => sources.trayHostSettled(),
    nativeTray: () => sources.nativeTray(),
    notificationEvents: () => sources.notificationEvents(),
    notificationsShown: () => sources.notifications().length,
    clickLastNotification: () => {
      const last = sources.notifications().at(-1);
      if (last === undefined) return false;
      sources.emitClick(last);
      return true;
    },
  };
}
