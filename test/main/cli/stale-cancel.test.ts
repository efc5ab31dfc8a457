import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { descendantsOf } from '../../../main/runner/process-tree';
import type { RunListPage } from '../../../main/store';
import { killQuietly, runCli, runJson, spawnCli, tempDir, waitFor, type TempDir } from '../../helpers/cli';
import { spawnRunwarden } from '../../reliability/liveness-kit';

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
  // A runner this machine cannot judge by pid (another pid namespace: docs/LIVENESS.md), so only its
  // lease clock counts — as for a runner on another host.
  it('whose pid cannot be checked is refused a cancel while its lease lives, shows stale once it expires, then cancels', async () => {
    const leaseMs = 3000;
    const exec = spawnRunwarden(
      ['exec', '--project', project, '--lease-ms', String(leaseMs), '--', 'sleep', '60'],
      {
        store: dir.store,
        cwd: project,
        wrapper: ['unshare', '--pid', '--fork', '--mount-proc'],
      },
    );
    const runId = await waitFor('the run id', () => /run (run_\S+)/.exec(exec.stderr)?.[1]);
    const pid = exec.child.pid as number;
    const children = await waitFor('the command to start', () => {
      const found = descendantsOf(pid);
      return found.length > 1 ? found : undefined;
    });
    orphans.push(...children);
    await waitFor('the run to show running', async () => {
      const { body } = await runJson<RunListPage>(['ls'], { store: dir.store });
      return body.ok && body.value.items[0]?.display.status === 'running';
    });

    // The namespace's first process is the runner: killing it ends everything in the namespace.
    killQuietly(children[0] as number, 'SIGKILL');
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

  it('on this machine is verifiably gone: its command died with it and the run cancels at once', async () => {
    const leaseMs = 60_000;
    const exec = spawnCli(
      ['exec', '--project', project, '--lease-ms', String(leaseMs), '--', 'sleep', '60'],
      {
        store: dir.store,
      },
    );
    const runId = await waitFor('the run id', () => /run (run_\S+)/.exec(exec.stderr)?.[1]);
    const children = await waitFor('the command to start', () => {
      const found = descendantsOf(exec.child.pid as number);
      return found.length > 0 ? found : undefined;
    });
    orphans.push(...children);
    exec.child.kill('SIGKILL');
    await exec.done;
    // The parent-death signal (setpriv --pdeathsig) took the command down with its runner.
    await waitFor('the command to die with exec', () => children.every((child) => !pidLives(child)), 5_000);

    const shown = await runJson<{ display: { status: string; reason: string; actions: string[] } }>(
      ['show', runId],
      {
        store: dir.store,
      },
    );
    expect(shown.body).toMatchObject({
      ok: true,
      value: { display: { status: 'stale', actions: ['cancel'] } },
    });
    expect(shown.body.ok && shown.body.value.display.reason).toContain('is gone');
    // Its lease has most of a minute left; no sweeper runs here.
    const cancelled = await runCli(['cancel', runId, '--reason', 'runner died'], { store: dir.store });
    expect(cancelled.code, cancelled.stderr).toBe(0);
  });
});

function pidLives(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}
