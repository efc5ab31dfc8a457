/**
 * Who this process is to the OS. The installed app and a development run (`npm start`) must not share a
 * single-instance lock: Electron keys the lock on the userData folder, so with one folder a running installed
 * app would swallow every `npm start` (it only gets a `second-instance` event) and the other way round.
 * The store is not in userData (store-path.ts), so both still open the same default store.
 *
 * On Windows the AppUserModelID must equal the installer's appId (electron-builder's NSIS installer puts that
 * id on the Start-menu shortcut): notifications are attributed to, and only shown for, an app whose id
 * matches a shortcut, and the taskbar groups windows by it.
 */
import { join } from 'node:path';

/** electron-builder.yml's appId (a test keeps the two equal). */
export const APP_ID = 'dev.runwarden.app';
export const PRODUCT_NAME = 'Runwarden';
export const DEV_PRODUCT_NAME = 'Runwarden Dev';

export interface AppIdentity {
  name: string;
  /** The userData folder (and so the single-instance lock). */
  userData: string;
  /** Windows only: the AppUserModelID to set; null elsewhere. */
  appUserModelId: string | null;
}

export function appIdentity(options: {
  packaged: boolean;
  platform: NodeJS.Platform;
  /** Electron's `app.getPath('appData')`. */
  appData: string;
}): AppIdentity {
  const name = options.packaged ? PRODUCT_NAME : DEV_PRODUCT_NAME;
  return {
    name,
    userData: join(options.appData, name),
    appUserModelId: options.platform === 'win32' ? (options.packaged ? APP_ID : `${APP_ID}.dev`) : null,
  };
}

/** The part of Electron's `app` the identity is applied through. */
export interface IdentityApp {
  setName(name: string): void;
  setPath(name: 'userData', path: string): void;
  getPath(name: 'appData'): string;
  setAppUserModelId(id: string): void;
  readonly isPackaged: boolean;
}

/** Applies the identity; must run before `requestSingleInstanceLock()` and before `ready`. */
export function applyAppIdentity(app: IdentityApp, platform: NodeJS.Platform): AppIdentity {
  const identity = appIdentity({ packaged: app.isPackaged, platform, appData: app.getPath('appData') });
  app.setName(identity.name);
  app.setPath('userData', identity.userData);
  if (identity.appUserModelId !== null) app.setAppUserModelId(identity.appUserModelId);
  return identity;
}
