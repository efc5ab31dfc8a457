/**
 * The command palette's entries (Ctrl/Cmd+K, components/CommandPalette.svelte): the selected run's allowed
 * actions first, then navigation and the window's commands, each with its key if it has one.
 */
import { RUN_VIEWS } from '$shared/views';
import { actionLabel, needsConfirmation } from '$lib/format/status-look';
import { VIEW_KEYS, viewLabel } from '$lib/format/view-meta';
import type { AppState, Panel } from './app-state.svelte';
import { paletteRunActions } from './palette-run-actions';

/** One line of the command palette: what it does, its key if it has one, and the doing. */
export interface PaletteEntry {
  id: string;
  group: 'Selected run' | 'Go to' | 'Window';
  label: string;
  keys: string | null;
  perform: () => void | Promise<void>;
}

const VIEW_KEY_OF = Object.fromEntries(Object.entries(VIEW_KEYS).map(([key, view]) => [view, key]));

/** Every action the palette offers now: the selected run's allowed actions first, then navigation. */
export function paletteEntries(app: AppState): PaletteEntry[] {
  return [...selectedRunEntries(app), ...goToEntries(app), ...windowEntries(app)];
}

/** The "Selected run" group: open it, its allowed actions, select it for a bulk action. */
function selectedRunEntries(app: AppState): PaletteEntry[] {
  const runId = app.selectedRunId;
  const item = runId === null ? undefined : app.list.itemById(runId);
  const open = app.detail.data?.snapshot.run.id === runId ? app.detail.data : null;
  const display = item?.display ?? open?.display ?? null;
  if (runId === null || display === null) return [];
  const entries: PaletteEntry[] = [];
  const title = item?.run.title ?? open?.snapshot.run.title ?? runId;
  const ambiguous =
    item?.ambiguousEffects ?? open?.snapshot.effects.filter((e) => e.status === 'ambiguous').length ?? 0;
  const run = (label: string, keys: string | null, perform: () => void | Promise<void>, id: string) =>
    entries.push({ id: `run-${id}`, group: 'Selected run', label: `${label} — ${title}`, keys, perform });
  run('Open the run', 'Enter', () => app.openRun(runId), 'open');
  for (const action of paletteRunActions(display.actions, ambiguous)) {
    const label = actionLabel(action);
    if (action === 'answer') run(label, 'a', () => app.openQuickAnswer(runId), action);
    else if (action === 'resolveEffect') run(label, null, () => app.openRun(runId), action);
    else
      run(
        label,
        null,
        async () => {
          await app.openRun(runId, false);
          if (needsConfirmation(action)) await app.command.open(action);
          else await app.runAction(action);
        },
        action,
      );
  }
  if (item !== undefined)
    run(
      app.selection.has(runId) ? 'Unselect' : 'Select for a bulk action',
      'x',
      () => app.selection.toggle(item),
      'select',
    );
  return entries;
}

/** The "Go to" group: every view, and the search box. */
function goToEntries(app: AppState): PaletteEntry[] {
  const views: PaletteEntry[] = RUN_VIEWS.map((view) => ({
    id: `view-${view}`,
    group: 'Go to',
    label: viewLabel(view),
    keys: `g ${VIEW_KEY_OF[view] ?? ''}`.trim(),
    perform: () => {
      void app.setView(view);
      app.requestFocus('list');
    },
  }));
  return [
    ...views,
    {
      id: 'search',
      group: 'Go to',
      label: 'Search runs',
      keys: '/',
      perform: () => app.requestFocus('search'),
    },
  ];
}

/** The "Window" group: select all, the panels, the projects sidebar. */
function windowEntries(app: AppState): PaletteEntry[] {
  const panel = (id: Exclude<Panel, null | 'palette'>, label: string, keys: string | null): PaletteEntry => ({
    id,
    group: 'Window',
    label,
    keys,
    perform: () => void (app.panel = id),
  });
  return [
    {
      id: 'select-all',
      group: 'Window',
      label: 'Select every loaded run',
      keys: 'Shift+X',
      perform: () => app.handleCommand({ kind: 'selectAll' }),
    },
    panel('notifications', 'Notifications', null),
    panel('settings', 'Settings', null),
    panel('shortcuts', 'Keyboard shortcuts', '?'),
    {
      id: 'sidebar',
      group: 'Window',
      label: app.sidebarCollapsed ? 'Show projects' : 'Hide projects',
      keys: null,
      perform: () => void (app.sidebarCollapsed = !app.sidebarCollapsed),
    },
  ];
}
