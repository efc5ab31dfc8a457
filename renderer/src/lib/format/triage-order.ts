/**
 * Needs you as a triage queue (docs/WINDOW.md#needs-you): questions first (the soonest deadline first, since
 * a default or an expiry is coming), then stale and orphaned runs, then side effects to resolve, then parked
 * runs, then queued runs nobody picked up. Within a group the store's order (newest first) is kept.
 */
import type { RunListItem } from '../../../../shared/views';

export type TriageGroup = 'answer' | 'stale' | 'effects' | 'parked' | 'queued' | 'other';

export const TRIAGE_GROUPS: readonly TriageGroup[] = [
  'answer',
  'stale',
  'effects',
  'parked',
  'queued',
  'other',
];

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

/** The group a run falls in; an unresolved effect wins over any other reason. */
export function triageGroupOf(item: Pick<RunListItem, 'display' | 'ambiguousEffects'>): TriageGroup {
  const status: string = item.display.status;
  if (status === 'needs-answer') return 'answer';
  if (status === 'stale' || status === 'orphaned') return 'stale';
  if (status === 'ambiguous' || item.ambiguousEffects > 0) return 'effects';
  if (status === 'parked' || status === 'paused') return 'parked';
  if (status === 'queued') return 'queued';
  return 'other';
}

/** The soonest open-question deadline of a run; a question without one waits behind those with one. */
function deadlineOf(item: Pick<RunListItem, 'nextDeadlineAt'>): number {
  return item.nextDeadlineAt ?? Number.POSITIVE_INFINITY;
}

/** The items in triage order (stable: equal items keep the order they came in). */
export function triageOrder(items: readonly RunListItem[]): RunListItem[] {
  const rank = new Map(TRIAGE_GROUPS.map((g, i) => [g, i]));
  return items
    .map((item, index) => ({ item, index, group: rank.get(triageGroupOf(item)) ?? 99 }))
    .toSorted(
      (a, b) =>
        a.group - b.group ||
        (a.group === 0 ? deadlineOf(a.item) - deadlineOf(b.item) : 0) ||
        a.index - b.index,
    )
    .map((x) => x.item);
}
