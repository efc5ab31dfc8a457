/**
 * The seam between the host services and whatever shell runs them (Electron main, or `runwarden serve`).
 * Shells implement Notifier and receive pushes; they never touch the store directly.
 */
import type { MigrationReport } from '../store/migrations/migration';
import type { Channel, PushEvent } from '../../shared/channel-names';
import type { Pushes, Response } from '../../shared/contract';
import type { Interaction, NotificationLevel, Surface } from '../../shared/domain';
import type { Result } from '../../shared/errors';
import type { AttentionSummary, CliPathStatus, Settings, UpdateStatus } from '../../shared/views';

export type Clock = () => number;

/** Settings' Updates section (docs/DESKTOP-CHECKLIST.md#updates), as the desktop app answers it. */
export interface UpdateActions {
  status: () => UpdateStatus;
  /** Starts a check, or joins the one running; answers at once. */
  check: () => UpdateStatus;
  /** Restarts into a downloaded update now, or once no question is open. */
  restart: () => UpdateStatus;
}

/** Putting `runwarden` on the PATH from Settings (main/platform/cli-on-path.ts). */
export interface CliPathActions {
  status: () => CliPathStatus;
  install: () => CliPathStatus;
  uninstall: () => CliPathStatus;
}

/** A desktop notification the shell should show. Text is plain: never HTML. */
export interface DesktopNotice {
  title: string;
  body: string;
  level: NotificationLevel;
  /** The run a click opens, if any. */
  runId: string | null;
  /** The question this notice is about (a new question): the shell shows one notification per question. */
  interactionId?: string;
  /** A summary of several notices (coalesced, or a catch-up): the questions among them. */
  questionIds?: string[];
  /** The effects of unknown outcome it announces: its history entry is resolved once all are resolved. */
  effectIds?: number[];
  /** Already in the notification history (a runner's own `notify`): shown, not recorded again. */
  recorded?: boolean;
}

export interface Notifier {
  show(notice: DesktopNotice): void;
}

export type PushSink = <E extends PushEvent>(event: E, payload: Pushes[E]) => void;

/**
 * What a shell's tray shows, from the same attention summary as the window's `attention` push (one per
 * change): the summary with its first runs, and the open questions of those runs.
 */
export interface ShellAttention {
  summary: AttentionSummary;
  questions: Interaction[];
  /** Of the questions the shell `watches` (its desktop notifications), those no longer open. */
  closed: string[];
}

export interface AppHostOptions {
  /** Told once when opening the store migrated it (docs/ARCHITECTURE.md#upgrades): the shell says so. */
  onMigrated?: (report: MigrationReport) => void;
  storePath: string;
  /** Where the command came from: 'app' for the window, 'browser' for serve. */
  surface: Surface;
  /** Who the person is (OS user name); recorded as the actor id. */
  actorId: string;
  clock?: Clock;
  notifier: Notifier;
  push: PushSink;
  onSettingsChanged?: (settings: Settings) => void;
  /** A shell with a tray: gets the attention read with this many runs and their open questions. */
  attention?: {
    items: number;
    onAttention: (attention: ShellAttention) => void;
    /** The questions the shell shows notifications of: the read says which of them closed. */
    watching?: () => readonly string[];
  };
  /** Opens a file with the desktop's default app (a run's log); only the Electron shell has one. */
  openPath?: (path: string) => void;
  /** Puts `runwarden` on the PATH from Settings; only the Electron shell has it (docs/DESKTOP-CHECKLIST.md#the-runwarden-command). */
  cliPath?: CliPathActions;
  /** Settings' Updates section; only the Electron shell has it (docs/DESKTOP-CHECKLIST.md#updates). */
  updates?: UpdateActions;
  /** Attach the machines in the store's `remotes` setting (docs/REMOTES.md#in-the-window); default true. */
  remotes?: boolean;
  /**
   * Wake the change feed on the store's files changing instead of its timer (docs/ARCHITECTURE.md#change-feed):
   * `serve --stdio`, whose host is idle but for another machine's window.
   */
  feedWatch?: boolean;
}

export interface AppHost {
  /** Validate, run the handler, and wrap the result: the one path every channel takes. */
  dispatch<C extends Channel>(
    channel: C,
    input: unknown,
    origin?: RequestOrigin,
  ): Promise<Result<Response<C>>>;
  /** Starts the sweeper timer (docs/ARCHITECTURE.md#sweeper). */
  start(): void;
  /** Stops timers and closes the store. */
  dispose(): void;
  /** The shell's own requests, typed: a clicked desktop notification's run read, the tray's pause. */
  markRunRead(runId: string): Promise<Result<Response<'notifications:markRead'>>>;
  setNotificationsPaused(paused: boolean): Promise<Result<Settings>>;
  readonly settings: Settings;
}

/** Who sent a request, as far as its transport can tell. */
export interface RequestOrigin {
  /** A `runwarden serve` API client with the Bearer token (a program), not a signed-in browser. */
  apiClient?: boolean;
}
