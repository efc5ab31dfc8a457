/**
 * The CLI's words and JSON where a person triages the demo store, checked against docs/CLI.md: `ls`'s
 * display-status filter (`--status`, the same as `--view`) beside the stored-state filter for scripts
 * (`--state`), and the DETAIL column where `runwarden progress` shows; `show` on a settled question (no
 * deadline left, its default and answer in the question's terms).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunListPage } from '../../../main/store';
import type { RunDetail } from '../../../main/store';
import { runCli, runJson, spawnCli, tempDir, waitFor, type TempDir } from '../../helpers/cli';

let dir: TempDir;
beforeAll(async () => {
  dir = tempDir();
  const demo = await runCli(['demo', '--no-live', '--dir', dir.path], { store: dir.store });
  if (demo.code !== 0) throw new Error(demo.stderr);
});
afterAll(() => dir.remove());

async function list(args: string[]): Promise<RunListPage['items']> {
  const { body } = await runJson<RunListPage>(['ls', '--limit', '200', ...args], { store: dir.store });
  if (!body.ok) throw new Error(body.error.message);
  return body.value.items;
}

describe('ls filters (docs/CLI.md "runwarden ls")', () => {
  it('--view S is --status S: the same runs, by display status (stale includes orphaned)', async () => {
    const byStatus = await list(['--status', 'stale']);
    const byView = await list(['--view', 'stale']);
    expect(byView.map((i) => i.run.id)).toEqual(byStatus.map((i) => i.run.id));
    expect(new Set(byStatus.map((i) => i.display.status))).toEqual(new Set(['stale', 'orphaned']));
    const both = await runCli(['ls', '--status', 'stale', '--view', 'failed'], { store: dir.store });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--status and --view are the same filter');
  });

  it('--state S lists by stored state whatever the run shows, across pages', async () => {
    const running = await list(['--state', 'running']);
    expect(running.length).toBeGreaterThan(0);
    expect(running.every((i) => i.run.status === 'running')).toBe(true);
    // Runs stored as running whose runner is gone show as stale, orphaned or parked: --state still lists them.
    const shows = new Set(running.map((i) => i.display.status));
    expect(shows.has('stale')).toBe(true);
    expect(shows.has('running')).toBe(true);
    // A page at a time, continued by its cursor, with nothing repeated or left out.
    const { body } = await runJson<RunListPage>(['ls', '--state', 'running', '--limit', '2'], {
      store: dir.store,
    });
    if (!body.ok) throw new Error(body.error.message);
    expect(body.value.items.map((i) => i.run.id)).toEqual(running.slice(0, 2).map((i) => i.run.id));
    const next = await list(['--state', 'running', '--cursor', String(body.value.nextCursor)]);
    expect(next.map((i) => i.run.id)).toEqual(running.slice(2).map((i) => i.run.id));
    const bad = await runCli(['ls', '--state', 'stale'], { store: dir.store });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--state must be one of queued, running, waiting');
    const help = await runCli(['ls', '--help'], { store: dir.store });
    expect(help.stdout).toContain('stale includes orphaned');
    expect(help.stdout).toContain('--state S');
  });

  it('shows the latest progress text in its DETAIL column, as the README says', async () => {
    const exec = await runCli(
      ['exec', '--title', 'Copy files', '--', 'sh', '-c', 'runwarden progress "copied 40 of 120"'],
      { store: dir.store, cwd: dir.path },
    );
    expect(exec.code).toBe(0);
    const table = await runCli(['ls', '--search', 'Copy files'], {
      store: dir.store,
      env: { COLUMNS: '250' },
    });
    expect(table.stdout).toMatch(/DETAIL/);
    expect(table.stdout).toContain('copied 40 of 120');
  });
});

describe('show (docs/CLI.md "Person commands")', () => {
  it("a settled question has no deadline; its default and answer read in the question's terms", async () => {
    const exec = spawnCli(
      [
        'exec',
        '--title',
        'Ship it',
        '--',
        'sh',
        '-c',
        'runwarden ask --title "Ship?" --choice yes --choice no --timeout 1m --default no',
      ],
      { store: dir.store, cwd: dir.path },
    );
    let runId = '';
    const question = await waitFor('the question to be asked', async () => {
      const { body } = await runJson<RunListPage>(['ls', '--search', 'Ship it'], { store: dir.store });
      runId = body.ok ? (body.value.items[0]?.run.id ?? '') : '';
      if (runId === '') return undefined;
      const shown = await runJson<RunDetail>(['show', runId], { store: dir.store });
      return shown.body.ok ? shown.body.value.snapshot.interactions[0] : undefined;
    });
    const open = await runCli(['show', runId], { store: dir.store, env: { COLUMNS: '250' } });
    expect(open.stdout).toMatch(/pending\s+Ship\?\s+yes \| no\s+in \d+ (sec|min)\.\s+no/);
    expect((await runCli(['answer', question.id, 'yes'], { store: dir.store })).code).toBe(0);
    expect((await exec.done).code).toBe(0);
    const settled = await runCli(['show', runId], { store: dir.store, env: { COLUMNS: '250' } });
    const row = settled.stdout.split('\n').find((line) => line.startsWith(question.id)) ?? '';
    expect(row).toMatch(/settled\s+Ship\?\s+yes \| no\s+-\s+no\s+yes \(human\)/);
    expect(settled.stdout).not.toMatch(/in \d+ (sec|min)\./);
    expect(settled.stdout).toMatch(/DEFAULT/);
  });
});

describe('a queued run with no runner (docs/CLI.md "Person commands")', () => {
  it('show suggests starting one with runwarden worker', async () => {
    const queued = (await list(['--status', 'queued'])).find((i) => i.display.needsYou);
    if (queued === undefined) throw new Error('the demo has no unattended queued run');
    const show = await runCli(['show', queued.run.id], { store: dir.store });
    expect(show.stdout).toMatch(/runwarden worker\s+# start a runner that picks up queued runs/);
  });
});
