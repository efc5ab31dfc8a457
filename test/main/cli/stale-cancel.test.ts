import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { descendantsOf } from '../../../main/runner/process-tree';
import type { RunListPage } from '../../../main/store';
import { killQuietly, runCli, runJson, spawnCli, tempDir, waitFor, type TempDir } from '../../helpers/cli';

let dir: TempDir;
let project: string;
const orphans: number[] = [];
beforeAll(() => {
  dir = tempDir();
  project = join(dir.path, 'proj');
  mkdirSync(project);
});
afterAll(() => {
  for (const pid of orphans) killQuietly(pid, 'SIGKILL', true);
  dir.remove();
});

describe('a runner killed with SIGKILL', () => {
  it('is refused a cancel while its lease lives, shows stale once it expires, then cancels', async () => {
    const leaseMs = 3000;
    const exec = spawnCli(
      ['exec', '--project', project, '--lease-ms', String(leaseMs), '--', 'sleep', '60'],
      { store: dir.store },
    );
    const runId = await waitFor('the run id', () => /run (run_\S+)/.exec(exec.stderr)?.[1]);
    const pid = exec.child.pid as number;
    const children = await waitFor('the command to start', () => {
      const found = descendantsOf(pid);
      return found.length > 0 ? found : undefined;
    });
    orphans.push(...children);
    await waitFor('the run to show running', async () => {
      const { body } = await runJson<RunListPage>(['ls'], { store: dir.store });
      return body.ok && body.value.items[0]?.display.status === 'running';
    });

    exec.child.kill('SIGKILL');
    const killedAt = Date.now();
    await exec.done;

    // Before expiry: refused, exit 3, with the hint to request a cooperative cancel.
    const refused = await runCli(['cancel', runId], { store: dir.store });
    expect(Date.now() - killedAt).toBeLessThan((leaseMs / 3) * 2);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/^runwarden: /);
    expect(refused.stderr).toContain(`runwarden cancel --request ${runId}`);
    const early = await runJson<RunListPage>(['ls', '--needs-you'], { store: dir.store });
    expect(early.body.ok && early.body.value.items).toEqual([]);

    // After expiry: stale in `ls --needs-you`, from the lease alone (no sweeper runs here).
    const stale = await waitFor(
      'the run to show stale',
      async () => {
        const { body } = await runJson<RunListPage>(['ls', '--needs-you'], { store: dir.store });
        return body.ok
          ? body.value.items.find((i) => i.run.id === runId && i.display.status === 'stale')
          : undefined;
      },
      leaseMs + 5000,
      200,
    );
    expect(stale.display).toMatchObject({ needsYou: true, liveOwner: false, actions: ['cancel'] });
    const table = await runCli(['ls', '--needs-you'], { store: dir.store });
    expect(table.stdout).toMatch(new RegExp(`${runId}\\s+stale\\s+proj`));

    const cancelled = await runJson<{ run: { status: string } }>(
      ['cancel', runId, '--reason', 'runner died'],
      { store: dir.store },
    );
    expect(cancelled.code).toBe(0);
    expect(cancelled.body).toMatchObject({ ok: true, value: { run: { status: 'cancelled' } } });
    const again = await runCli(['cancel', runId], { store: dir.store });
    expect(again.code).toBe(5);
  });
});
