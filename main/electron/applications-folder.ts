/**
 * macOS: an app started from its disk image or from Downloads runs from /Volumes or from a temporary App
 * Translocation copy, and whatever names its path (the `runwarden` link, agent hooks, the login item) breaks
 * once it quits. At start, an installed app outside Applications offers to move itself there with Electron's
 * `app.moveToApplicationsFolder()`, which quits and relaunches the app from Applications when it succeeds
 * (docs/DESKTOP-CHECKLIST.md#a-stable-home). Electron is injected: tested with fakes.
 */
import type { App, MessageBoxSyncOptions } from 'electron';

export type ApplicationsFolderOutcome = 'not-offered' | 'in-applications' | 'moved' | 'declined' | 'failed';

export function offerApplicationsFolder(deps: {
  packaged: boolean;
  platform: NodeJS.Platform;
  app: Pick<App, 'isInApplicationsFolder' | 'moveToApplicationsFolder'>;
  execPath: string;
  /** The index of the button the person chose (dialog.showMessageBoxSync). */
  ask: (options: MessageBoxSyncOptions) => number;
  log: (message: string) => void;
}): ApplicationsFolderOutcome {
  if (!deps.packaged || deps.platform !== 'darwin') return 'not-offered';
  if (deps.app.isInApplicationsFolder()) return 'in-applications';
  const where = deps.execPath.includes('/AppTranslocation/')
    ? 'a temporary copy macOS made of the downloaded app'
    : deps.execPath.startsWith('/Volumes/')
      ? 'its disk image'
      : 'outside the Applications folder';
  const choice = deps.ask({
    type: 'question',
    message: 'Move Runwarden to the Applications folder?',
    detail: `Runwarden is running from ${where}. The runwarden command and agent hooks name the app's place, so they need it in Applications to keep working after this copy is gone.`,
    buttons: ['Move to Applications', 'Not Now'],
    defaultId: 0,
    cancelId: 1,
  });
  if (choice !== 0) return 'declined';
  try {
    // On success Electron quits this copy and starts the moved one; false: the person cancelled a prompt.
    return deps.app.moveToApplicationsFolder() ? 'moved' : 'declined';
  } catch (error) {
    deps.log(
      `runwarden: could not move to Applications: ${error instanceof Error ? error.message : String(error)}`,
    );
    return 'failed';
  }
}
