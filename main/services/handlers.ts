/**
 * One plain `(deps, input)` function per contract channel (docs/ARCHITECTURE.md#conventions). Inputs are already
 * validated by the dispatcher; every refusal is a RunwardenError the dispatcher turns into data.
 */
import { cascadeText } from '../../shared/cascade-text';
import type { Channel } from '../../shared/channel-names';
import type { ParsedRequest, Response } from '../../shared/contract';
import { displayStatus, type RunAction } from '../../shared/display-status';
import { secretNames } from '../../shared/command-environment';
import type { Actor, CommandSpec } from '../../shared/domain';
import { assertNever, isRunwardenError, RunwardenError } from '../../shared/errors';
import { MAX_LOG_RECORDS } from '../../shared/contract';
import { listedItem, type FullRunListItem, type RunListItem } from '../../shared/views';
import type {
  BulkItemResult,
  BulkResult,
  RetryCommandPreview,
  Settings,
  UpdateStatus,
} from '../../shared/views';
import { version as VERSION } from '../../package.json';
import { readRunLogPage, runLogPath } from '../store/run-log-page';
import { API_CLIENT_CALLER, OUTSIDE_EVERY_RUN, type StoreReader, type StoreWriter } from '../store';
import { openRetryOf } from './open-retry';
import { stopRunCommand, type SignalCommand } from './stop-run-command';
import { applySettingsPatch, loadSettings } from './settings-service';
import type { CliPathActions, Clock, RequestOrigin, UpdateActions } from './host-types';
import type { RemoteHub } from './remote/remote-hub';

export interface HandlerDeps {
  store: StoreWriter;
  clock: Clock;
  actor: Actor;
  /** Called after settings change so timers and shells can follow. */
  onSettingsChanged: (settings: Settings) => void;
  /** Signals an orphan's command group (default: SIGTERM, grace, SIGKILL, verified gone). */
  stopCommand?: SignalCommand;
  /** Told when a stop started by `runs:stopCommand` could not be recorded (the store closed, the disk filled). */
  onBackgroundError?: (error: unknown) => void;
  /** The desktop's "open with the default app" (Electron's shell.openPath); absent in browser mode. */
  openPath?: (path: string) => void;
  /** Puts `runwarden` on the PATH (main/platform/cli-on-path.ts); only the desktop app has it. */
  cliPath?: CliPathActions;
  /** The other machines (docs/REMOTES.md#in-the-window); only an app host has them. */
  remotes?: Pick<RemoteHub, 'list' | 'add' | 'remove'>;
  /** The desktop app's updates (main/electron/update-controller.ts); absent in browser mode. */
  updates?: UpdateActions;
  /** Who sent this request, where the transport can tell (set per request by the dispatcher). */
  origin?: RequestOrigin;
}

const UPDATES_DESKTOP_ONLY =
  "Updates are checked and installed from the desktop app's Settings, not from a browser.";

/** What browser mode says: `runwarden serve` is updated with the copy of Runwarden that runs it. */
export function browserUpdateStatus(version: string = VERSION): UpdateStatus {
  return {
    phase: 'off',
    currentVersion: version,
    plan: {
      kind: 'off',
      reason:
        'Updates are not available in a browser: this page is served by runwarden serve, which is updated with the Runwarden that runs it (the desktop app, or the package it came from).',
    },
    latestVersion: null,
    releaseNotes: null,
    downloadUrl: null,
    message: null,
    checkedAt: null,
    restartRequested: false,
  };
}

function updates(deps: HandlerDeps): UpdateActions {
  if (deps.updates === undefined) throw new RunwardenError('FORBIDDEN', UPDATES_DESKTOP_ONLY);
  return deps.updates;
}

const REMOTES_HOST_ONLY = "Other machines are reached through this machine's app or serve, not from here.";

function remotes(deps: HandlerDeps): Pick<RemoteHub, 'list' | 'add' | 'remove'> {
  if (deps.remotes === undefined) throw new RunwardenError('FORBIDDEN', REMOTES_HOST_ONLY);
  return deps.remotes;
}

const CLI_PATH_DESKTOP_ONLY =
  "The runwarden command is put on the PATH from the desktop app's Settings, not from a browser.";

