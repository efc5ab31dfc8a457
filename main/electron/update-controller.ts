/**
 * The update state Settings shows, and the steps behind "Check now", the automatic check and the restart
 * (docs/DESKTOP-CHECKLIST.md#updates). electron-updater's updater is injected: in the app its `autoUpdater`,
 * in tests the same class pointed at a feed the test serves. The updater itself refuses an older release and
 * a download whose SHA-512 differs from the feed's; this controller also refuses a version that is not newer
 * (whatever the updater says) and reports every failure as one sentence, installing nothing.
 */
import { RunwardenError } from '../../shared/errors';
import type { UpdatePhase, UpdatePlan, UpdateStatus } from '../../shared/views';
import type { UpdateActions } from '../services/host-types';
import {
  compareVersions,
  plainReleaseNotes,
  releasePage,
  restartVerdict,
  type RestartVerdict,
  type UpdateFeed,
} from './update-policy';

/** The part of electron-updater's `AppUpdater` used here. */
export interface Updater {
  autoDownload: boolean;
  autoInstallOnAppQuit: boolean;
  allowDowngrade: boolean;
  checkForUpdates(): Promise<{
    isUpdateAvailable: boolean;
    updateInfo: { version: string; releaseNotes?: unknown; releaseDate?: string };
  } | null>;
  downloadUpdate(): Promise<unknown>;
  quitAndInstall(isSilent?: boolean, isForceRunAfter?: boolean): void;
}

export type { UpdatePhase };

/** What Settings shows (shared/views.ts `UpdateStatus`). */
export type UpdateState = UpdateStatus;

export interface UpdateControllerOptions {
  updater: Updater | null;
  plan: UpdatePlan;
  feed: UpdateFeed | null;
  currentVersion: string;
  now: () => number;
  /** Called after every change (Settings is pushed the new state). */
  onChange?: (state: UpdateState) => void;
}

function failure(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  if (/sha512 checksum mismatch|checksum/i.test(text)) {
    return 'The download did not match the release’s checksum; nothing was installed.';
  }
  const firstLine = text.split('\n')[0] ?? '';
  return `The update check failed: ${firstLine.slice(0, 300)}`;
}

export class UpdateController {
  private state: UpdateState;
  private running: Promise<UpdateState> | null = null;

  constructor(private readonly options: UpdateControllerOptions) {
    if (options.updater !== null) {
      // Downloads only after this controller accepted the version; installed by the restart below, or on quit.
      options.updater.autoDownload = false;
      options.updater.autoInstallOnAppQuit = options.plan.kind === 'install';
      options.updater.allowDowngrade = false;
    }
    this.state = {
      phase: options.plan.kind === 'off' || options.updater === null ? 'off' : 'idle',
      currentVersion: options.currentVersion,
      plan: options.plan,
      latestVersion: null,
      releaseNotes: null,
      downloadUrl: null,
      message: options.plan.reason,
      checkedAt: null,
      restartRequested: false,
    };
  }

  current(): UpdateState {
    return { ...this.state };
  }

  private set(patch: Partial<UpdateState>): UpdateState {
    const next = { ...this.state, ...patch };
    const same = (Object.keys(next) as Array<keyof UpdateState>).every(
      (key) => next[key] === this.state[key],
    );
    if (same) return this.current();
    this.state = next;
    this.options.onChange?.(this.current());
    return this.current();
  }

  /** "Check now" and the automatic check: one at a time; a second call joins the first. */
  check(): Promise<UpdateState> {
    this.running ??= this.runCheck().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async runCheck(): Promise<UpdateState> {
    const updater = this.options.updater;
    if (updater === null || this.state.phase === 'off') return this.current();
    if (this.state.phase === 'ready') return this.current();
    this.set({ phase: 'checking', message: null });
    let result: Awaited<ReturnType<Updater['checkForUpdates']>>;
    try {
      result = await updater.checkForUpdates();
    } catch (error) {
      return this.set({ phase: 'failed', message: failure(error), checkedAt: this.options.now() });
    }
    const checkedAt = this.options.now();
    const version = result?.updateInfo.version ?? '';
    const order = compareVersions(version, this.options.currentVersion);
    if (result === null || !result.isUpdateAvailable || order === null || order <= 0) {
      const malformed = result !== null && order === null;
      return this.set({
        phase: malformed ? 'failed' : 'up-to-date',
        message: malformed ? `The release feed names no valid version (${version.slice(0, 40)}).` : null,
        checkedAt,
      });
    }
    const found = {
      latestVersion: version,
      releaseNotes: plainReleaseNotes(result.updateInfo.releaseNotes) || null,
      downloadUrl: releasePage(this.options.feed, version),
      checkedAt,
    };
    if (this.options.plan.kind !== 'install') {
      return this.set({ ...found, phase: 'available', message: this.options.plan.reason });
    }
    this.set({ ...found, phase: 'downloading' });
    try {
      await updater.downloadUpdate();
    } catch (error) {
      return this.set({ phase: 'failed', message: failure(error) });
    }
    return this.set({
      phase: 'ready',
      message: 'Restarts to update when no question is open and you are away.',
    });
  }

  /**
   * Restarts into the downloaded update when `restartVerdict` allows it: `idleSeconds` is the machine's idle
   * time (the timer's check), ignored once the person pressed "Restart to update". Returns the verdict; never
   * restarts while a question is open.
   */
  restart(input: { openQuestions: number; idleSeconds: number | null }): RestartVerdict {
    const verdict = restartVerdict({
      downloaded: this.state.phase === 'ready',
      openQuestions: input.openQuestions,
      idleSeconds: this.state.restartRequested ? null : input.idleSeconds,
    });
    if (verdict.restart && this.options.updater !== null) {
      this.options.updater.quitAndInstall(true, true);
    } else if (!verdict.restart && this.state.phase === 'ready') {
      this.set({ message: this.state.restartRequested ? REQUESTED_WAITS : verdict.reason });
    }
    return verdict;
  }

  /**
   * "Restart to update": restarts now when no question is open; otherwise remembers the request, and the
   * next `restart` call with no question open restarts whatever the idle time.
   */
  requestRestart(openQuestions: number): UpdateState {
    if (this.state.phase !== 'ready') {
      throw new RunwardenError('CONFLICT', 'No update is downloaded yet: check for updates first.');
    }
    this.set({ restartRequested: true });
    this.restart({ openQuestions, idleSeconds: null });
    return this.current();
  }
}

const REQUESTED_WAITS = 'A question is open: Runwarden restarts to update once it is answered.';

/** The Updates section's channels over a controller; `openQuestions` is read at each restart decision. */
export function updateActions(controller: UpdateController, openQuestions: () => number): UpdateActions {
  return {
    status: () => controller.current(),
    check: () => {
      // The check runs on; the section reads its progress from `updates:status`.
      void controller.check();
      return controller.current();
    },
    restart: () => controller.requestRestart(openQuestions()),
  };
}
