/**
 * Needs you as a triage queue (docs/WINDOW.md#needs-you): questions first (the soonest deadline first, since
 * a default or an expiry is coming), then stale and orphaned runs, then side effects to resolve, then parked
 * runs, then queued runs nobody picked up. Within a group, newest first. The store orders and counts the
 * queue (main/store/needs-you-queue.ts); the window, the tray and the CLI show it in that order.
 */
export const TRIAGE_GROUPS = ['answer', 'stale', 'effects', 'parked', 'queued', 'other'] as const;
export type TriageGroup = (typeof TRIAGE_GROUPS)[number];

/** Runs per triage group over the whole queue (every page), for a view's group headers. */
export type TriageCounts = Partial<Record<TriageGroup, number>>;

/**
 * The group a run falls in by what it shows (its display status, and whether an effect's outcome is
 * unknown): the order the store's queue keeps in SQL (test/main/store/view-agreement.test.ts).
 */
export function triageGroupFor(status: string, ambiguousEffects: number): TriageGroup {
  if (status === 'needs-answer') return 'answer';
  if (status === 'stale' || status === 'orphaned') return 'stale';
  if (status === 'ambiguous' || ambiguousEffects > 0) return 'effects';
  if (status === 'parked' || status === 'paused') return 'parked';
  if (status === 'queued') return 'queued';
  return 'other';
}

export function triageGroupLabel(group: TriageGroup): string {
  switch (group) {
    case 'answer':
      return 'Questions waiting';
    case 'stale':
      return 'Stale or orphaned: no runner';
    case 'effects':
      return 'Effects to resolve';
    case 'parked':
      return 'Parked: needs a decision';
    case 'queued':
      return 'Queued with no runner';
    case 'other':
      return 'Other';
  }
}
