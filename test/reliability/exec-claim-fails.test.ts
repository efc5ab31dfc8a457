/**
 * `runwarden exec` is all-or-nothing: bad numbers are refused (exit 2) before anything is written, and a
 * claim that fails — the same --key held by a live runner, a store busy past its timeout — leaves no queued
 * run carrying the command for a worker to start later.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openStore } from '../../main/store';
import { runCli } from '../helpers/cli';
import { printCounts, runIdOf, spawnRunwarden, tempProject, waitFor } from './liveness-kit';

const { dir, project } = tempProject('runwarden-execclaim-');

function runCount(): number {
  if (!existsSync(dir.store)) return 0;
  const store = openStore(dir.store, { readonly: true });
  try {
    return store.listRuns({ view: 'all', limit: 1000 }).items.length;
  } finally {
    store.close();
  }
}

it('exec whose claim fails leaves nothing runnable', async () => {
  const marker = join(project, 'ran');
  for (const bad of ['100000000000', '99', 'ten']) {
    const refused = await runCli(['exec', '--project', project, '--lease-ms', bad, '--', 'touch', marker], {
      store: dir.store,
      cwd: project,
    });
    expect(refused.code, refused.stderr).toBe(2);
  }
  expect(existsSync(dir.store)).toBe(false);

  // The same key and line while a live runner holds its run: refused, nothing new.
  const line = ['exec', '--project', project, '--key', 'nightly', '--', 'sleep', '4'];
  const holder = spawnRunwarden(line, { store: dir.store, cwd: project });
  await runIdOf(holder);
  const second = await runCli(line, { store: dir.store, cwd: project });
  expect(second.code, second.stderr).toBe(3);
  expect(runCount()).toBe(1);

  // A store busy past its timeout (5 s, tried 5 times: ~25 s): the one transaction never happens.
  const locker = openStore(dir.store);
  locker.db.prepare('BEGIN IMMEDIATE').run();
  const busy = await runCli(['exec', '--project', project, '--', 'touch', marker], {
    store: dir.store,
    cwd: project,
    timeoutMs: 40_000,
  });
  locker.db.prepare('ROLLBACK').run();
  locker.close();
  // 7: the store stayed busy, nothing was written (docs/CLI.md#exit-codes).
  expect(busy.code, busy.stderr).toBe(7);
  expect(busy.stderr).toContain('busy');
  expect(runCount()).toBe(1);

  await holder.done;
  const worker = await runCli(['worker', '--project', project, '--once'], { store: dir.store, cwd: project });
  await waitFor('the worker', () => worker.code !== null);
  printCounts('exec claim fails', {
    badNumbersRefused: 3,
    liveKeyExit: second.code,
    busyExit: busy.code,
    runs: runCount(),
    commandRan: existsSync(marker),
    workerStartedCommand: /run run_\S+: touch/.test(worker.stderr),
  });
  expect(worker.code).toBe(0);
  expect(worker.stderr).not.toMatch(/run run_\S+: touch/);
  expect(existsSync(marker)).toBe(false);
}, 120_000);
