/**
 * The application menu. Electron installs a default one (File/Edit/View/Window/Help with Reload, Toggle
 * DevTools and Help → electronjs.org) unless the app sets its own; `setApplicationMenu(null)` removes it,
 * and on Windows and Linux the window's menu bar with it. A development run keeps the default: Reload and
 * DevTools are what it is for.
 *
 * macOS always has a menu bar, and without Edit roles Cmd+C / Cmd+V stop working in text fields, so the
 * packaged macOS app gets a minimal menu: the app menu (About, Hide, Quit), Edit, View (zoom) and Window.
 * On Windows and Linux the packaged app's menu holds only View's zoom roles, for their accelerators
 * (Ctrl + = / + / - / 0 on a text-dense window); the window hides its menu bar (`hideMenuBar`).
 */
import type { MenuItemConstructorOptions } from 'electron';

/** `'default'`: leave Electron's menu; `null`: no menu; otherwise the template to build. */
export type ApplicationMenu = 'default' | null | MenuItemConstructorOptions[];

/** Zoom in, out and back: Electron's roles, plus Ctrl/Cmd + = (the unshifted key zoomIn's Plus sits on). */
export const ZOOM_ITEMS: MenuItemConstructorOptions[] = [
  { role: 'resetZoom' },
  { role: 'zoomIn' },
  { role: 'zoomIn', accelerator: 'CommandOrControl+=', visible: false },
  { role: 'zoomOut' },
];

/** Whether the window hides its menu bar: packaged on Windows and Linux (the menu is there for zoom keys). */
export function hideMenuBar(packaged: boolean, platform: NodeJS.Platform): boolean {
  return packaged && platform !== 'darwin';
}

export function applicationMenu(options: {
  packaged: boolean;
  platform: NodeJS.Platform;
  productName: string;
}): ApplicationMenu {
  if (!options.packaged) return 'default';
  if (options.platform !== 'darwin') return [{ label: 'View', submenu: ZOOM_ITEMS }];
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
    { label: 'View', submenu: ZOOM_ITEMS },
    { label: 'Window', submenu: [{ role: 'minimize' }, { role: 'close' }] },
  ];
}
