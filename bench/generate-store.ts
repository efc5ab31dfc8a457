/**
 * Builds a large, valid store fast: bulk INSERTs in big transactions straight into the schema of
 * main/store/migrations, with every denormalised run column computed by the same reducer `commitRun`
 * uses, so `doctor()` finds no contradictions and the list views agree with `displayStatus()`.
 * The mix of states is realistic (mostly finished runs, a few percent live, stale, waiting for a person).
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { DEFAULT_DISPLAY_OPTIONS, displayStatus } from '../shared/display-status';
import type { ActorType, OwnerType, Surface } from '../shared/domain';
import { isTerminalRunStatus } from '../shared/domain';
import { hashToken, newInteractionId, newRunId, newToken } from '../main/store/ids';
import { openStore } from '../main/store/open-store';
import {
  toEffect,
  toInteraction,
  toLease,
  toQueue,
  toRun,
  type EffectRow,
  type InteractionRow,
  type LeaseRow,
  type QueueRow,
  type RunRow,
} from '../main/store/row-mapping';
import { seededRandom, type Random } from './random';

export type RunKind =
  | 'completed'
  | 'failed'
  | 'cancelled'
  | 'timed_out'
  | 'running'
  | 'stale'
  | 'needs-answer'
  | 'queued'
  | 'unattended'
  | 'parked'
  | 'paused'
  | 'ambiguous';

/** Share of each kind; sums to 1. */
export const RUN_MIX: ReadonlyArray<readonly [RunKind, number]> = [
  ['completed', 0.755],
  ['failed', 0.08],
  ['cancelled', 0.04],
  ['timed_out', 0.01],
  ['running', 0.04],
  ['stale', 0.015],
  ['needs-answer', 0.02],
  ['queued', 0.01],
  ['unattended', 0.01],
  ['parked', 0.01],
  ['paused', 0.005],
  ['ambiguous', 0.005],
];

export interface LiveClaim {
  runId: string;
  generation: number;
  token: string;
  ownerType: OwnerType;
  ownerId: string;
}

export interface GenerateOptions {
  storePath: string;
  runs: number;
  projects: number;
  /** Mean events per run (finished and active runs; queued ones have one or two). */
  eventsPerRun: number;
  /** The store's "now": live leases expire hours after it, stale ones expired before it. */
  now: number;
  seed?: number;
  onProgress?: (done: number, total: number) => void;
}

export interface GeneratedStore {
  storePath: string;
  runs: number;
  projects: number;
  events: number;
  attempts: number;
  interactions: number;
  effects: number;
  kinds: Record<RunKind, number>;
  projectPaths: string[];
  /** Live runner leases (running and waiting-for-answer runs), with their tokens. */
  liveClaims: LiveClaim[];
  /** Runs whose runner held a lease and is gone (noticed already): stale-cancel targets, full cascade. */
  staleRunIds: string[];
  /** Pending questions on runs whose runner waits: answer and deadline-expiry targets. */
  pendingInteractions: Array<{ id: string; runId: string; revision: number }>;
  /** A word in ~3% of runs (a workflow name) and one in ~10 runs only (forces a scan). */
  searchCommon: string;
  searchRare: string;
  ms: number;
}

const WORKFLOWS = [
  'deploy-web',
  'nightly-etl',
  'agent-refactor',
  'release-notes',
  'db-migrate',
  'image-build',
  'test-matrix',
  'docs-sync',
  'backup-verify',
  'dep-update',
  'lint-fix',
  'perf-probe',
  'data-export',
  'index-rebuild',
  'cert-renew',
  'agent-triage',
  'agent-review',
  'canary-check',
  'log-rotate',
  'cache-warm',
  'report-weekly',
  'schema-diff',
  'seed-fixtures',
  'bundle-size',
  'i18n-pull',
  'sitemap-gen',
  'search-reindex',
  'api-contract',
  'mobile-build',
  'infra-plan',
] as const;
const VERBS = ['Ship', 'Check', 'Refresh', 'Rebuild', 'Sync', 'Audit', 'Patch', 'Upgrade', 'Verify', 'Tidy'];
const NOUNS = ['billing', 'auth', 'search', 'catalog', 'checkout', 'profile', 'gateway', 'ledger', 'inbox'];
const STEPS = ['prepare', 'build', 'test', 'apply', 'verify', 'publish'];
const PROJECT_WORDS = ['api', 'web', 'infra', 'ml', 'mobile', 'tools', 'docs', 'data', 'ops', 'site'];
const RARE_WORD = 'zebracanary';
const BEFORE_TIME = Number.MIN_SAFE_INTEGER;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface Inserts {
  project: Database.Statement;
  run: Database.Statement;
  queue: Database.Statement;
  lease: Database.Statement;
  attempt: Database.Statement;
  interaction: Database.Statement;
  submission: Database.Statement;
  effect: Database.Statement;
  event: Database.Statement;
}

