/** The window's views (`RUN_VIEWS`, in tab order): labels, shortcut keys, and their counts. */
import { assertNever } from '$shared/errors';
import { VIEW_STATUSES, type RunView, type StatusCounts } from '$shared/views';

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

/** What a view's count counts, after the number ("3 running", "20 runs", "9 need you"). */
export function viewCountWords(view: RunView): string {
  if (view === 'needs-you') return 'need you';
  if (view === 'all') return 'runs';
  return viewLabel(view).toLowerCase();
}

/** A piece of a hint: words, or a command shown as code. */
export type HintPart = string | { code: string };

/** What narrows the list beyond its view: nothing, a search, a project, or a project with no runs here. */
export type ListFilter = 'none' | 'search' | 'project' | 'unknown-project';

/** What to show when a view is empty: a sentence and the next thing to try (commands as code, never backticks). */
export function emptyViewText(view: RunView, filter: ListFilter): { title: string; hint: HintPart[] } {
  switch (filter) {
    case 'unknown-project':
      return {
        title: 'This project has no runs.',
        hint: [
          'No run in this store was started in this folder. Show every project, or start one there with ',
          { code: 'runwarden exec -- <cmd>' },
          '.',
        ],
      };
    case 'search':
      return { title: 'No runs match.', hint: ['Clear the search, or pick another view or project.'] };
    case 'project':
      return { title: 'No runs match.', hint: ['Pick another view, or show every project.'] };
    case 'none':
      break;
  }
  switch (view) {
    case 'needs-you':
      return {
        title: 'Nothing needs you.',
        hint: [
          'Questions, stale runs and parked runs show up here. Start a run with ',
          { code: 'runwarden exec -- <cmd>' },
          ', or load demo data with ',
          { code: 'runwarden demo' },
          '.',
        ],
      };
    case 'all':
      return {
        title: 'No runs yet.',
        hint: [
          'Start one with ',
          { code: 'runwarden exec -- <cmd>' },
          ' in a project folder, or load demo data with ',
          { code: 'runwarden demo' },
          '.',
        ],
      };
    default:
      return {
        title: `No ${viewLabel(view).toLowerCase()} runs.`,
        hint: ['Press g then a to see all runs.'],
      };
  }
}
