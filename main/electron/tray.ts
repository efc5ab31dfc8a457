/**
 * The tray (SPEC §7): the icon shows the worst state (needs-answer > stale > failed > running > idle), the
 * tooltip the count of runs that need you, and the menu lists them (click opens the run), the notification
 * pause switch, Open and Quit. `trayModel` is pure; `createRunwardenTray` only renders it with Electron.
 */
import { Menu, Tray, nativeImage, type MenuItemConstructorOptions, type NativeImage } from 'electron';
import { worstTrayState, type TrayState } from '../../shared/display-status';
import type { AttentionSummary } from '../../shared/views';
import type { Disposer } from './disposables';
import { TRAY_ICON_PNGS } from './tray-icons';

/** At most this many runs in the menu; the rest are one "and N more" line that opens the window. */
export const TRAY_MENU_RUNS = 8;
const MAX_LABEL = 60;

const STATE_WORDS: Record<TrayState, string> = {
  'needs-answer': 'waiting for an answer',
  stale: 'a runner stopped responding',
  failed: 'a run failed',
  running: 'runs in progress',
  idle: 'nothing running',
};

/**
 * Run titles are untrusted text (SPEC §8). Native menus treat `&` as a mnemonic marker, so it is doubled;
 * control characters and line breaks are flattened; long titles are cut.
 */
export function menuLabelText(text: string): string {
  // oxlint-disable-next-line no-control-regex -- stripping control characters is the point
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  const cut = flat.length > MAX_LABEL ? `${flat.slice(0, MAX_LABEL - 1)}…` : flat;
  return cut.replace(/&/g, '&&');
}

export type TrayMenuEntry =
  | { kind: 'run'; label: string; runId: string }
  | { kind: 'more'; label: string }
  | { kind: 'heading'; label: string }
  | { kind: 'separator' }
  | { kind: 'toggle-notifications'; label: string; paused: boolean }
  | { kind: 'open'; label: string }
  | { kind: 'quit'; label: string };

export interface TrayModel {
  state: TrayState;
  tooltip: string;
  /** Short text next to the icon where the platform shows one (macOS). */
  title: string;
  entries: TrayMenuEntry[];
}

/** What the tray shows for an attention summary (null before the first one arrives). */
export function trayModel(summary: AttentionSummary | null, notificationsPaused: boolean): TrayModel {
  const state = summary === null ? 'idle' : worstTrayState(summary.counts);
  const needsYou = summary?.needsYou ?? 0;
  const tooltip =
    summary === null
      ? 'Runwarden: starting…'
      : needsYou > 0
        ? `Runwarden: ${needsYou} ${needsYou === 1 ? 'run needs' : 'runs need'} you (${STATE_WORDS[state]})`
        : `Runwarden: nothing needs you (${STATE_WORDS[state]})`;

  const entries: TrayMenuEntry[] = [];
  if (needsYou > 0 && summary !== null) {
    entries.push({
      kind: 'heading',
      label: needsYou === 1 ? '1 run needs you' : `${needsYou} runs need you`,
    });
    const shown = summary.items.slice(0, TRAY_MENU_RUNS);
    for (const item of shown) {
      entries.push({
        kind: 'run',
        runId: item.run.id,
        label: menuLabelText(
          `${item.display.status.replace(/[-_]/g, ' ')}: ${item.run.title || item.run.workflow}`,
        ),
      });
    }
    const rest = needsYou - shown.length;
    if (rest > 0) entries.push({ kind: 'more', label: `and ${rest} more…` });
    entries.push({ kind: 'separator' });
  } else if (summary !== null) {
    entries.push({ kind: 'heading', label: 'Nothing needs you' }, { kind: 'separator' });
  }
  entries.push(
    {
      kind: 'toggle-notifications',
      paused: notificationsPaused,
      label: notificationsPaused ? 'Resume notifications' : 'Pause notifications',
    },
    { kind: 'separator' },
    { kind: 'open', label: 'Open Runwarden' },
    { kind: 'quit', label: 'Quit Runwarden' },
  );
  return { state, tooltip, title: needsYou > 0 ? String(needsYou) : '', entries };
}

export interface TrayActions {
  openRun(runId: string): void;
  openWindow(): void;
  setNotificationsPaused(paused: boolean): void;
  quit(): void;
}

/** Turns the model's entries into Electron menu items wired to the actions. */
export function trayMenuTemplate(
  entries: TrayMenuEntry[],
  actions: TrayActions,
): MenuItemConstructorOptions[] {
  return entries.map((entry): MenuItemConstructorOptions => {
    switch (entry.kind) {
      case 'run':
        return { label: entry.label, click: () => actions.openRun(entry.runId) };
      case 'more':
        return { label: entry.label, click: () => actions.openWindow() };
      case 'heading':
        return { label: entry.label, enabled: false };
      case 'separator':
        return { type: 'separator' };
      case 'toggle-notifications':
        return { label: entry.label, click: () => actions.setNotificationsPaused(!entry.paused) };
      case 'open':
        return { label: entry.label, click: () => actions.openWindow() };
      case 'quit':
        return { label: entry.label, click: () => actions.quit() };
    }
  });
}

/** The tray icon of a state, with its 2x representation for high-DPI screens. */
export function trayIcon(state: TrayState): NativeImage {
  const pngs = TRAY_ICON_PNGS[state];
  const image = nativeImage.createFromBuffer(Buffer.from(pngs.x1, 'base64'), { scaleFactor: 1 });
  image.addRepresentation({ scaleFactor: 2, buffer: Buffer.from(pngs.x2, 'base64') });
  return image;
}

export interface RunwardenTray {
  update(summary: AttentionSummary | null, notificationsPaused: boolean): void;
  dispose: Disposer;
}

export function createRunwardenTray(
  actions: TrayActions,
  platform: NodeJS.Platform = process.platform,
): RunwardenTray {
  const icons = new Map<TrayState, NativeImage>();
  const iconFor = (state: TrayState): NativeImage => {
    let icon = icons.get(state);
    if (icon === undefined) {
      icon = trayIcon(state);
      icons.set(state, icon);
    }
    return icon;
  };
  const tray = new Tray(iconFor('idle'));
  let shownState: TrayState = 'idle';
  const onClick = (): void => actions.openWindow();
  // Windows and Linux open the window on a click; macOS shows the menu on click instead.
  if (platform !== 'darwin') tray.on('click', onClick);

  const update = (summary: AttentionSummary | null, notificationsPaused: boolean): void => {
    if (tray.isDestroyed()) return;
    const model = trayModel(summary, notificationsPaused);
    if (model.state !== shownState) {
      tray.setImage(iconFor(model.state));
      shownState = model.state;
    }
    tray.setToolTip(model.tooltip);
    if (platform === 'darwin') tray.setTitle(model.title);
    tray.setContextMenu(Menu.buildFromTemplate(trayMenuTemplate(model.entries, actions)));
  };
  update(null, false);

  return {
    update,
    dispose: () => {
      tray.off('click', onClick);
      if (!tray.isDestroyed()) tray.destroy();
    },
  };
}