function cliPath(deps: HandlerDeps): CliPathActions {
  if (deps.cliPath === undefined) throw new RunwardenError('FORBIDDEN', CLI_PATH_DESKTOP_ONLY);
  return deps.cliPath;
}

type Handlers = { [C in Channel]: (deps: HandlerDeps, input: ParsedRequest<C>) => Response<C> };

const DEFAULT_PAGE = 100;

/**
 * A request naming another machine reaches these handlers only where no machines are attached (a remote's own
 * `serve --stdio`, a host without remotes): refused, never read as one of this machine's.
 */
function notAnotherMachine(machine: string | undefined): Record<string, never> {
  if (machine !== undefined && machine !== 'this')
    throw new RunwardenError('NOT_FOUND', `No remote machine named "${machine}" is attached here.`);
  return {};
}

/** A page or summary of the store's whole runs as the wire carries them: each row a RunListItem. */
function listedPage<T extends { items: FullRunListItem[] }>(
  page: T,
): Omit<T, 'items'> & { items: RunListItem[] } {
  return { ...page, items: page.items.map(listedItem) };
}

export const handlers: Handlers = {
  'projects:list': ({ store }) => store.listProjects(),
  // Each row as the list shows it (RunListItem): the open run's detail reads the whole run by id.
  'runs:list': ({ store }, input) =>
    listedPage(
      store.listRuns({
        ...notAnotherMachine(input.machine),
        ...(input.projectPath !== undefined && { projectPath: input.projectPath }),
        view: input.view ?? 'all',
        ...(input.search !== undefined && { search: input.search }),
        limit: input.limit ?? DEFAULT_PAGE,
        cursor: input.cursor ?? null,
      }),
    ),
  'runs:detail': ({ store }, input) =>
    store.getRunDetail(input.runId, {
      eventsLimit: input.eventsLimit ?? 200,
      ...(input.eventsBefore !== undefined && { eventsBefore: input.eventsBefore }),
    }),
  'runs:log': ({ store, openPath }, input) =>
    readRunLogPage(
      store,
      {
        runId: input.runId,
        limit: MAX_LOG_RECORDS,
        ...(input.generation !== undefined && { generation: input.generation }),
        ...(input.tail !== undefined && { tail: input.tail }),
        ...(input.afterSeq !== undefined && { afterSeq: input.afterSeq }),
        ...(input.stream !== undefined && { stream: input.stream }),
      },
      openPath !== undefined,
    ),
  'runs:openLog': ({ store, openPath }, input) => {
    const path = runLogPath(store, input.runId, input.generation);
    if (path === null) throw new RunwardenError('NOT_FOUND', `Run ${input.runId} has no log file to open.`);
    if (openPath === undefined) {
      throw new RunwardenError('FORBIDDEN', 'Opening a log file is only possible in the desktop app.');
    }
    openPath(path);
    return { opened: true };
  },
  'runs:previewCancel': ({ store }, input) => store.previewCancel(input.runId),
  'runs:cancel': ({ store, actor }, input) =>
    store.cancelRun(input.runId, { expectedRevision: input.expectedRevision, reason: input.reason, actor }),
  'runs:requestCancel': ({ store, actor }, input) =>
    store.requestCancel(input.runId, {
      expectedRevision: input.expectedRevision,
      reason: input.reason,
      actor,
    }),
  'runs:requestPause': ({ store, actor }, input) =>
    store.requestPause(input.runId, {
      expectedRevision: input.expectedRevision,
      reason: input.reason,
      actor,
    }),
  'runs:pause': ({ store, actor }, input) =>
    store.pauseRun(input.runId, { expectedRevision: input.expectedRevision, reason: input.reason, actor }),
  'runs:resume': ({ store, actor }, input) =>
    store.resumeRun(input.runId, {
      expectedRevision: input.expectedRevision,
      anyway: input.anyway ?? false,
      ...(input.reason !== undefined && { reason: input.reason }),
      actor,
    }),
  'runs:retry': ({ store, actor }, input) =>
    store.retryRun(input.runId, { expectedRevision: input.expectedRevision, again: input.again, actor }),
  'runs:bulk': (deps, input) => runBulk(deps, input),
  'runs:stopCommand': (deps, input) => startStopCommand(deps, input),
  'effects:resolve': ({ store, actor }, input) =>
    store.resolveEffect(notAnotherMachine(input.machine) && input.effectId, {
      resolution: input.resolution,
      note: input.note,
      expectedRevision: input.expectedRevision,
      actor,
    }),
  'interactions:answer': ({ store, actor, origin }, input) =>
    store.answerInteraction(input.interactionId, {
      interactionRevision: input.interactionRevision,
      idempotencyKey: input.idempotencyKey,
      payload: input.payload,
      actor,
      // The host answers for a person and runs outside every run; a serve API client is a program that
      // may run anywhere: its answer is recorded unchecked (docs/LIVENESS.md#what-cannot-be-told).
      caller: origin?.apiClient === true ? API_CLIENT_CALLER : OUTSIDE_EVERY_RUN,
    }),
  'attention:summary': ({ store }, input) =>
    listedPage(
      store.attentionSummary(input.limit ?? 20, { search: input.search, projectPath: input.projectPath }),
    ),
  'notifications:list': ({ store }, input) =>
    store.listNotifications({
      unreadOnly: input.unreadOnly ?? false,
      limit: input.limit ?? 100,
      ...(input.before !== undefined && { before: input.before }),
    }),
  'notifications:markRead': ({ store }, input) => ({
    count:
      'runId' in input ? store.markRunNotificationsRead(input.runId) : store.markNotificationsRead(input.ids),
  }),
  'settings:get': ({ store }) => loadSettings(store),
  'settings:set': (deps, input) => {
    const next = applySettingsPatch(deps.store, input.patch, deps.actor);
    deps.onSettingsChanged(next);
    return next;
  },
  'store:info': ({ store }) => store.info(),
  'store:doctor': ({ store }) => store.doctor(),
  'cli:status': (deps) => cliPath(deps).status(),
  'cli:install': (deps) => cliPath(deps).install(),
  'cli:uninstall': (deps) => cliPath(deps).uninstall(),
  'updates:status': (deps) => deps.updates?.status() ?? browserUpdateStatus(),
  'updates:check': (deps) => updates(deps).check(),
  'updates:restart': (deps) => updates(deps).restart(),
  'remotes:list': (deps) => remotes(deps).list(),
  'remotes:add': (deps, input) => remotes(deps).add(input, deps.actor),
  'remotes:remove': (deps, input) => remotes(deps).remove(input.name, deps.actor),
  // Asynchronous: the app host answers it before the dispatcher (main/services/app-host.ts).
  'remotes:call': () => {
    throw new RunwardenError('FORBIDDEN', REMOTES_HOST_ONLY);
  },
};

