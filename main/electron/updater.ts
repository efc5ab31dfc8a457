/**
 * electron-updater wired into the app (docs/DESKTOP-CHECKLIST.md#updates): the plan read from this build
 * (`update-policy.ts`), the controller around electron-updater's `autoUpdater` (`update-controller.ts`), the
 * automatic check every few hours while it is on, and the restart into a downloaded update when the machine
 * is idle and no question is open. Development builds create no updater at all.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { app, powerMonitor } from 'electron';
import electronUpdater from 'electron-updater';
import { UpdateController, type Updater, type UpdateState } from './update-controller';
import { CHECK_EVERY_MS, updatePlan, type UpdateFeed } from './update-policy';

/** The feed electron-builder wrote into `resources/app-update.yml` (only its provider part); null without one. */
export function readUpdateFeed(resourcesPath: string | undefined): UpdateFeed | null {
  if (resourcesPath === undefined) return null;
  let text: string;
  try {
    text = readFileSync(join(resourcesPath, 'app-update.yml'), 'utf8');
  } catch {
    return null;
  }
  const field = (name: string): string | undefined =>
    new RegExp(`^${name}:\\s*['"]?([^'"\\n]+?)['"]?\\s*$`, 'm').exec(text)?.[1];
  const provider = field('provider');
  if (provider === undefined) return null;
  return { provider, owner: field('owner'), repo: field('repo'), url: field('url') };
}

function packageType(resourcesPath: string | undefined): string | null {
  if (resourcesPath === undefined) return null;
  try {
    return readFileSync(join(resourcesPath, 'package-type'), 'utf8').trim();
  } catch {
    return null;
  }
}

export interface AppUpdates {
  controller: UpdateController;
  /** Starts or stops the automatic check (the setting); the same value again changes nothing. */
  setAutomatic(on: boolean): void;
  /** The open questions changed: a restart the person asked for goes ahead once none is open. */
  attentionChanged(): void;
  dispose(): void;
}

/** The app's updates; `openQuestions` is read at each restart decision. */
export function startAppUpdates(deps: {
  macSigned: boolean;
  openQuestions: () => number;
  onChange: (state: UpdateState) => void;
  onAppImageMoved: (path: string) => void;
  log: (message: string) => void;
}): AppUpdates {
  // Undefined outside Electron (the shell's tests).
  const resources = process.resourcesPath as string | undefined;
  const feed = app.isPackaged ? readUpdateFeed(resources) : null;
  const plan = updatePlan({
    packaged: app.isPackaged,
    platform: process.platform,
    feed,
    packageType: app.isPackaged ? packageType(resources) : null,
    appImage: process.env.APPIMAGE ?? null,
    macSigned: deps.macSigned,
  });
  // Creating electron-updater's updater reads this build's files: only where it will be used.
  const updater = plan.kind === 'off' ? null : electronUpdater.autoUpdater;
  if (updater !== null) {
    updater.logger = { info: () => {}, warn: deps.log, error: deps.log };
    // The AppImage's file was renamed to the new version's: the autostart entry and link handler follow it.
    updater.on('appimage-filename-updated', (path: string) => deps.onAppImageMoved(path));
  }
  const controller = new UpdateController({
    updater: updater as Updater | null,
    plan,
    feed,
    currentVersion: app.getVersion(),
    now: () => Date.now(),
    onChange: deps.onChange,
  });
  let checkTimer: NodeJS.Timeout | null = null;
  const tryRestart = (): void => {
    controller.restart({
      openQuestions: deps.openQuestions(),
      idleSeconds: powerMonitor.getSystemIdleTime(),
    });
  };
  const restartTimer = setInterval(tryRestart, 60_000);
  restartTimer.unref();
  return {
    controller,
    setAutomatic(on) {
      if ((checkTimer !== null) === on) return;
      if (checkTimer !== null) clearInterval(checkTimer);
      checkTimer = null;
      if (!on || plan.kind === 'off') return;
      void controller.check();
      checkTimer = setInterval(() => void controller.check(), CHECK_EVERY_MS);
      checkTimer.unref();
    },
    attentionChanged() {
      if (controller.current().restartRequested) tryRestart();
    },
    dispose() {
      if (checkTimer !== null) clearInterval(checkTimer);
      clearInterval(restartTimer);
    },
  };
}
