/**
 * A person's writes: cancelling a stale run with the full cancel cascade, and answering a question.
 * Each baseline is the same writes as raw statements in one BEGIN IMMEDIATE transaction.
 */
import type Database from 'better-sqlite3';
import type { Actor } from '../shared/domain';
import type { RunStore } from '../main/store';
import { timedMeasurement, type Measurement } from './report-model';
import { measurePaired } from './stats';

const ACTOR: Actor = { type: 'human', id: 'bench', surface: 'app' };

function rawCancel(db: Database.Database): (runId: string) => void {
  const s = {
    interrupt: db.prepare(`UPDATE attempts SET status = 'interrupted', finished_at = @now WHERE run_id = @id
      AND status IN ('pending','running','waiting')
      AND id IN (SELECT attempt_id FROM effects WHERE run_id = @id AND status = 'applying')`),
    cancelAttempts: db.prepare(
      `UPDATE attempts SET status = 'cancelled', finished_at = @now WHERE run_id = @id AND status IN ('pending','running','waiting')`,
    ),
    ambiguous: db.prepare(
      `UPDATE effects SET status = 'ambiguous', updated_at = @now WHERE run_id = @id AND status = 'applying'`,
    ),
    cancelEffects: db.prepare(
      `UPDATE effects SET status = 'cancelled', updated_at = @now WHERE run_id = @id AND status = 'pending'`,
    ),
    interactions:
      db.prepare(`UPDATE interactions SET status = 'cancelled', revision = revision + 1, settled_at = @now
      WHERE run_id = @id AND status IN ('pending', 'presenting')`),
    run: db.prepare(`UPDATE runs SET status = 'cancelled', finished_at = @now, revision = revision + 1, updated_at = @now,
      display_base = 'cancelled', needs_you_static = 0, owner_expires_at = NULL, unattended_since = NULL,
      open_interactions = 0, ambiguous_effects = (SELECT count(*) FROM effects WHERE run_id = @id AND status = 'ambiguous')
      WHERE id = @id RETURNING revision`),
    queue: db.prepare(
      `UPDATE queue_entries SET status = 'cancelled', error_code = 'cancelled', updated_at = @now WHERE run_id = @id`,
    ),
    lease:
      db.prepare(`UPDATE leases SET generation = generation + 1, owner_type = NULL, owner_id = NULL, token_hash = NULL,
      owner_pid = NULL, owner_hostname = NULL, owner_start_id = NULL, acquired_at = NULL, heartbeat_at = NULL,
      expires_at = NULL WHERE run_id = @id`),
    event:
      db.prepare(`INSERT INTO events (run_id, run_revision, type, actor_type, actor_id, surface, payload_json, at)
      VALUES (@id, @rev, 'run.cancelled', 'human', 'bench', 'app', '{"stale":true}', @now)`),
  };
  const count = rawCountMove(db);
  const tx = db.transaction((id: string) => {
    const p = { id, now: Date.now() };
    count(id, 'cancelled');
    s.interrupt.run(p);
    s.cancelAttempts.run(p);
    s.ambiguous.run(p);
    s.cancelEffects.run(p);
    s.interactions.run(p);
    const { revision } = s.run.get(p) as { revision: number };
    s.queue.run(p);
    s.lease.run(p);
    s.event.run({ ...p, rev: revision });
  });
  return (id) => tx.immediate(id);
}

/** What the app does beside a run's display move: its old and new status counters (migration 0012). */
function rawCountMove(db: Database.Database): (id: string, to: string) => void {
  const read = db.prepare(`SELECT project_id AS p, display_base AS d FROM runs WHERE id = ?`);
  const down = db.prepare(`UPDATE run_counts SET n = n - 1 WHERE project_id = @p AND display_base = @d`);
  const up = db.prepare(`INSERT INTO run_counts (project_id, display_base, n) VALUES (@p, @to, 1)
    ON CONFLICT (project_id, display_base) DO UPDATE SET n = n + 1`);
  return (id, to) => {
    const row = read.get(id) as { p: number; d: string };
    if (row.d === to) return;
    down.run(row);
    up.run({ p: row.p, to });
  };
}

