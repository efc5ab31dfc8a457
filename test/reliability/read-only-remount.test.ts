/**
 * docs/LIVENESS.md#outcomes-of-finished-commands: the disk holding the store goes read-only under open
 * connections (ext4 `errors=remount-ro` after a disk error: a 16 MB loop file system and its
 * trigger_fs_error switch; needs root, as CI runs). Writes then fail with SQLITE_IOERR_*; the store says
 * READ_ONLY with its sentence, never INTERNAL ("Something went wrong"), and `exec` honours SIGTERM at once.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openStore } from '../../main/store';
import { RUNNER_ACTOR } from '../helpers/temp-store';
import { runIdOf, spawnRunwarden, waitFor } from './liveness-kit';

let mounted: { image: string; mountPoint: string } | null = null;

/** A fresh ext4 file system that turns read-only on its first error, mounted on a loop device. */
function mountExt4(): { mountPoint: string; goReadOnly: () => void } {
  const image = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'runwarden-ro-img-')), 'fs.img');
  fs.writeFileSync(image, '');
  fs.truncateSync(image, 16 * 1024 * 1024);
  execFileSync('mkfs.ext4', ['-q', '-F', image]);
  const mountPoint = fs.mkdtempSync(path.join(os.tmpdir(), 'runwarden-ro-'));
  execFileSync('mount', ['-o', 'loop,errors=remount-ro', image, mountPoint]);
  mounted = { image, mountPoint };
  const device = path.basename(
    execFileSync('findmnt', ['-n', '-o', 'SOURCE', mountPoint], { encoding: 'utf8' }).trim(),
  );
  return {
    mountPoint,
    goReadOnly: () => fs.writeFileSync(`/sys/fs/ext4/${device}/trigger_fs_error`, 'test\n'),
  };
}

afterEach(() => {
  if (mounted === null) return;
  execFileSync('umount', ['-l', mounted.mountPoint]);
  fs.rmSync(mounted.mountPoint, { recursive: true, force: true });
  fs.rmSync(path.dirname(mounted.image), { recursive: true, force: true });
  mounted = null;
});

it('a write on a file system gone read-only answers READ_ONLY with its sentence', () => {
  const { mountPoint, goReadOnly } = mountExt4();
  const project = path.join(mountPoint, 'proj');
  fs.mkdirSync(project);
  const store = openStore(path.join(mountPoint, 'state.sqlite'));
  try {
    store.reserveRun({ projectPath: project, workflow: 'w', title: 'before' }, RUNNER_ACTOR);
    goReadOnly();
    let error: unknown = null;
    try {
      store.reserveRun({ projectPath: project, workflow: 'w', title: 'after' }, RUNNER_ACTOR);
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code: 'READ_ONLY' });
    expect((error as Error).message).toContain(
      'The store cannot be written: its file or folder is read-only',
    );
  } finally {
    store.close();
  }
});

it('exec on a store gone read-only: SIGTERM is honoured at once, the refusal says READ_ONLY', async () => {
  const { mountPoint, goReadOnly } = mountExt4();
  const project = path.join(mountPoint, 'proj');
  fs.mkdirSync(project);
  const storePath = path.join(mountPoint, 'state.sqlite');
  const exec = spawnRunwarden(
    ['exec', '--project', project, '--lease-ms', '1500', '--', 'sh', '-c', 'while :; do sleep 0.2; done'],
    { store: storePath, cwd: os.tmpdir() },
  );
  const runId = await runIdOf(exec);
  goReadOnly();
  const cancel = spawnRunwarden(['cancel', '--request', runId], { store: storePath, cwd: os.tmpdir() });
  const refused = await cancel.done;
  expect(refused.stderr).toContain('read-only');
  expect(refused.stderr).not.toContain('Something went wrong');
  exec.child.kill('SIGTERM');
  // Honoured at once: exec is gone well before any retry or lease period would end it.
  const end = await waitFor(
    'exec to exit',
    () => (exec.child.exitCode !== null || exec.child.signalCode !== null ? true : undefined),
    5_000,
  );
  expect(end).toBe(true);
  expect(exec.stderr).not.toContain('Store error SQLITE_IOERR');
});
