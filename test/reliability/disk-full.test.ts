/**
 * docs/LIVENESS.md#outcomes-of-finished-commands: the store lives on a 3 MB tmpfs and the command fills it,
 * then exits 0. `runwarden exec` cannot record the outcome (DISK_FULL, said in words), keeps its lease past
 * its expiry and tries again; once space returns it renews the lapsed lease and records the completion —
 * exactly once. Needs root for `mount -t tmpfs` (CI runs as root); the mount is undone in every case.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openStore } from '../../main/store';
import { printCounts, runIdOf, spawnRunwarden, waitFor, type Spawned } from './liveness-kit';

let mountPoint: string;
let mounted = false;
beforeAll(() => {
  mountPoint = mkdtempSync(join(tmpdir(), 'runwarden-full-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', mountPoint]);
  mounted = true;
});
afterAll(() => {
  if (mounted) execFileSync('umount', ['-l', mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

it('disk full: the outcome of a finished command is recorded once space returns', async () => {
  const store = join(mountPoint, 'state.sqlite');
  const project = join(mountPoint, 'proj');
  mkdirSync(project);
  const fill = join(mountPoint, 'fill');
  let exec: Spawned | null = null;
  try {
    exec = spawnRunwarden(
      [
        'exec',
        '--project',
        project,
        '--lease-ms',
        '1500',
        '--',
        'sh',
        '-c',
        `dd if=/dev/zero of=${fill} bs=16k 2>/dev/null; exit 0`,
      ],
      { store, cwd: project },
    );
    const running = exec;
    const runId = await runIdOf(running);
    await waitFor(
      'the runner to keep trying',
      () => running.stderr.includes('trying again until it is recorded'),
      30_000,
    );
    // The lease lapses while the disk is full (its renewals cannot be written).
    await waitFor('the lease to lapse', () => {
      const reader = openStore(store, { readonly: true });
      try {
        const expiresAt = reader.getSnapshot(runId).lease?.expiresAt;
        return expiresAt !== undefined && expiresAt !== null && Date.now() > expiresAt;
      } finally {
        reader.close();
      }
    });
    expect(running.child.exitCode, running.stderr).toBeNull();
    const during = openStore(store, { readonly: true });
    const statusDuring = during.getRun(runId).status;
    during.close();
    rmSync(fill);
    const end = await running.done;
    const after = openStore(store, { readonly: true });
    const detail = after.getRunDetail(runId, { eventsLimit: 200 });
    after.close();
    const completed = detail.events.filter((e) => e.type === 'run.completed').length;
    printCounts('disk full', {
      statusWhileFull: statusDuring,
      exit: end.code,
      completedEvents: completed,
      renewedLate: detail.events.filter((e) => e.type === 'run.lease_renewed_late').length,
      saidDiskFull: running.stderr.includes('disk holding the store is full'),
    });
    expect(statusDuring).toBe('running');
    expect(end.code, end.stderr).toBe(0);
    expect(running.stderr).toContain('The disk holding the store is full');
    expect(detail.snapshot.run.status).toBe('completed');
    expect(completed).toBe(1);
  } finally {
    exec?.child.kill('SIGKILL');
    rmSync(fill, { force: true });
  }
});
