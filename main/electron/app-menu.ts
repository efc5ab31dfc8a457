/**
 * The application menu. Electron installs a default one (File/Edit/View/Window/Help with Reload, Toggle
 * DevTools and Help → electronjs.org) unless the app sets its own; `setApplicationMenu(null)` removes it,
 * and on Windows and Linux the window's menu bar with it. A development run keeps the default: Reload and
 * DevTools are what it is for.
 *
 * macOS always has a menu bar, and without Edit roles Cmd+C / Cmd+V stop working in text fields, so the
 * packaged macOS app gets a minimal menu: the app menu (About, Hide, Quit), Edit, and Window.
 */
import type { MenuItemConstructorOptions } from 'electron';

/** `'default'`: leave Electron's menu; `null`: no menu; otherwise the template to build. */
export type ApplicationMenu = 'default' | null | MenuItemConstructorOptions[];

export function applicationMenu(options: {
  packaged: boolean;
  platform: NodeJS.Platform;
  productName: string;
}): ApplicationMenu {
  if (!options.packaged) return 'default';
  if (options.platform !== 'darwin') return null;
  return [
    {
      label: options.productName,
      submenu: [
        { role: 'about' },
        { type: 'separator' },
        { role: 'hide' },
        { role: 'hideOthers' },
        { role: 'unhide' },
        { type: 'separator' },
        { role: 'quit', label: `Quit ${options.productName}` },
      ],
    },
    {
      label: 'Edit',
      submenu: [
        { role: 'undo' },
        { role: 'redo' },
        { type: 'separator' },
        { role: 'cut' },
        { role: 'copy' },
        { role: 'paste' },
        { role: 'selectAll' },
      ],
    },
    { label: 'Window', submenu: [{ role: 'minimize' }, { role: 'close' }] },
  ];
}
