/**
 * Fencing: a runner paused (SIGSTOP) past its lease; a new owner claims the run; the old one wakes
 * (SIGCONT): its writes change 0 rows and it stops. The new owner claims from where it cannot judge the
 * old one's pid (another machine's view, docs/LIVENESS.md): on this machine a stopped but alive owner
 * keeps its run, which clock-suspend.test.ts covers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { runnerOwner } from '../../main/runner';
import { openStore, UNTRUSTED_LIVENESS } from '../../main/store';
import { fixturePath } from '../helpers/paths';
import { tempDir, waitFor } from '../helpers/cli';
import { processState } from './liveness-kit';
import { readLog } from './oracle-log';

const dir = tempDir('runwarden-fencing-');
// A runner left stopped by a failed assertion would outlive the test run, holding its output pipe open.
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  dir.remove();
});

/**
 * SIGSTOP lands wherever the runner is. Inside a write transaction, the stopped runner would hold the store's
 * write lock until it continues (docs/LIVENESS.md#stopped-processes), and the takeover would wait on it and
 * fail as BUSY; that is not what this test is about. So it is stopped again until it stops outside one.
 */
async function stopOutsideTransaction(child: ChildProcess, storePath: string): Promise<void> {
  const pid = child.pid as number;
  for (let attempt = 0; attempt < 20; attempt += 1) {
    child.kill('SIGSTOP');
    await waitFor('the runner to stop', () => processState(pid) === 'T', 5_000, 5);
    const probe = new Database(storePath, { timeout: 100 });
    try {
      probe.exec('BEGIN IMMEDIATE');
      probe.exec('ROLLBACK');
      return;
    } catch {
      // Stopped inside a write transaction: let it finish and stop it again.
    } finally {
      probe.close();
    }
    child.kill('SIGCONT');
    await sleep(10 + attempt * 5);
  }
  throw new Error('the runner never stopped outside a write transaction');
}

describe('fencing', () => {
  it('an owner that wakes after losing its lease writes nothing and stops', async () => {
    const leaseMs = 600;
    const project = join(dir.path, 'p');
    mkdirSync(project);
    const store = openStore(dir.store, {
      liveness: UNTRUSTED_LIVENESS,
    });
    const run = store.reserveRun(
      { projectPath: project, workflow: 'fence', title: 'fencing' },
      { type: 'system', id: 'test', surface: 'sdk' },
    );
    const log = join(dir.path, 'old-owner.log');
    const child = spawn(
      process.execPath,
      [
        fixturePath('fencing-runner'),
        '--store',
        dir.store,
        '--log',
        log,
        '--run',
        run.id,
        '--lease-ms',
        String(leaseMs),
      ],
      {
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    children.push(child);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await waitFor(
      'the old owner to write',
      () => readLog(log).filter((e) => e.op === 'write' && e.ok).length >= 5,
    );

    await stopOutsideTransaction(child, dir.store);
    const stoppedAt = Date.now();
    await sleep(leaseMs * 2.5);
    const newOwner = store.claimRun(run.id, { ...runnerOwner('new-owner'), leaseMs: 60_000 });
    const takenOverAt = Date.now();
    const seqAtTakeover = store.lastEventSeq();
    child.kill('SIGCONT');
    const code = await Promise.race([exited, sleep(10_000).then(() => 'timeout' as const)]);

    const entries = readLog(log);
    const oldGeneration = entries.find((e) => e.op === 'claim')?.gen as number;
    const writesAfterWake = entries.filter((e) => e.op === 'write' && (e.t0 as number) > takenOverAt);
    const eventsUnderOldGeneration = store
      .eventsAfter(seqAtTakeover, 1000)
      .filter((e) => e.runId === run.id && e.leaseGeneration === oldGeneration);
    const heartbeat = store.heartbeat(newOwner.claim, 60_000);
    const after = store.getRun(run.id);
    store.close();

    console.log(
      `fencing: ${JSON.stringify({
        stoppedMs: takenOverAt - stoppedAt,
        oldGeneration,
        newGeneration: newOwner.claim.generation,
        oldOwnerWritesAfterWake: writesAfterWake.length,
        ofWhichSucceeded: writesAfterWake.filter((e) => e.ok).length,
        eventsUnderOldGenerationAfterTakeover: eventsUnderOldGeneration.length,
        oldOwnerExit: code,
      })}`,
    );
    expect(code).toBe(3);
    expect(newOwner.claim.generation).toBeGreaterThan(oldGeneration);
    expect(writesAfterWake.filter((e) => e.ok)).toEqual([]);
    expect(entries.find((e) => e.op === 'write-after-fenced')).toMatchObject({ ok: false, code: 'FENCED' });
    expect(entries.at(-1)?.op).toBe('stopped');
    expect(eventsUnderOldGeneration).toEqual([]);
    expect(heartbeat.ok).toBe(true);
    expect(after.statusDetail).not.toBe('after fencing');
  });
});