function prepareInserts(db: Database.Database): Inserts {
  const insert = (table: string, columns: string[]) =>
    db.prepare(
      `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`,
    );
  return {
    project: insert('projects', ['id', 'canonical_path', 'name', 'created_at']),
    run: insert('runs', [
      'id',
      'project_id',
      'workflow',
      'title',
      'status',
      'paused',
      'status_detail',
      'execution_mode',
      'origin_session',
      'parent_run_id',
      'lineage',
      'input_json',
      'output_json',
      'error',
      'command_json',
      'request_key',
      'project_request_key',
      'cancel_requested',
      'pause_requested',
      'current_step',
      'revision',
      'open_interactions',
      'ambiguous_effects',
      'display_base',
      'needs_you_static',
      'owner_expires_at',
      'unattended_since',
      'created_at',
      'updated_at',
      'finished_at',
    ]),
    queue: insert('queue_entries', [
      'run_id',
      'status',
      'available_at',
      'error_code',
      'error_detail',
      'consecutive_errors',
      'updated_at',
    ]),
    lease: insert('leases', [
      'name',
      'run_id',
      'generation',
      'owner_type',
      'owner_id',
      'token_hash',
      'owner_pid',
      'owner_hostname',
      'owner_start_id',
      'acquired_at',
      'heartbeat_at',
      'expires_at',
      'lost_generation',
    ]),
    attempt: insert('attempts', [
      'id',
      'run_id',
      'step',
      'number',
      'status',
      'deadline_at',
      'started_at',
      'finished_at',
      'error',
    ]),
    interaction: insert('interactions', [
      'id',
      'run_id',
      'attempt_id',
      'kind',
      'title',
      'prompt',
      'choices_json',
      'fields_json',
      'default_json',
      'has_default',
      'deadline_at',
      'status',
      'revision',
      'presenter_id',
      'presenter_expires_at',
      'response_json',
      'provenance',
      'created_at',
      'settled_at',
    ]),
    submission: insert('submissions', [
      'interaction_id',
      'idempotency_key',
      'interaction_revision',
      'payload_json',
      'outcome',
      'reason',
      'actor_id',
      'surface',
      'at',
    ]),
    effect: insert('effects', [
      'id',
      'run_id',
      'attempt_id',
      'type',
      'idempotency_key',
      'summary',
      'status',
      'attempt_count',
      'resolution',
      'resolution_note',
      'resolved_by',
      'created_at',
      'updated_at',
    ]),
    event: insert('events', [
      'run_id',
      'run_revision',
      'type',
      'actor_type',
      'actor_id',
      'surface',
      'lease_generation',
      'payload_json',
      'at',
    ]),
  };
}

interface EventSpec {
  type: string;
  actor: ActorType;
  actorId: string | null;
  surface: Surface | null;
  generation: number | null;
  payload: string;
}

function pickKind(rng: Random): RunKind {
  let r = rng.next();
  for (const [kind, share] of RUN_MIX) {
    if (r < share) return kind;
    r -= share;
  }
  return 'completed';
}

const TERMINAL_QUEUE: Record<string, Pick<QueueRow, 'status' | 'error_code'>> = {
  completed: { status: 'done', error_code: null },
  failed: { status: 'failed', error_code: 'failed' },
  timed_out: { status: 'failed', error_code: 'timedOut' },
  cancelled: { status: 'cancelled', error_code: 'cancelled' },
};

