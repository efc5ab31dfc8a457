/**
 * Which commits wait for an fsync (docs/ARCHITECTURE.md#lease-renewals): an on-time lease renewal commits
 * without one, every other transition keeps `synchronous = FULL`. Counted for real: a child process commits
 * through the runner's side of the store under strace, which records each fsync/fdatasync it makes.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fixturePath } from '../../helpers/paths';
import { createTempStore, reserveAndClaim, type TempStore } from '../../helpers/temp-store';

const COMMITS = 40;

function hasStrace(): boolean {
  try {
    execFileSync('strace', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Runs the fixture under strace; returns how many fsync/fdatasync calls it made and what it printed. */
function syncsOf(t: TempStore, claim: unknown, kind: 'renew' | 'progress'): { syncs: number; last: unknown } {
  const trace = path.join(t.dir, `${kind}.strace`);
  const out = spawnSync(
    'strace',
    [
      '-f',
      '-qq',
      '-e',
      'trace=fsync,fdatasync',
      '-o',
      trace,
      process.execPath,
      fixturePath('renewal-writer'),
      '--store',
      t.path,
      '--claim',
      JSON.stringify(claim),
      '--count',
      String(COMMITS),
      '--kind',
      kind,
    ],
    { encoding: 'utf8' },
  );
  expect(out.status, out.stderr).toBe(0);
  const syncs = fs
    .readFileSync(trace, 'utf8')
    .split('\n')
    .filter((line) => /\b(fsync|fdatasync)\(/.test(line)).length;
  return { syncs, last: JSON.parse(out.stdout) as unknown };
}

describe.skipIf(!hasStrace())('lease renewals and fsync', () => {
  let t: TempStore;
  afterEach(() => t.cleanup());

  it('commits on-time renewals without an fsync each, and every other transition with one', () => {
    // The real clock: the child renews against it, so the lease must be on time by it.
    t = createTempStore({ clock: Date.now });
    const claim = reserveAndClaim(t, 3_600_000);

    const renew = syncsOf(t, claim, 'renew');
    expect(renew.last).toMatchObject({ ok: true });
    const progress = syncsOf(t, claim, 'progress');

    // FULL: each commit syncs the WAL. Renewals: none of their own (closing may sync once or twice).
    expect(progress.syncs).toBeGreaterThanOrEqual(COMMITS);
    expect(renew.syncs).toBeLessThan(COMMITS / 4);
    // The renewals happened: the lease's expiry moved, and no event or revision came with them.
    const detail = t.store.getRunDetail(claim.runId, { eventsLimit: 100 });
    expect(detail.snapshot.lease?.heartbeatAt).toBeGreaterThan(claim.expiresAt - 3_600_000);
    expect(detail.events.some((e) => e.type === 'run.lease_renewed_late')).toBe(false);
  });

  it('keeps the connection FULL after a renewal, and records a late renewal durably', () => {
    t = createTempStore();
    const claim = reserveAndClaim(t, 30_000);
    t.store.heartbeat(claim, 30_000);
    expect(t.store.db.pragma('synchronous', { simple: true })).toBe(2);
    t.clock.advance(45_000);
    const late = t.store.heartbeat(claim, 30_000);
    expect(late).toMatchObject({ ok: true, lapsedMs: 15_000 });
    expect(t.store.db.pragma('synchronous', { simple: true })).toBe(2);
    const detail = t.store.getRunDetail(claim.runId, { eventsLimit: 100 });
    expect(detail.events.filter((e) => e.type === 'run.lease_renewed_late')).toHaveLength(1);
  });
});
