/**
 * What `exec --key` says when its run is held, with real processes: another runner running it now (wait
 * for it), or a gone runner whose command still runs (stop it: `cancel --stop-command`), and what `ls`
 * says of a parked run (docs/CLI.md#person-commands).
 */
import { expect, it } from 'vitest';
import type { RunDetail } from '../../main/store';
import { openStore } from '../../main/store';
import { runCli, runJson } from '../helpers/cli';
import { runnerOwner } from '../helpers/temp-store';
import { runIdOf, spawnRunwarden, tempProject, waitFor } from './liveness-kit';

const { dir, project } = tempProject('runwarden-held-key-');
const COMMAND = ['sh', '-c', 'sleep 600 & sleep 600'];

async function detail(runId: string): Promise<RunDetail> {
  const { body } = await runJson<RunDetail>(['show', runId], { store: dir.store });
  if (!body.ok) throw new Error(JSON.stringify(body.error));
  return body.value;
}

it('a duplicate exec --key waits for the live runner; on an orphan it names cancel --stop-command', async () => {
  const first = spawnRunwarden(['exec', '--key', 'held', '--project', project, '--', ...COMMAND], {
    store: dir.store,
    cwd: project,
  });
  const runId = await runIdOf(first);
  await waitFor(
    'the command',
    async () => ((await detail(runId)).snapshot.lease?.commandPid ?? null) !== null,
  );
  const again = ['exec', '--key', 'held', '--project', project, '--', ...COMMAND];
  const live = await runCli(again, { store: dir.store, cwd: project });
  expect(live.code).toBe(3);
  expect(live.stderr).toContain(`Run ${runId} is already running`);
  expect(live.stderr).toContain(`started by pid ${first.child.pid}`);
  expect(live.stderr).toContain('wait for it to finish');
  expect(live.stderr).not.toContain('cancel --request');

  first.child.kill('SIGKILL');
  await first.done;
  const orphan = await runCli(again, { store: dir.store, cwd: project });
  expect(orphan.code).toBe(3);
  expect(orphan.stderr).toContain(`Run ${runId} is orphaned`);
  expect(orphan.stderr).toContain(`runwarden cancel --stop-command ${runId}`);
  expect(orphan.stderr).not.toContain('cancel --request');
  const stop = await runCli(['cancel', '--stop-command', '--yes', runId], { store: dir.store });
  expect(stop.code, stop.stderr).toBe(0);
});

it('ls names why a run is parked in words, not its code', async () => {
  const store = openStore(dir.store);
  try {
    const run = store.reserveRun(
      { projectPath: project, workflow: 'w', title: 'parked one' },
      { type: 'runner', id: 'test', surface: 'sdk' },
    );
    const { claim } = store.claimRun(run.id, { ...runnerOwner('park-test'), leaseMs: 30_000 });
    store.park(claim, 'effectAmbiguous', 'Effect k has an unknown outcome: x');
  } finally {
    store.close();
  }
  const ls = await runCli(['ls'], { store: dir.store });
  expect(ls.code, ls.stderr).toBe(0);
  expect(ls.stdout).not.toContain('parked:effectAmbiguous');
  expect(ls.stdout).toContain('parked (unknown outcome)');
});
