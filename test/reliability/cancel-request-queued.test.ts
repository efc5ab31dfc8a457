/**
 * docs/LIVENESS.md "Requests and claims": `runwarden cancel --request` on a queued run nobody holds cancels
 * it at once, with a worker polling for work all along: none of the commands ever runs, while a run nobody
 * asked to cancel, queued at the same moment, does.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { openStore } from '../../main/store';
import { printCounts, spawnRunwarden, tempProject, waitFor } from './liveness-kit';

const { dir, project } = tempProject('runwarden-cancelreq-');

const TRIES = 5;

it('cancel --request on a queued run with a worker running: the command never runs', async () => {
  const store = openStore(dir.store);
  const worker = spawnRunwarden(['worker', '--project', project, '--poll-ms', '20', '--lease-ms', '2000'], {
    store: dir.store,
    cwd: project,
  });
  try {
    await waitFor('the worker to wait for runs', () => worker.stderr.includes('waiting for runs'));
    const actor = { type: 'runner', id: 'test', surface: 'cli' } as const;
    // Due in 2.5 s: time for the CLI to start; the worker polls every 20 ms meanwhile.
    const due = Date.now() + 2_500;
    const reserve = (name: string) =>
      store.reserveRun(
        {
          projectPath: project,
          workflow: 'touch',
          title: name,
          command: { argv: ['sh', '-c', `echo ran >> ${name}`], cwd: project },
          availableAt: due,
        },
        actor,
      );
    const asked = Array.from({ length: TRIES }, (_, i) => reserve(`marker-${i}`));
    const control = reserve('marker-control');
    const requests = await Promise.all(
      asked.map(
        (run) => spawnRunwarden(['cancel', '--request', run.id], { store: dir.store, cwd: project }).done,
      ),
    );
    expect(requests.map((r) => r.code)).toEqual(asked.map(() => 0));
    expect(Date.now()).toBeLessThan(due);
    await waitFor(
      'the control run to complete',
      () => store.getRun(control.id).status === 'completed',
      20_000,
    );
    await sleep(1_000);
    const ran = asked.filter((_, i) => existsSync(join(project, `marker-${i}`))).length;
    const statuses = asked.map((run) => store.getRun(run.id).status);
    const claims = asked
      .map(
        (run) =>
          store.getRunDetail(run.id, { eventsLimit: 50 }).events.filter((e) => e.type === 'run.claimed')
            .length,
      )
      .reduce((a, b) => a + b, 0);
    printCounts('cancel --request on queued runs', {
      tries: TRIES,
      commandsRun: ran,
      cancelled: statuses.filter((s) => s === 'cancelled').length,
      claims,
      controlRan: existsSync(join(project, 'marker-control')),
    });
    expect(ran).toBe(0);
    expect(statuses).toEqual(asked.map(() => 'cancelled'));
    expect(claims).toBe(0);
    expect(existsSync(join(project, 'marker-control'))).toBe(true);
  } finally {
    worker.child.kill('SIGTERM');
    await worker.done;
    store.close();
  }
});
