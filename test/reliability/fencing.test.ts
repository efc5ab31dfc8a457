/**
 * Fencing: a runner paused (SIGSTOP) past its lease; a new owner claims the run; the old one wakes
 * (SIGCONT): its writes change 0 rows and it stops. The new owner claims from where it cannot judge the
 * old one's pid (another machine's view, docs/LIVENESS.md): on this machine a stopped but alive owner
 * keeps its run, which clock-suspend.test.ts covers.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { runnerOwner } from '../../main/runner';
import { openStore, UNTRUSTED_LIVENESS } from '../../main/store';
import { fixturePath } from '../helpers/paths';
import { tempDir, waitFor } from '../helpers/cli';
import { readLog } from './oracle-log';

const dir = tempDir('runwarden-fencing-');
afterAll(() => dir.remove());

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
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await waitFor(
      'the old owner to write',
      () => readLog(log).filter((e) => e.op === 'write' && e.ok).length >= 5,
    );

    child.kill('SIGSTOP');
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