function rawAnswer(db: Database.Database): (interactionId: string, runId: string) => void {
  const s = {
    interaction:
      db.prepare(`UPDATE interactions SET status = 'settled', response_json = '"approve"', provenance = 'human',
      revision = revision + 1, settled_at = @now WHERE id = @iid AND status IN ('pending', 'presenting')`),
    submission:
      db.prepare(`INSERT INTO submissions (interaction_id, idempotency_key, interaction_revision, payload_json,
      outcome, actor_id, surface, at) VALUES (@iid, @iid, 1, '"approve"', 'accepted', 'bench', 'app', @now)`),
    run: db.prepare(`UPDATE runs SET status_detail = 'Answered', revision = revision + 1, updated_at = @now,
      display_base = 'running', needs_you_static = 0, open_interactions = open_interactions - 1 WHERE id = @id RETURNING revision`),
    event:
      db.prepare(`INSERT INTO events (run_id, run_revision, type, actor_type, actor_id, surface, payload_json, at)
      VALUES (@id, @rev, 'interaction.answered', 'human', 'bench', 'app', '{}', @now)`),
  };
  const count = rawCountMove(db);
  const tx = db.transaction((iid: string, id: string) => {
    const p = { iid, id, now: Date.now() };
    count(id, 'running');
    s.interaction.run(p);
    s.submission.run(p);
    const { revision } = s.run.get(p) as { revision: number };
    s.event.run({ ...p, rev: revision });
  });
  return (iid, id) => tx.immediate(iid, id);
}

/** Splits a pool into an app half and a baseline half, so each repetition gets a fresh target. */
function halves<T>(pool: readonly T[]): [T[], T[]] {
  const app: T[] = [];
  const base: T[] = [];
  pool.forEach((item, i) => (i % 2 === 0 ? app : base).push(item));
  return [app, base];
}

export function measureStaleCancel(
  store: RunStore,
  staleRunIds: readonly string[],
  log: (line: string) => void,
): Measurement {
  const [app, base] = halves(staleRunIds);
  const reps = Math.min(300, app.length - 10, base.length - 10);
  const cascade = { attempts: 0, effects: 0, interactions: 0 };
  const raw = rawCancel(store.db);
  const samples = measurePaired(
    (i) => {
      const out = store.cancelRun(app[i] as string, { reason: 'bench: runner is gone', actor: ACTOR });
      cascade.attempts += out.cascade.attemptsInterrupted + out.cascade.attemptsCancelled;
      cascade.effects += out.cascade.effectsAmbiguous + out.cascade.effectsCancelled;
      cascade.interactions += out.cascade.interactionsCancelled;
    },
    (i) => raw(base[i] as string),
    { reps, warmup: 10 },
  );
  const m = timedMeasurement(
    'cancel.stale-cascade',
    'cancel a stale run, full cascade',
    'writes',
    samples,
    2,
    'each run: 1 active attempt, 1 pending + 1 applying effect, 1 open question',
  );
  const n = reps + 10;
  m.extra = {
    attemptsPerCancel: cascade.attempts / n,
    effectsPerCancel: cascade.effects / n,
    interactionsPerCancel: cascade.interactions / n,
  };
  log(`  ${m.label}: median ${m.median} ms, p95 ${m.p95} ms (×${m.ratio})`);
  return m;
}

export function measureAnswer(
  store: RunStore,
  pending: ReadonlyArray<{ id: string; runId: string; revision: number }>,
  log: (line: string) => void,
): Measurement {
  const [app, base] = halves(pending);
  const reps = Math.min(300, app.length - 10, base.length - 10);
  const raw = rawAnswer(store.db);
  const samples = measurePaired(
    (i) => {
      const target = app[i] as { id: string; revision: number };
      store.answerInteraction(target.id, {
        interactionRevision: target.revision,
        idempotencyKey: `bench-${target.id}`,
        payload: 'approve',
        actor: ACTOR,
      });
    },
    (i) => {
      const target = base[i] as { id: string; runId: string };
      raw(target.id, target.runId);
    },
    { reps, warmup: 10 },
  );
  const m = timedMeasurement('answer.interaction', 'answer a question', 'writes', samples, null);
  log(`  ${m.label}: median ${m.median} ms, p95 ${m.p95} ms (×${m.ratio})`);
  return m;
}
