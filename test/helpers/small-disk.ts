/**
 * A small real file system for full-disk tests: a tmpfs mounted in `beforeAll` (needs root for `mount`, as
 * CI runs) and unmounted in `afterAll` whatever happened, and a helper that fills it to the last byte.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';

export interface SmallDisk {
  /** The mount point; valid from `beforeAll` on. */
  readonly path: string;
}

/** Mounts a tmpfs of `size` (as `mount -o size=` takes it: `512k`, `3m`) for the test file. */
export function smallDisk(prefix: string, size: string): SmallDisk {
  const disk = { path: '' };
  let mounted = false;
  beforeAll(() => {
    disk.path = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', disk.path]);
    mounted = true;
  });
  afterAll(() => {
    if (mounted) execFileSync('umount', ['-l', disk.path]);
    if (disk.path !== '') fs.rmSync(disk.path, { recursive: true, force: true });
  });
  return disk;
}

/** Fills the file system holding `dir` to the last byte with the file `dir/fill`; returns its path. */
export function fillDisk(dir: string): string {
  const file = path.join(dir, 'fill');
  const fd = fs.openSync(file, 'w');
  const block = Buffer.alloc(4096, 1);
  try {
    for (;;) fs.writeSync(fd, block);
  } catch {
    // ENOSPC: now single bytes, for whatever room the last block left.
    try {
      for (;;) fs.writeSync(fd, block, 0, 1);
    } catch {
      // Full.
    }
  } finally {
    fs.closeSync(fd);
  }
  return file;
}
