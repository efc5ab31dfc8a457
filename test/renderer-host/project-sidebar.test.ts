/**
 * The projects sidebar over the real host (real-host.ts): with more projects than a screenful, the first ones
 * are drawn with the window and every one of them once the run list's first page is in
 * (docs/WINDOW.md#start-up); each project's bar is one element whose gradient follows its status counts.
 */
import { screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRealHost, projectPath, seedCompletedRun, startRun, type RealHost } from './real-host';
import { renderApp } from './render-app';

let h: RealHost;
beforeEach(() => {
  h = createRealHost();
});
afterEach(() => {
  h.cleanup();
});

describe('projects sidebar', () => {
  it('draws every project once the run list has its first page, and the filter searches all of them', async () => {
    const names: string[] = [];
    for (let i = 0; i < 55; i++) {
      const name = `proj-${String(i).padStart(2, '0')}`;
      names.push(name);
      startRun(h, { projectPath: projectPath(h, name), title: `run of ${name}` });
    }
    const { app, user } = renderApp(h, '#/all');
    const nav = await screen.findByRole('navigation', { name: 'Projects' });
    await waitFor(() => expect(app.list.loaded).toBe(true));
    // "All projects" and one link per project.
    await waitFor(() => expect(within(nav).getAllByRole('link')).toHaveLength(56));
    for (const name of [names[0]!, names[54]!]) expect(within(nav).getByText(name)).toBeTruthy();

    await user.type(within(nav).getByRole('searchbox', { name: 'Filter projects' }), 'proj-5'); // proj-50 … proj-54
    await waitFor(() => expect(within(nav).getAllByRole('link')).toHaveLength(1 + 5));
  });

  it('draws a project’s status bar as one gradient, in status order and proportion', async () => {
    const dir = projectPath(h, 'mixed');
    startRun(h, { projectPath: dir });
    seedCompletedRun(h, 'done one', { projectPath: dir });
    seedCompletedRun(h, 'done two', { projectPath: dir });
    seedCompletedRun(h, 'done three', { projectPath: dir });
    renderApp(h, '#/all');
    const nav = await screen.findByRole('navigation', { name: 'Projects' });
    const link = await waitFor(() => within(nav).getByRole('link', { name: /^mixed/ }));
    const bar = link.querySelector<HTMLElement>('.bar');
    expect(bar).not.toBeNull();
    expect(bar!.children).toHaveLength(0);
    const image = bar!.style.backgroundImage;
    // One running of four, then three completed: 0–25 % and 25–100 %.
    expect(image).toMatch(/^linear-gradient\(to right, .+ 0% 25%, .+ 25% 100%\)$/);
  });
});
