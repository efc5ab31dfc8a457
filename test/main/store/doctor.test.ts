import { afterEach, describe, expect, it } from 'vitest';
import { createTempStore, HUMAN, reserve, reserveAndClaim, type TempStore } from '../../helpers/temp-store';
import { expectHealthy, expectInvariants } from './invariants';

let t: TempStore | undefined;
afterEach(() => t?.cleanup());

describe('doctor', () => {
  it('reports a clean store as clean', () => {
    t = createTempStore();
    reserve(t);
    const c = reserveAndClaim(t, 1_000);
    t.clock.advance(1_000);
    const report = t.store.doctor();
    expect(report).toMatchObject({ contradictions: [], staleLeases: 1, integrity: 'ok' });
    expect(report.info.mode).toBe('read-write');
    t.store.cancelRun(c.runId, { reason: 'x', actor: HUMAN });
    expect(t.store.doctor().staleLeases).toBe(0);
    expectHealthy(t.store);
  });

  it('finds each kind of contradiction (and the invariant checker fails on them)', () => {
    t = createTempStore();
    const db = t.store.db;
    const a = reserve(t);
    const b = reserveAndClaim(t);
    t.store.completeRun(b);
    const c = reserveAndClaim(t);
    const d = reserveAndClaim(t);
    db.prepare(`UPDATE queue_entries SET status = 'running' WHERE run_id = ?`).run(a.id); // queued/running
    db.prepare(`UPDATE runs SET revision = revision + 5 WHERE id = ?`).run(c.runId);
    db.prepare(`UPDATE runs SET open_interactions = 3 WHERE id = ?`).run(d.runId);
    db.prepare(`UPDATE attempts SET status = 'running' WHERE run_id = ?`).run(b.runId);
    db.prepare(
      `INSERT INTO attempts (run_id, step, number, status, started_at) VALUES (?, 's', 1, 'running', 0)`,
    ).run(b.runId);
    const problems = t.store.doctor().contradictions;
    expect(problems).toEqual(
      expect.arrayContaining([
        { runId: a.id, problem: 'run is queued but its queue entry is running' },
        { runId: c.runId, problem: 'run revision disagrees with its last event' },
        { runId: d.runId, problem: 'open_interactions counter disagrees with the interactions' },
        { runId: b.runId, problem: 'finished run still has an active attempt' },
      ]),
    );
    expect(() => expectInvariants(t!.store)).toThrow();
  });

  it('finds counts of runs per project and status that disagree with the runs', () => {
    t = createTempStore();
    reserve(t);
    const c = reserveAndClaim(t);
    expect(t.store.doctor().counterDrift).toEqual([]);
    const db = t.store.db;
    // A run moved with no counter moved, and a counter for a status no run has.
    db.prepare(`UPDATE runs SET display_base = 'failed' WHERE id = ?`).run(c.runId);
    db.prepare(
      `INSERT INTO run_counts (project_id, display_base, n) SELECT project_id, 'paused', 2 FROM runs LIMIT 1`,
    ).run();
    expect(t.store.doctor().counterDrift).toEqual([
      { projectPath: t.projectDir, display: 'failed', kept: 0, counted: 1 },
      { projectPath: t.projectDir, display: 'paused', kept: 2, counted: 0 },
      { projectPath: t.projectDir, display: 'running', kept: 1, counted: 0 },
    ]);
    expect(() => expectInvariants(t!.store)).toThrow(/run_counts agrees with the runs/);
  });

  it('reports integrity problems from integrity_check and foreign_key_check', () => {
    t = createTempStore();
    const run = reserve(t);
    t.store.db.pragma('foreign_keys = OFF');
    t.store.db.prepare(`DELETE FROM projects`).run();
    t.store.db.pragma('foreign_keys = ON');
    expect(t.store.doctor().integrity).toMatch(/foreign key: runs row \d+ → missing projects/);
    expect(run.id).toMatch(/^run_/);
  });
});
