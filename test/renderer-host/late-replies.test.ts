/**
 * The projects and notifications state over the real host, with the one thing the store cannot do: an
 * older request's answer held back until a newer one has been applied. The older answer is dropped.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunwardenApi } from '../../shared/contract';
import { NotificationsState } from '../../renderer/src/lib/state/notifications.svelte';
import { ProjectsState } from '../../renderer/src/lib/state/projects.svelte';
import { createRealHost, seedQuestion, seedStaleRun, startRun, type RealHost } from './real-host';

let h: RealHost;
beforeEach(() => {
  h = createRealHost();
});
afterEach(() => h.cleanup());

/** `api` with `method`'s first answer held until `release()`; later calls answer at once. */
function holdFirst<M extends 'getAttention' | 'listNotifications'>(api: RunwardenApi, method: M) {
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  let first = true;
  const slow = {
    ...api,
    [method]: async (input: never) => {
      const result = await (api[method] as (i: never) => Promise<unknown>)(input);
      if (first) {
        first = false;
        await held;
      }
      return result;
    },
  } as RunwardenApi;
  return { slow, release: () => release() };
}

describe('late replies', () => {
  it('projects: counts read before a run needed you do not overwrite the newer ones', async () => {
    const { slow, release } = holdFirst(h.api, 'getAttention');
    const projects = new ProjectsState(slow);
    const older = projects.load();
    seedQuestion(h, { title: 'asks' });
    await projects.load();
    expect(projects.needsYou).toBe(1);
    release();
    await older;
    expect(projects.needsYou).toBe(1);
  });

  it('projects: a pushed count is not overwritten by a load that started before it', async () => {
    startRun(h, { title: 'runs' });
    const { slow, release } = holdFirst(h.api, 'getAttention');
    const projects = new ProjectsState(slow);
    const older = projects.load();
    seedStaleRun(h, 'gone');
    projects.applyAttention({ running: 1, stale: 1 }, 1);
    release();
    await older;
    expect(projects.counts).toEqual({ running: 1, stale: 1 });
    expect(projects.needsYou).toBe(1);
    // The project list that load read still arrives: only its counts were older than the push.
    expect(projects.projects.map((p) => p.canonicalPath)).toEqual([h.projectDir]);
  });

  it('notifications: an older history does not replace a newer one', async () => {
    const { slow, release } = holdFirst(h.api, 'listNotifications');
    const panel = new NotificationsState(slow);
    const older = panel.load();
    h.store.notify(null, { level: 'info', title: 'newer' }, { type: 'runner', id: 'r', surface: 'cli' });
    await panel.load();
    expect(panel.items.map((n) => n.title)).toEqual(['newer']);
    release();
    await older;
    expect(panel.items.map((n) => n.title)).toEqual(['newer']);
  });
});
