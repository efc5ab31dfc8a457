/**
 * Notification rules (docs/ARCHITECTURE.md#change-feed): which new events become desktop notices, per project and per event kind,
 * coalesced so a burst never becomes a wall of toasts. Pure: events and settings in, notices out.
 */
import type { RunEvent } from '../../shared/domain';
import type { NotifyEvent, Settings } from '../../shared/views';
import type { DesktopNotice } from './host-types';

/** Above this many notices in one tick, show one summary instead. */
export const COALESCE_ABOVE = 3;

export interface RunLabel {
  title: string;
  projectPath: string;
}

/** The rule kind an event falls under, or null when it never notifies. */
export function notifyEventOf(event: RunEvent): NotifyEvent | null {
  switch (event.type) {
    case 'interaction.requested':
      return 'needsAnswer';
    case 'run.runner_lost':
    case 'run.orphaned':
      return 'stale';
    case 'run.failed':
    case 'run.timed_out':
      return 'failed';
    case 'run.completed':
      return 'completed';
    default:
      return null;
  }
}

export function ruleAllows(settings: Settings, projectPath: string | null, kind: NotifyEvent): boolean {
  const rules = settings.notificationRules;
  const project = projectPath === null ? undefined : rules.projects[projectPath];
  return project?.[kind] ?? rules.defaults[kind];
}

/** Maps the events of one tick to one notice each (deduplicated). `label` looks a run up (title, project). */
export function noticesFor(
  events: readonly RunEvent[],
  settings: Settings,
  label: (runId: string) => RunLabel | null,
): DesktopNotice[] {
  if (settings.notificationsPaused) return [];
  const notices: DesktopNotice[] = [];
  const seen = new Set<string>();
  for (const event of events) {
    if (event.runId === null) continue;
    const notice = noticeFor(event, settings, label(event.runId));
    if (notice === null) continue;
    // One notice per run and kind per tick: a run that asks twice in a burst is one toast.
    const key = `${event.runId}:${event.type}`;
    if (seen.has(key)) continue;
    seen.add(key);
    notices.push(notice);
  }
  return notices;
}

/** What to actually show: the notices themselves, or one summary when there are too many at once. */
export function coalesce(notices: DesktopNotice[]): DesktopNotice[] {
  if (notices.length <= COALESCE_ABOVE) return notices;
  const attention = notices.filter((n) => n.level === 'attention' || n.level === 'failure').length;
  return [
    {
      title: attention > 0 ? `${attention} runs need you` : `${notices.length} run updates`,
      body: notices
        .slice(0, 5)
        .map((n) => n.title)
        .join('\n'),
      level: attention > 0 ? 'attention' : 'info',
      runId: null,
      ...questionsOf(notices),
    },
  ];
}

/**
 * The questions a summary stands for, when it stands for nothing else: a summary of questions only closes
 * once every one of them is closed (a summary that also tells of failures stays).
 */
function questionsOf(notices: readonly DesktopNotice[]): { questionIds?: string[] } {
  const ids = notices.map((n) => n.interactionId);
  if (ids.some((id) => id === undefined)) return {};
  return { questionIds: ids as string[] };
}

/**
 * What a host that just took over (an app start, a takeover after a crash) shows for what happened while no
 * host acted: one summary, never a replay — "While Runwarden was closed: 3 runs failed, 1 question asked".
 */
