import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISPLAY_STATUSES } from '../../../shared/display-status';
import type { RunListPage } from '../../../main/store';
import { killQuietly, runCli, runJson, tempDir, waitFor, type TempDir } from '../../helpers/cli';

let dir: TempDir;
let pids: number[] = [];
beforeAll(() => {
  dir = tempDir();
});
afterAll(async () => {
  for (const pid of pids) killQuietly(pid, 'SIGTERM');
  await waitFor('the demo runners to stop', () => pids.every((pid) => !alive(pid)), 10_000).catch(() => {
    for (const pid of pids) killQuietly(pid, 'SIGKILL');
  });
  dir.remove();
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('runwarden demo', () => {
  it('fills the store so that `ls` shows every display status at once', async () => {
    const demo = await runJson<{
      runs: Array<{ id: string; expected: string }>;
      runnerPids: number[];
      storePath: string;
      liveMinutes: number;
    }>(['demo', '--dir', dir.path, '--live-minutes', '2'], { store: dir.store, timeoutMs: 40_000 });
    expect(demo.code).toBe(0);
    if (!demo.body.ok) throw new Error(JSON.stringify(demo.body));
    pids = demo.body.value.runnerPids;
    expect(pids).toHaveLength(3);
    // It says how long the runner processes it leaves behind live on (docs/CLI.md "runwarden demo").
    expect(demo.body.value.liveMinutes).toBe(2);
    expect(demo.body.value.storePath).toBe(dir.store);

    const { body } = await runJson<RunListPage>(['ls', '--limit', '200'], { store: dir.store });
    if (!body.ok) throw new Error(JSON.stringify(body));
    const shown = new Set(body.value.items.map((item) => item.display.status));
    expect([...DISPLAY_STATUSES].filter((status) => !shown.has(status))).toEqual([]);
    const actual = demo.body.value.runs.map((run) => ({
      id: run.id,
      status: body.value.items.find((item) => item.run.id === run.id)?.display.status,
    }));
    expect(actual).toEqual(demo.body.value.runs.map((run) => ({ id: run.id, status: run.expected })));
    const projects = new Set(body.value.items.map((item) => item.run.projectPath));
    expect(projects.size).toBeGreaterThanOrEqual(4);

    const table = await runCli(['ls', '--limit', '200'], { store: dir.store });
    for (const status of DISPLAY_STATUSES) expect(table.stdout).toContain(status);

    // The orphan's command runs on a machine this one cannot see: no action is offered that would be
    // refused, and `show` says where to stop it and with what (no dead end).
    const orphan = body.value.items.find((item) => item.display.status === 'orphaned');
    expect(orphan?.display.actions).toEqual([]);
    const shown2 = await runCli(['show', orphan?.run.id ?? ''], { store: dir.store });
    expect(shown2.stdout).toContain(`runwarden cancel --stop-command ${orphan?.run.id ?? ''}`);
    expect(shown2.stdout).toMatch(/on \S+-simulated, where its command runs/);
  });

  it('--no-live starts no process and still shows every status, running ones simulated by a long lease', async () => {
    const other = tempDir();
    try {
      const demo = await runJson<{ runnerPids: number[] }>(['demo', '--dir', other.path, '--no-live'], {
        store: other.store,
      });
      expect(demo).toMatchObject({ code: 0, body: { ok: true, value: { runnerPids: [] } } });
      const { body } = await runJson<RunListPage>(['ls', '--limit', '200'], { store: other.store });
      if (!body.ok) throw new Error(JSON.stringify(body));
      const shown = new Set(body.value.items.map((item) => item.display.status));
      expect(DISPLAY_STATUSES.filter((status) => !shown.has(status))).toEqual([]);
      const doctor = await runJson<{ contradictions: unknown[] }>(['doctor'], { store: other.store });
      expect(doctor.body).toMatchObject({ ok: true, value: { contradictions: [], integrity: 'ok' } });
    } finally {
      other.remove();
    }
  });
});