const LAST_ATTEMPT: Record<RunKind, AttemptRowStatus | null> = {
  completed: 'completed',
  failed: 'failed',
  timed_out: 'timed_out',
  cancelled: 'cancelled',
  running: 'running',
  stale: 'waiting',
  'needs-answer': 'waiting',
  queued: null,
  unattended: null,
  paused: null,
  parked: 'interrupted',
  ambiguous: 'waiting',
};
type AttemptRowStatus =
  'running' | 'waiting' | 'interrupted' | 'completed' | 'failed' | 'timed_out' | 'cancelled';

/** Generates the store at `storePath` (created fresh; the schema comes from openStore's migrations). */
export function generateStore(opts: GenerateOptions): GeneratedStore {
  const started = performance.now();
  fs.mkdirSync(path.dirname(opts.storePath), { recursive: true, mode: 0o700 });
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${opts.storePath}${suffix}`, { force: true });
  openStore(opts.storePath).close();

  const db = new Database(opts.storePath);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -262144');
  db.pragma('temp_store = MEMORY');
  const ins = prepareInserts(db);
  const rng = seededRandom(opts.seed ?? 20_250_101);
  const now = opts.now;

  const projectPaths: string[] = [];
  db.transaction(() => {
    for (let p = 0; p < opts.projects; p += 1) {
      const name = `${rng.pick(PROJECT_WORDS)}-${String(p).padStart(3, '0')}`;
      const canonical = `/bench/projects/${name}`;
      projectPaths.push(canonical);
      ins.project.run({ id: p + 1, canonical_path: canonical, name, created_at: now - 90 * DAY + p * HOUR });
    }
  })();

  const out: GeneratedStore = {
    storePath: opts.storePath,
    runs: opts.runs,
    projects: opts.projects,
    events: 0,
    attempts: 0,
    interactions: 0,
    effects: 0,
    kinds: Object.fromEntries(RUN_MIX.map(([k]) => [k, 0])) as Record<RunKind, number>,
    projectPaths,
    liveClaims: [],
    staleRunIds: [],
    pendingInteractions: [],
    searchCommon: 'nightly-etl',
    searchRare: RARE_WORD,
    ms: 0,
  };
  let attemptId = 0;
  let effectId = 0;
  const span = 60 * DAY;
  const first = now - span;
  const step = (span - 10 * 60_000) / opts.runs;
  const CHUNK = 5_000;

  const writeRun = (i: number): void => {
    const kind = pickKind(rng);
    out.kinds[kind] += 1;
    const createdAt = Math.floor(first + i * step + rng.next() * step * 0.5);
    const id = newRunId(createdAt);
    // Skewed: a few busy projects, a long tail of quiet ones.
    const projectIndex = Math.min(opts.projects - 1, Math.floor(opts.projects * rng.next() ** 2));
    const projectPath = projectPaths[projectIndex] as string;
    const workflow = rng.pick(WORKFLOWS);
    const rare = i % 10_000 === 4_321;
    const title = `${rng.pick(VERBS)} ${rng.pick(NOUNS)}${rare ? ` ${RARE_WORD}` : ''} #${i}`;
    const terminal =
      kind === 'completed' || kind === 'failed' || kind === 'cancelled' || kind === 'timed_out';
    const neverClaimed = kind === 'queued' || kind === 'unattended' || kind === 'paused';
    const finishedAt = terminal ? Math.min(createdAt + rng.int(30_000, 2 * HOUR), now - 1_000) : null;
    const runner = `runner-${rng.int(1, 16)}`;
    const events: EventSpec[] = [];
    const ev = (
      type: string,
      actor: ActorType,
      actorId: string | null,
      surface: Surface | null,
      generation: number | null,
      payload: unknown = {},
    ) => events.push({ type, actor, actorId, surface, generation, payload: JSON.stringify(payload) });

    ev('run.reserved', 'runner', runner, 'cli', null, { workflow, title, requestKey: null });
    const generation = neverClaimed ? 0 : kind === 'cancelled' ? 2 : 1;
    if (!neverClaimed) {
      ev('run.claimed', 'runner', runner, 'sdk', 1, { ownerType: 'runner', ownerId: runner });
      ev('run.running', 'runner', runner, 'sdk', 1);
    }

    // Attempts, one per step; the last one carries the run's fate.
    const attempts: Array<{ id: number; status: AttemptRowStatus; step: string }> = [];
    const lastStatus = LAST_ATTEMPT[kind];
    const stepCount = lastStatus === null ? 0 : rng.int(1, 3);
    const target = neverClaimed ? 1 : Math.max(6, Math.round(opts.eventsPerRun + rng.int(-6, 6)));
    const tail = kind === 'stale' ? 3 : 2;
    for (let s = 0; s < stepCount; s += 1) {
      attemptId += 1;
      const status = s === stepCount - 1 ? (lastStatus ?? 'completed') : 'completed';
      attempts.push({ id: attemptId, status, step: STEPS[s] as string });
      ev('attempt.started', 'runner', runner, 'sdk', 1, { attemptId, step: STEPS[s] });
      const progress = Math.max(0, Math.floor((target - 3 - stepCount * 2 - tail) / stepCount));
      for (let k = 0; k < progress; k += 1)
        ev('run.progress', 'runner', runner, 'sdk', 1, { detail: `step ${k}` });
      if (status !== 'running' && status !== 'waiting')
        ev('attempt.finished', 'runner', runner, 'sdk', 1, { attemptId, status });
    }
    const lastAttempt = attempts[attempts.length - 1];

    // Effects and interactions by kind.
    const effects: EffectRow[] = [];
    const effect = (status: EffectRow['status'], onAttempt: number | null) => {
      effectId += 1;
      effects.push({
        id: effectId,
        run_id: id,
        attempt_id: onAttempt,
        type: 'http.post',
        idempotency_key: `fx-${effectId}`,
        summary: `POST /deploy/${effectId}`,
        status,
        attempt_count: status === 'pending' ? 0 : 1,
        resolution: null,
        resolution_note: null,
        resolved_by: null,
        created_at: createdAt + 2_000,
        updated_at: createdAt + 3_000,
      });
      ev(`effect.${status === 'pending' ? 'reserved' : status}`, 'runner', runner, 'sdk', 1, { effectId });
    };
    const interactions: InteractionRow[] = [];
    let submission: { interaction: string } | null = null;
    const interaction = (status: InteractionRow['status'], kindOf: 'decision' | 'input') => {
      const at = createdAt + 4_000;
      const iid = newInteractionId(at);
      const hasDefault = kindOf === 'decision' && rng.chance(0.5);
      interactions.push({
        id: iid,
        run_id: id,
        attempt_id: lastAttempt?.id ?? null,
        kind: kindOf,
        title: kindOf === 'decision' ? `Approve ${workflow}?` : 'Release note',
        prompt: 'Check the **diff** before answering.',
        choices_json: kindOf === 'decision' ? '["approve","reject"]' : null,
        fields_json: kindOf === 'input' ? '[{"name":"note","type":"string","required":true}]' : null,
        default_json: hasDefault ? '"approve"' : 'null',
        has_default: hasDefault ? 1 : 0,
        deadline_at: status === 'pending' ? now + DAY : null,
        status,
        revision: status === 'settled' ? 2 : 1,
        presenter_id: null,
        presenter_expires_at: null,
        response_json: status === 'settled' ? '"approve"' : 'null',
        provenance: status === 'settled' ? 'human' : null,
        created_at: at,
        settled_at: status === 'settled' ? at + 60_000 : null,
        asker_pid: null,
        asker_start_id: null,
        asker_hostname: null,
        asker_boot_id: null,
        asker_pid_ns: null,
        withdrawal: null,
      });
      ev('interaction.requested', 'runner', runner, 'sdk', 1, { interactionId: iid, kind: kindOf });
      if (status === 'settled') {
        submission = { interaction: iid };
        ev('interaction.answered', 'human', 'bench', 'app', null, { interactionId: iid });
      }
    };
    if (kind === 'completed' && rng.chance(0.3)) effect('applied', attempts[0]?.id ?? null);
    if (kind === 'completed' && rng.chance(0.1)) interaction('settled', 'decision');
    if (kind === 'stale') {
      effect('pending', null);
      effect('applying', lastAttempt?.id ?? null);
      interaction('pending', 'input');
    }
    if (kind === 'needs-answer') interaction('pending', 'decision');
    if (kind === 'ambiguous') effect('ambiguous', lastAttempt?.id ?? null);

    // Pad to the run's event target, then the closing events.
    const padTo = neverClaimed ? 0 : target - tail + 1;
    while (events.length < padTo) ev('run.progress', 'runner', runner, 'sdk', 1, { detail: 'working' });
    if (terminal) ev(`run.${kind}`, kind === 'cancelled' ? 'human' : 'runner', runner, 'sdk', generation);
    if (kind === 'stale') ev('run.runner_lost', 'host', 'sweeper', 'sweeper', 1, { reason: 'lease expired' });
    if (kind === 'parked' || kind === 'ambiguous') ev('run.parked', 'runner', runner, 'sdk', 1);
    if (kind === 'paused') ev('run.paused', 'human', 'bench', 'app', null, { reason: 'later' });

    // Queue entry and lease.
    const queue: QueueRow = {
      run_id: id,
      status: 'running',
      available_at: createdAt,
      error_code: null,
      error_detail: null,
      consecutive_errors: 0,
      updated_at: createdAt,
    };
    if (terminal) Object.assign(queue, TERMINAL_QUEUE[kind]);
    if (kind === 'failed') queue.error_detail = 'exit code 1';
    if (kind === 'queued')
      Object.assign(queue, { status: 'queued', available_at: now + HOUR + rng.int(0, DAY) });
    if (kind === 'unattended' || kind === 'paused')
      Object.assign(queue, { status: 'queued', available_at: now - 2 * HOUR });
    if (kind === 'parked') {
      const code = rng.chance(0.5) ? 'sourceChanged' : 'runnerExited';
      Object.assign(queue, {
        status: 'parked',
        error_code: code,
        consecutive_errors: code === 'runnerExited' ? 1 : 0,
      });
    }
    if (kind === 'ambiguous') Object.assign(queue, { status: 'parked', error_code: 'effectAmbiguous' });

    const owned = kind === 'running' || kind === 'stale' || kind === 'needs-answer';
    const lease: LeaseRow = {
      name: `run:${id}`,
      run_id: id,
      generation,
      owner_type: null,
      owner_id: null,
      token_hash: null,
      owner_pid: null,
      owner_hostname: null,
      owner_start_id: null,
      acquired_at: null,
      heartbeat_at: null,
      expires_at: null,
      lost_generation: null,
    };
    if (owned) {
      const token = newToken();
      const expiresAt = kind === 'stale' ? now - HOUR - rng.int(0, DAY) : now + 2 * HOUR;
      Object.assign(lease, {
        owner_type: 'runner',
        owner_id: runner,
        token_hash: hashToken(token),
        owner_pid: 200_000 + rng.int(0, 50_000),
        // Not this machine's hostname: the sweeper's pid check must not find these "processes" gone.
        owner_hostname: `bench-runner-host-${rng.int(1, 4)}`,
        acquired_at: createdAt + 1_000,
        heartbeat_at: kind === 'stale' ? expiresAt - 30_000 : now - 1_000,
        expires_at: expiresAt,
        lost_generation: kind === 'stale' ? generation : null,
      });
      if (kind === 'stale') out.staleRunIds.push(id);
      else out.liveClaims.push({ runId: id, generation, token, ownerType: 'runner', ownerId: runner });
    }

    const runStatus: RunRow['status'] = terminal
      ? (kind as RunRow['status'])
      : kind === 'stale' || kind === 'needs-answer' || kind === 'ambiguous'
        ? 'waiting'
        : neverClaimed
          ? 'queued'
          : 'running';
    const run: RunRow = {
      id,
      project_id: projectIndex + 1,
      project_path: projectPath,
      workflow,
      title,
      status: runStatus,
      paused: kind === 'paused' ? 1 : 0,
      status_detail:
        kind === 'needs-answer'
          ? `Waiting for an answer: Approve ${workflow}?`
          : kind === 'cancelled'
            ? 'no longer needed'
            : null,
      execution_mode: rng.chance(0.7) ? 'interactive' : 'headless',
      origin_session: null,
      parent_run_id: null,
      lineage: null,
      input_json: `{"ref":"main","n":${i}}`,
      output_json: kind === 'completed' ? '{"ok":true}' : 'null',
      error: kind === 'failed' ? 'exit code 1\nnpm ERR! build failed' : null,
      command_json: rng.chance(0.3) ? `{"argv":["npm","run","${workflow}"],"cwd":"${projectPath}"}` : null,
      request_key: null,
      project_request_key: null,
      cancel_requested: 0,
      pause_requested: 0,
      current_step: lastAttempt?.step ?? null,
      revision: events.length,
      open_interactions: 0,
      ambiguous_effects: 0,
      display_base: 'queued',
      needs_you_static: 0,
      owner_expires_at: null,
      unattended_since: null,
      created_at: createdAt,
      updated_at: finishedAt ?? createdAt + events.length * 1_000,
      finished_at: finishedAt,
    };
    if (run.execution_mode === 'interactive') run.origin_session = `sess-${rng.int(1, 500)}`;

    // The denormalised view columns, exactly as commitRun computes them.
    const open = interactions.filter((x) => x.status === 'pending' || x.status === 'presenting');
    const ambiguous = effects.filter((x) => x.status === 'ambiguous');
    const base = displayStatus(
      {
        run: toRun(run),
        queue: toQueue(queue),
        lease: toLease(lease),
        interactions: open.map(toInteraction),
        effects: ambiguous.map(toEffect),
      },
      BEFORE_TIME,
      DEFAULT_DISPLAY_OPTIONS,
    );
    run.display_base = base.status;
    run.needs_you_static = base.needsYou ? 1 : 0;
    run.owner_expires_at =
      !isTerminalRunStatus(run.status) && lease.owner_type !== null ? lease.expires_at : null;
    run.unattended_since = base.status === 'queued' && lease.owner_type === null ? queue.available_at : null;
    run.open_interactions = open.length;
    run.ambiguous_effects = ambiguous.length;

    ins.run.run(run);
    ins.queue.run(queue);
    ins.lease.run(lease);
    let t = createdAt + 1_000;
    for (const a of attempts) {
      const done = a.status !== 'running' && a.status !== 'waiting';
      ins.attempt.run({
        id: a.id,
        run_id: id,
        step: a.step,
        number: 1,
        status: a.status,
        deadline_at: null,
        started_at: t,
        finished_at: done ? t + 30_000 : null,
        error: a.status === 'failed' ? 'exit code 1' : null,
      });
      t += 30_000;
    }
    for (const e of effects) ins.effect.run(e);
    for (const x of interactions) {
      ins.interaction.run(x);
      if (x.status === 'pending') out.pendingInteractions.push({ id: x.id, runId: id, revision: x.revision });
    }
    const answered = submission as { interaction: string } | null;
    if (answered !== null) {
      ins.submission.run({
        interaction_id: answered.interaction,
        idempotency_key: `answer-${i}`,
        interaction_revision: 1,
        payload_json: '"approve"',
        outcome: 'accepted',
        reason: null,
        actor_id: 'bench',
        surface: 'app',
        at: createdAt + 64_000,
      });
    }
    events.forEach((e, n) => {
      ins.event.run({
        run_id: id,
        run_revision: n + 1,
        type: e.type,
        actor_type: e.actor,
        actor_id: e.actorId,
        surface: e.surface,
        lease_generation: e.generation,
        payload_json: e.payload,
        at: createdAt + n * 1_000,
      });
    });
    out.events += events.length;
    out.attempts += attempts.length;
    out.effects += effects.length;
    out.interactions += interactions.length;
  };

  for (let start = 0; start < opts.runs; start += CHUNK) {
    const end = Math.min(opts.runs, start + CHUNK);
    db.transaction(() => {
      for (let i = start; i < end; i += 1) writeRun(i);
    })();
    opts.onProgress?.(end, opts.runs);
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  out.ms = performance.now() - started;
  return out;
}