/** Channels that write: refused up front when the store is read-only. */
export const WRITE_CHANNELS: ReadonlySet<Channel> = new Set<Channel>([
  'runs:cancel',
  'runs:requestCancel',
  'runs:requestPause',
  'runs:pause',
  'runs:resume',
  'runs:retry',
  'runs:stopCommand',
  'runs:bulk',
  'effects:resolve',
  'interactions:answer',
  'notifications:markRead',
  'settings:set',
  'remotes:add',
  'remotes:remove',
]);

/** *Stop the command* in the background: the answer returns as soon as SIGTERM is on its way. */
function startStopCommand(deps: HandlerDeps, input: ParsedRequest<'runs:stopCommand'>) {
  const stopping = stopRunCommand(deps.store, input.runId, {
    expectedRevision: input.expectedRevision,
    reason: input.reason,
    actor: deps.actor,
    signal: deps.stopCommand,
  });
  void stopping.finished.catch((error: unknown) => deps.onBackgroundError?.(error));
  return {
    runId: input.runId,
    commandPgid: stopping.command.pgid,
    commandPid: stopping.command.pid,
    graceMs: stopping.graceMs,
  };
}

const BULK_NEEDS: Record<BulkResult['action'], RunAction[]> = {
  cancel: ['cancel'],
  resume: ['resume'],
  retry: ['retry'],
};

