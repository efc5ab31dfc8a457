/**
 * docs/LIVENESS.md#stopped-processes: Ctrl-Z (SIGTSTP) stops a runner only between store statements, so a
 * stopped runner never holds the store's write lock. Each round stops `runwarden exec` at a different moment
 * of its start (claim, running, log, command recorded, heartbeats: the busiest writes of its life), checks
 * the process really is stopped, then takes the write lock from another connection with a short timeout.
 * (A SIGSTOP at the same moments lands inside a write transaction in a few rounds out of 40.)
 */
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../main/store';
import { printCounts, processState, runIdOf, spawnRunwarden, tempProject, waitFor } from './liveness-kit';

const ROUNDS = 16;

const { dir, project } = tempProject('runwarden-tstp-');

describe('Ctrl-Z on a runner', () => {
  it('stops it outside every write transaction: the store stays writable while it is stopped', async () => {
    let stopped = 0;
    let writable = 0;
    let completed = 0;
    for (let round = 0; round < ROUNDS; round += 1) {
      const exec = spawnRunwarden(
        ['exec', '--project', project, '--lease-ms', '1000', '--', 'sh', '-c', 'sleep 0.4'],
        { store: dir.store, cwd: project },
      );
      const runId = await runIdOf(exec);
      const pid = exec.child.pid as number;
      // Rounds spread over the runner's first ~60 ms: log, spawn, command identity, first heartbeats.
      await sleep(round * 4);
      exec.child.kill('SIGTSTP');
      try {
        await waitFor('the runner to stop', () => processState(pid) === 'T', 5_000, 5);
        stopped += 1;
        await sleep(50);
        const db = new Database(dir.store, { timeout: 250 });
        try {
          db.exec('BEGIN IMMEDIATE');
          db.exec('ROLLBACK');
          writable += 1;
        } finally {
          db.close();
        }
      } finally {
        exec.child.kill('SIGCONT');
      }
      const end = await exec.done;
      expect(end.code, end.stderr).toBe(0);
      const store = openStore(dir.store, { readonly: true });
      if (store.getSnapshot(runId).run.status === 'completed') completed += 1;
      store.close();
    }
    printCounts('Ctrl-Z on a runner', {
      rounds: ROUNDS,
      stopped,
      storeWritableWhileStopped: writable,
      completed,
    });
    expect(stopped).toBe(ROUNDS);
    expect(writable).toBe(ROUNDS);
    expect(completed).toBe(ROUNDS);
  });
});
