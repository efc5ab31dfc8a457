/**
 * CommandPalette.svelte on its own, over the real host (real-host.ts): typing filters the commands, the arrow
 * keys move the active option (wrapping at both ends) and Enter does the active one.
 */
import { render, screen, waitFor, within } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appContext } from '../../renderer/src/lib/state/app-context';
import CommandPalette from '../../renderer/src/lib/components/CommandPalette.svelte';
import { createRealHost, startRun, type RealHost } from './real-host';
import { createApp } from './render-app';

let h: RealHost;
let stop: (() => void) | null = null;
beforeEach(() => {
  h = createRealHost();
});
afterEach(() => {
  stop?.();
  stop = null;
  h.cleanup();
});

function options(): HTMLElement[] {
  return within(screen.getByRole('listbox', { name: 'Commands' })).getAllByRole('option');
}

function active(): string {
  const box = screen.getByRole('combobox', { name: 'Type a command' });
  const selected = options().filter((o) => o.getAttribute('aria-selected') === 'true');
  expect(selected).toHaveLength(1);
  // The combobox points at the same option, so a screen reader reads what Enter would do.
  expect(box.getAttribute('aria-activedescendant')).toBe(selected[0]!.id);
  return selected[0]!.textContent?.replace(/\s+/g, ' ').trim() ?? '';
}

describe('command palette', () => {
  it('filters by group and label as you type, and says when nothing matches', async () => {
    const user = userEvent.setup();
    const { app } = createApp(h, '#/all');
    render(CommandPalette, { context: appContext(app) });
    const box = screen.getByRole('combobox', { name: 'Type a command' });
    expect(options().length).toBeGreaterThan(10);
    await user.type(box, 'keyboard');
    expect(options().map((o) => o.textContent?.replace(/\s+/g, ' ').trim())).toEqual([
      'Window Keyboard shortcuts ?',
    ]);
    await user.clear(box);
    await user.type(box, 'go to');
    expect(options().every((o) => o.textContent?.includes('Go to'))).toBe(true);
    expect(options()).toHaveLength(8); // the seven views and the search
    await user.type(box, ' nothing like this');
    expect(options().map((o) => o.textContent?.trim())).toEqual(['No command matches.']);
    expect(box.getAttribute('aria-activedescendant')).toBeNull();
  });

  it('moves with the arrow keys, wrapping at both ends, and back to the first on typing', async () => {
    const user = userEvent.setup();
    const { app } = createApp(h, '#/all');
    render(CommandPalette, { context: appContext(app) });
    const box = screen.getByRole('combobox', { name: 'Type a command' });
    await user.type(box, 'go to');
    const labels = options().map((o) => o.textContent?.replace(/\s+/g, ' ').trim() ?? '');
    expect(active()).toBe(labels[0]);
    await user.keyboard('{ArrowDown}{ArrowDown}');
    expect(active()).toBe(labels[2]);
    await user.keyboard('{ArrowUp}{ArrowUp}{ArrowUp}');
    expect(active()).toBe(labels.at(-1));
    await user.keyboard('{ArrowDown}');
    expect(active()).toBe(labels[0]);
    await user.keyboard('{ArrowUp}');
    await user.type(box, ' s');
    expect(active()).toBe(options().map((o) => o.textContent?.replace(/\s+/g, ' ').trim())[0]);
  });

  it('does the active command on Enter and closes', async () => {
    const user = userEvent.setup();
    const { app, history } = createApp(h, '#/all');
    stop = app.start();
    app.panel = 'palette';
    render(CommandPalette, { context: appContext(app) });
    const box = screen.getByRole('combobox', { name: 'Type a command' });
    await user.type(box, 'go to');
    // Needs you, Running: the second view.
    await user.keyboard('{ArrowDown}');
    expect(active()).toMatch(/^Go to Running/);
    await user.keyboard('{Enter}');
    await waitFor(() => expect(app.route.view).toBe('running'));
    expect(history.hash).toMatch(/^#\/running/);
    expect(app.panel).toBeNull();
  });

  it('offers the selected run’s own actions first, named with its title', async () => {
    const user = userEvent.setup();
    const { runId } = startRun(h, { title: 'Nightly build' });
    const { app } = createApp(h, `#/all?run=${runId}`);
    stop = app.start();
    await waitFor(() => expect(app.list.itemById(runId)).toBeDefined());
    render(CommandPalette, { context: appContext(app) });
    const first = options()[0]!;
    expect(first.textContent).toMatch(/Selected run\s*Open the run — Nightly build/);
    await user.type(screen.getByRole('combobox', { name: 'Type a command' }), 'nightly');
    const forRun = options().map((o) => o.textContent ?? '');
    expect(forRun.length).toBeGreaterThan(1);
    expect(forRun.every((text) => text.includes('Selected run') && text.includes('Nightly build'))).toBe(
      true,
    );
  });
});