/** What a bulk action would do to one run, written nowhere: the same refusals the real run would give. */
function dryRunItem(
  { store, clock }: HandlerDeps,
  input: ParsedRequest<'runs:bulk'>,
  item: { runId: string; expectedRevision: number },
): BulkItemResult {
  const snapshot = store.getSnapshot(item.runId);
  const display = displayStatus(snapshot, clock(), undefined, store.judgeOwner(snapshot.lease));
  if (snapshot.run.revision !== item.expectedRevision) {
    return { runId: item.runId, ok: false, code: 'STALE_VIEW', message: 'Changed since you looked.' };
  }
  if (!BULK_NEEDS[input.action].some((a) => display.actions.includes(a))) {
    return {
      runId: item.runId,
      ok: false,
      code: display.liveOwner ? 'LIVE_OWNER' : 'CONFLICT',
      // A live runner's run is refused for that reason, not for what it shows (docs/WINDOW.md#commands-and-retry).
      message: display.liveOwner
        ? `A live runner holds it (${display.reason.replace(/\.$/, '')})${input.action === 'cancel' ? ': request a cancel instead, and the runner stops at its next check.' : '.'}`
        : `Cannot ${input.action}: ${display.reason}`,
    };
  }
  const open = input.action === 'retry' && input.again !== true ? openRetryOf(store, item.runId) : null;
  if (open !== null) {
    return {
      runId: item.runId,
      ok: false,
      code: 'CONFLICT',
      message: `Already retried as ${open.id}, which is ${open.status}; another retry would run the same work twice at once.`,
    };
  }
  const command = snapshot.run.command;
  return {
    runId: item.runId,
    ok: true,
    message: describeDryRun(store, input.action, item.runId),
    ...(input.action === 'retry' && command !== null ? { command: retryPreview(command) } : {}),
    ...(input.action === 'retry'
      ? {
          skips: store
            .appliedInFamily(item.runId)
            .map(({ key, summary, runId }) => ({ key, summary, runId })),
        }
      : {}),
  };
}

/** Bulk cancel / resume / retry: each item in its own transaction, a per-item result, dry run writes nothing. */
function runBulk(deps: HandlerDeps, input: ParsedRequest<'runs:bulk'>): BulkResult {
  const { store, actor } = deps;
  const items: BulkItemResult[] = [];
  for (const item of input.items) {
    try {
      if (input.dryRun) {
        items.push(dryRunItem(deps, input, item));
        continue;
      }
      switch (input.action) {
        case 'cancel': {
          const outcome = store.cancelRun(item.runId, {
            expectedRevision: item.expectedRevision,
            reason: input.reason,
            actor,
          });
          items.push({
            runId: item.runId,
            ok: true,
            message: `Cancelled (${cascadeText(outcome.cascade)}).`,
          });
          break;
        }
        case 'resume':
          store.resumeRun(item.runId, {
            expectedRevision: item.expectedRevision,
            anyway: false,
            reason: input.reason,
            actor,
          });
          items.push({ runId: item.runId, ok: true, message: 'Resumed: queued again.' });
          break;
        case 'retry': {
          const run = store.retryRun(item.runId, {
            expectedRevision: item.expectedRevision,
            again: input.again,
            actor,
          });
          items.push({ runId: item.runId, ok: true, message: `Retried as ${run.id}.`, newRunId: run.id });
          break;
        }
        default:
          assertNever(input.action, 'bulk action');
      }
    } catch (error) {
      if (!isRunwardenError(error)) throw error;
      items.push({ runId: item.runId, ok: false, code: error.code, message: error.message });
    }
  }
  const succeeded = items.filter((i) => i.ok).length;
  return { action: input.action, dryRun: input.dryRun, succeeded, failed: items.length - succeeded, items };
}

/** What a retry of this command would run (docs/CLI.md#what-exec-records). */
function retryPreview(command: CommandSpec): RetryCommandPreview {
  return {
    argv: command.argv,
    cwd: command.cwd,
    environmentRecorded: command.env !== undefined,
    fromWorker: secretNames(command.env),
  };
}

function describeDryRun(store: StoreReader, action: BulkResult['action'], runId: string): string {
  switch (action) {
    case 'cancel':
      return `Would cancel (${cascadeText(store.previewCancel(runId).cascade, 'would')}).`;
    case 'resume':
      return 'Would queue it again.';
    case 'retry':
      return 'Would start a new run with the same input.';
    default:
      return assertNever(action, 'bulk action');
  }
}