export function catchUpNotice(notices: DesktopNotice[]): DesktopNotice[] {
  if (notices.length === 0) return [];
  const counts = new Map<string, number>();
  for (const n of notices) {
    const kind = catchUpKind(n);
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  const parts = [...counts].map(([kind, n]) => `${n} ${CATCH_UP_WORDS[kind]?.[n === 1 ? 0 : 1] ?? kind}`);
  const attention = notices.some((n) => n.level === 'attention' || n.level === 'failure');
  return [
    {
      title: `While Runwarden was closed: ${parts.join(', ')}`,
      body: notices
        .slice(0, 5)
        .map((n) => n.title)
        .join('\n'),
      level: attention ? 'attention' : 'info',
      runId: notices.length === 1 ? (notices[0]?.runId ?? null) : null,
      ...questionsOf(notices),
    },
  ];
}

const CATCH_UP_WORDS: Record<string, readonly [string, string]> = {
  needsAnswer: ['question asked', 'questions asked'],
  stale: ['runner lost', 'runners lost'],
  orphaned: ['command left running', 'commands left running'],
  failed: ['run failed', 'runs failed'],
  completed: ['run completed', 'runs completed'],
  message: ['message', 'messages'],
};

function catchUpKind(notice: DesktopNotice): string {
  if (notice.recorded === true) return 'message';
  if (notice.title.startsWith('Needs an answer')) return 'needsAnswer';
  if (notice.title.startsWith('Runner lost')) return 'stale';
  if (notice.title.startsWith('Runner gone, command still running')) return 'orphaned';
  if (notice.level === 'failure') return 'failed';
  if (notice.level === 'success') return 'completed';
  return 'message';
}

/** The effects an event left of unknown outcome (`ambiguousEffects` in its payload): a notice announces them. */
export function ambiguousEffectsOf(event: RunEvent): number[] {
  const ids = (event.payload as { ambiguousEffects?: unknown } | null)?.ambiguousEffects;
  if (!Array.isArray(ids)) return [];
  return ids.filter((id): id is number => Number.isSafeInteger(id) && (id as number) > 0);
}

function noticeFor(event: RunEvent, settings: Settings, run: RunLabel | null): DesktopNotice | null {
  const notice = plainNoticeFor(event, settings, run);
  const effectIds = ambiguousEffectsOf(event);
  return notice === null || effectIds.length === 0 || notice.recorded === true
    ? notice
    : { ...notice, effectIds };
}

function plainNoticeFor(event: RunEvent, settings: Settings, run: RunLabel | null): DesktopNotice | null {
  if (event.runId === null || run === null) return null;
  if (event.type === 'notification') {
    // A runner's own `runwarden notify`: shown as the runner wrote it, still plain text.
    const payload = (event.payload ?? {}) as { title?: unknown; body?: unknown; level?: unknown };
    if (typeof payload.title !== 'string') return null;
    if (event.actorType !== 'runner') return null;
    const level = payload.level === 'failure' || payload.level === 'attention' || payload.level === 'success';
    return {
      title: payload.title,
      body: typeof payload.body === 'string' ? payload.body : run.title,
      level: level ? (payload.level as DesktopNotice['level']) : 'info',
      runId: event.runId,
      recorded: true,
    };
  }
  const kind = notifyEventOf(event);
  if (kind === null || !ruleAllows(settings, run.projectPath, kind)) return null;
  const project = shortProject(run.projectPath);
  switch (kind) {
    case 'needsAnswer': {
      const payload = event.payload as { title?: unknown; interactionId?: unknown } | null;
      const question = payload?.title;
      const asked = typeof question === 'string' && question !== '' ? question : run.title;
      return {
        title: `Needs an answer: ${asked}`,
        body: `${run.title} — ${project}`,
        level: 'attention',
        runId: event.runId,
        ...(typeof payload?.interactionId === 'string' && { interactionId: payload.interactionId }),
      };
    }
    case 'stale':
      // An orphan is worse than a dead runner: its command still runs, unseen (docs/LIVENESS.md#orphans).
      if (event.type === 'run.orphaned') {
        return {
          title: `Runner gone, command still running: ${run.title}`,
          body: `${project} — stop the command before cancelling or retrying.`,
          level: 'attention',
          runId: event.runId,
        };
      }
      return {
        title: `Runner lost: ${run.title}`,
        body: `${project} — its runner stopped; the run can be cancelled.`,
        level: 'attention',
        runId: event.runId,
      };
    case 'failed': {
      // The reason quotes the command's last stderr lines (docs/RUN-OUTPUT.md#failure-reason).
      const error = (event.payload as { error?: unknown } | null)?.error;
      const body = typeof error === 'string' && error !== '' ? `${project} — ${error}` : project;
      return { title: `Failed: ${run.title}`, body, level: 'failure', runId: event.runId };
    }
    case 'completed':
      return { title: `Completed: ${run.title}`, body: project, level: 'success', runId: event.runId };
  }
}

export function shortProject(path: string): string {
  const parts = path.split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 1] ?? path;
}
