/**
 * Which runs a bulk `cancel`, `resume` or `retry` acts on: several ids, and/or every run of a view
 * (`--stale` is `--view stale`), optionally only in one project. Each run is taken with the revision it
 * had when it was selected, so the action refuses any run that changed since (compare-and-set).
 */
import { resolve } from 'node:path';
import { DISPLAY_STATUSES } from '../../shared/display-status';
import { isRunwardenError } from '../../shared/errors';
import { RUN_VIEWS, type ListView } from '../../shared/views';
import type { StoreReader } from '../store';
import { realFolder } from './project-path';
import { UsageError } from './usage-error';

/** The window's views and every single display status, as `ls --status` takes them. */
export const VIEWS: readonly ListView[] = [...new Set<ListView>([...RUN_VIEWS, ...DISPLAY_STATUSES])];

/** The contract's cap on one bulk request. */
export const MAX_SELECTION = 1000;
const PAGE = 500;

export interface SelectionFlags {
  ids: string[];
  stale?: boolean;
  view?: string;
  project?: string;
}

export interface SelectedRun {
  runId: string;
  expectedRevision: number;
}

export type Selection = { selected: SelectedRun[]; missing: Array<{ runId: string; message: string }> };

/** Whether the flags ask for more than the one run a plain `cancel RUN` names. */
export function isBulk(flags: SelectionFlags): boolean {
  return (
    flags.ids.length > 1 || flags.stale === true || flags.view !== undefined || flags.project !== undefined
  );
}

/** Parses the view flags before anything is opened; throws UsageError. */
export function selectionView(
  flags: SelectionFlags,
  cwd: string,
): { view: ListView | null; projectPath?: string } {
  if (flags.stale === true && flags.view !== undefined) throw new UsageError('use either --stale or --view');
  if (flags.view !== undefined && !(VIEWS as readonly string[]).includes(flags.view)) {
    throw new UsageError(`--view must be one of ${VIEWS.join(', ')}`);
  }
  const projectPath =
    flags.project === undefined
      ? undefined
      : realFolder(resolve(cwd, flags.project), `no such project folder: ${flags.project}`);
  const view: ListView | null =
    flags.stale === true
      ? 'stale'
      : flags.view !== undefined
        ? (flags.view as ListView)
        : projectPath
          ? 'all'
          : null;
  if (view === null && flags.ids.length === 0) {
    throw new UsageError('say which runs: RUN..., --stale, --view V or --project DIR');
  }
  return { view, ...(projectPath !== undefined && { projectPath }) };
}

export function selectRuns(
  store: StoreReader,
  flags: SelectionFlags,
  view: { view: ListView | null; projectPath?: string },
): Selection {
  const selected = new Map<string, SelectedRun>();
  const missing: Selection['missing'] = [];
  for (const runId of flags.ids) {
    try {
      selected.set(runId, { runId, expectedRevision: store.getRun(runId).revision });
    } catch (error) {
      if (!isRunwardenError(error) || error.code !== 'NOT_FOUND') throw error;
      missing.push({ runId, message: error.message });
    }
  }
  if (view.view !== null) {
    let cursor: string | null = null;
    do {
      const page = store.listRuns({
        view: view.view,
        ...(view.projectPath !== undefined && { projectPath: view.projectPath }),
        limit: PAGE,
        cursor,
      });
      for (const item of page.items) {
        if (selected.size >= MAX_SELECTION) break;
        selected.set(item.run.id, { runId: item.run.id, expectedRevision: item.run.revision });
      }
      cursor = selected.size >= MAX_SELECTION ? null : page.nextCursor;
    } while (cursor !== null);
  }
  return { selected: [...selected.values()], missing };
}

/** The flags `cancel`, `resume` and `retry` take for a selection. */
export const SELECTION_OPTIONS = {
  stale: { type: 'boolean' },
  view: { type: 'string' },
  project: { type: 'string' },
  'dry-run': { type: 'boolean' },
  yes: { type: 'boolean', short: 'y' },
} as const;

export const SELECTION_HELP = `Selection (several runs at once; each is refused on its own if it changed or does not allow it):
  RUN...         several run ids
  --stale        every stale run (its runner stopped heartbeating)
  --view V       every run in a view: ${VIEWS.join(', ')}
  --project DIR  only runs of this project (alone: every run of it)
  --dry-run      say what would happen to each run; change nothing
  -y, --yes      do not ask for confirmation (asked on a terminal above 5 runs; never without one)`;
