/** The window's views (`RUN_VIEWS`, in tab order): labels, shortcut keys, and their counts. */
import { assertNever } from '../../../../shared/errors';
import { VIEW_STATUSES, type RunView, type StatusCounts } from '../../../../shared/views';

export function viewLabel(view: RunView): string {
  switch (view) {
    case 'needs-you':
      return 'Needs you';
    case 'running':
      return 'Running';
    case 'queued':
      return 'Queued';
    case 'parked':
      return 'Parked';
    case 'stale':
      return 'Stale';
    case 'failed':
      return 'Failed';
    case 'all':
      return 'All';
    default:
      return assertNever(view, 'view');
  }
}

/** The second key of the `g <key>` jump for each view. */
export const VIEW_KEYS: Readonly<Record<string, RunView>> = {
  n: 'needs-you',
  r: 'running',
  q: 'queued',
  p: 'parked',
  s: 'stale',
  f: 'failed',
  a: 'all',
};

/** How many runs a view holds, from per-status counts and the needs-you total. */
export function viewCount(view: RunView, counts: StatusCounts, needsYou: number): number {
  if (view === 'needs-you') return needsYou;
  const sum = (statuses: readonly (keyof StatusCounts)[]) =>
    statuses.reduce((n, s) => n + (counts[s] ?? 0), 0);
  if (view === 'all') return sum(Object.keys(counts) as (keyof StatusCounts)[]);
  return sum(VIEW_STATUSES[view]);
}

/** What to show when a view is empty: a sentence and the next thing to try. */
export function emptyViewText(view: RunView, filtered: boolean): { title: string; hint: string } {
  if (filtered) return { title: 'No runs match.', hint: 'Clear the search or pick another project.' };
  switch (view) {
    case 'needs-you':
      return {
        title: 'Nothing needs you.',
        hint: 'Questions, stale runs and parked runs show up here. Start a run with `runwarden exec -- <cmd>`, or load demo data with `runwarden demo`.',
      };
    case 'all':
      return {
        title: 'No runs yet.',
        hint: 'Start one with `runwarden exec -- <cmd>` in a project folder, or load demo data with `runwarden demo`.',
      };
    default:
      return { title: `No ${viewLabel(view).toLowerCase()} runs.`, hint: 'Press g then a to see all runs.' };
  }
}
