/** Interactions (questions to a person) and their submissions (SPEC §2, §4, §5 step 2). */
import type { Actor, FieldType, Interaction, InteractionField } from '../../shared/domain';
import { RunwardenError } from '../../shared/errors';
import { activeAttempt, getAttempt } from './attempts';
import { newInteractionId } from './ids';
import type { RunSnapshot } from '../../shared/domain';
import {
  RUN_COLUMNS,
  RUN_FROM,
  toInteraction,
  toJson,
  type InteractionRow,
  type LeaseRow,
  type RunRow,
} from './rows';
import {
  actorOf,
  changedViewColumns,
  commitRun,
  conflict,
  fence,
  loadDisplaySnapshots,
  loadRunRow,
  runnerActor,
  viewColumnsOf,
  type ClaimRef,
  type ViewColumn,
} from './run-state';
import { requireText } from './runs';
import type { AnswerResult, RequestInteractionInput } from './store-types';
import { writeTx, type StoreContext } from './store-context';
import { isTerminal } from '../../shared/display-status';

const FIELD_TYPES: readonly FieldType[] = ['string', 'number', 'boolean'];

export function findInteractionRow(ctx: StoreContext, id: string): InteractionRow | undefined {
  return ctx.prep(`SELECT * FROM interactions WHERE id = ?`).get(id) as InteractionRow | undefined;
}

export function loadInteractionRow(ctx: StoreContext, id: string): InteractionRow {
  const row = findInteractionRow(ctx, id);
  if (row === undefined) throw new RunwardenError('NOT_FOUND', `No interaction ${id} in this store.`);
  return row;
}

function checkChoices(choices: unknown): string[] {
  if (!Array.isArray(choices) || choices.length === 0) {
    throw new RunwardenError('VALIDATION', 'A decision needs a non-empty list of choices.');
  }
  const seen = new Set<string>();
  for (const choice of choices) {
    if (typeof choice !== 'string' || choice === '' || seen.has(choice)) {
      throw new RunwardenError('VALIDATION', 'Choices must be distinct non-empty strings.');
    }
    seen.add(choice);
  }
  return choices as string[];
}

function checkFields(fields: unknown): InteractionField[] {
  if (!Array.isArray(fields) || fields.length === 0) {
    throw new RunwardenError('VALIDATION', 'An input interaction needs a non-empty list of fields.');
  }
  const seen = new Set<string>();
  return fields.map((field: unknown) => {
    if (typeof field !== 'object' || field === null)
      throw new RunwardenError('VALIDATION', 'Each field is an object.');
    const f = field as Record<string, unknown>;
    if (typeof f.name !== 'string' || f.name === '' || seen.has(f.name)) {
      throw new RunwardenError('VALIDATION', 'Field names must be distinct non-empty strings.');
    }
    if (!FIELD_TYPES.includes(f.type as FieldType)) {
      throw new RunwardenError(
        'VALIDATION',
        `Field ${f.name} has type ${String(f.type)}; use string, number or boolean.`,
      );
    }
    seen.add(f.name);
    const out: InteractionField = { name: f.name, type: f.type as FieldType };
    if (typeof f.label === 'string') out.label = f.label;
    if (typeof f.required === 'boolean') out.required = f.required;
    return out;
  });
}

/** Problems with a response, one line each; empty when it fits the declared choices / fields. */
export function responseIssues(
  interaction: Pick<Interaction, 'kind' | 'choices' | 'fields'>,
  payload: unknown,
): string[] {
  if (interaction.kind === 'decision') {
    const choices = interaction.choices ?? [];
    return typeof payload === 'string' && choices.includes(payload)
      ? []
      : [`The answer must be one of: ${choices.join(', ')}.`];
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    return ['The answer must be an object with the declared fields.'];
  }
  const issues: string[] = [];
  const values = payload as Record<string, unknown>;
  const fields = interaction.fields ?? [];
  const names = new Set(fields.map((f) => f.name));
  for (const key of Object.keys(values)) {
    if (!names.has(key)) issues.push(`Unknown field ${key}.`);
  }
  for (const field of fields) {
    const has = Object.prototype.hasOwnProperty.call(values, field.name) && values[field.name] !== undefined;
    if (!has) {
      if (field.required === true) issues.push(`Field ${field.name} is required.`);
      continue;
    }
    const value = values[field.name];
    const ok =
      field.type === 'number'
        ? typeof value === 'number' && Number.isFinite(value)
        : typeof value === field.type;
    if (!ok) issues.push(`Field ${field.name} must be a ${field.type}.`);
  }
  return issues;
}

export function requestInteraction(
  ctx: StoreContext,
  claim: ClaimRef,
  input: RequestInteractionInput,
  now: number,
): Interaction {
  requireText(input.title, 'title');
  if (input.kind !== 'decision' && input.kind !== 'input') {
    throw new RunwardenError('VALIDATION', 'kind must be decision or input.');
  }
  const choices = input.kind === 'decision' ? checkChoices(input.choices) : null;
  const fields = input.kind === 'input' ? checkFields(input.fields) : null;
  const hasDefault = input.hasDefault ?? input.defaultResponse !== undefined;
  if (hasDefault) {
    const issues = responseIssues({ kind: input.kind, choices, fields }, input.defaultResponse);
    if (issues.length > 0)
      throw new RunwardenError('VALIDATION', `The default answer does not fit: ${issues[0]}`, { issues });
  }
  if (input.deadlineAt !== undefined && input.deadlineAt !== null && !Number.isFinite(input.deadlineAt)) {
    throw new RunwardenError('VALIDATION', 'deadlineAt must be epoch milliseconds or null.');
  }
  const lease = fence(ctx, claim, now);
  let attemptId: number | null = input.attemptId ?? null;
  if (attemptId !== null) {
    if (getAttempt(ctx, attemptId).run_id !== claim.runId) {
      throw new RunwardenError('VALIDATION', `Attempt ${attemptId} is not part of run ${claim.runId}.`);
    }
  } else {
    attemptId = activeAttempt(ctx, claim.runId)?.id ?? null;
  }
  const id = newInteractionId(now);
  ctx
    .prep(
      `INSERT INTO interactions (id, run_id, attempt_id, kind, title, prompt, choices_json, fields_json, default_json,
         has_default, deadline_at, status, revision, response_json, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', 1, 'null', ?)`,
    )
    .run(
      id,
      claim.runId,
      attemptId,
      input.kind,
      input.title,
      input.prompt ?? '',
      choices === null ? null : toJson(choices),
      fields === null ? null : toJson(fields),
      toJson(hasDefault ? input.defaultResponse : null),
      hasDefault ? 1 : 0,
      input.deadlineAt ?? null,
      now,
    );
  ctx
    .prep(`UPDATE attempts SET status = 'waiting' WHERE run_id = ? AND status IN ('pending', 'running')`)
    .run(claim.runId);
  ctx
    .prep(`UPDATE runs SET status = 'waiting', status_detail = ? WHERE id = ?`)
    .run(`Waiting for an answer: ${input.title}`, claim.runId);
  ctx
    .prep(
      `UPDATE queue_entries SET status = 'running', updated_at = ? WHERE run_id = ? AND status = 'starting'`,
    )
    .run(now, claim.runId);
  commitRun(ctx, claim.runId, now, {
    type: 'interaction.requested',
    actor: runnerActor(lease),
    leaseGeneration: lease.generation,
    payload: {
      interactionId: id,
      kind: input.kind,
      title: input.title,
      deadlineAt: input.deadlineAt ?? null,
    },
  });
  return toInteraction(loadInteractionRow(ctx, id));
}

/** The runner continues once no question is open: run → running. */
export function resumeAfterInteraction(ctx: StoreContext, claim: ClaimRef, now: number): void {
  const lease = fence(ctx, claim, now);
  const run = loadRunRow(ctx, claim.runId);
  if (run.open_interactions > 0) {
    throw conflict(
      ctx,
      claim.runId,
      `Run ${claim.runId} still has ${run.open_interactions} open question(s).`,
    );
  }
  ctx.prep(`UPDATE attempts SET status = 'running' WHERE run_id = ? AND status = 'waiting'`).run(claim.runId);
  ctx.prep(`UPDATE runs SET status = 'running', status_detail = NULL WHERE id = ?`).run(claim.runId);
  ctx
    .prep(`UPDATE queue_entries SET status = 'running', error_code = NULL, updated_at = ? WHERE run_id = ?`)
    .run(now, claim.runId);
  commitRun(ctx, claim.runId, now, {
    type: 'run.running',
    actor: runnerActor(lease),
    leaseGeneration: lease.generation,
  });
}

export interface AnswerInput {
  interactionRevision: number;
  idempotencyKey: string;
  payload: unknown;
  actor: Actor;
}

function recordSubmission(
  ctx: StoreContext,
  row: InteractionRow,
  input: AnswerInput,
  outcome: 'accepted' | 'rejected' | 'adopted',
  reason: string | null,
  now: number,
): void {
  ctx
    .prep(
      `INSERT INTO submissions (interaction_id, idempotency_key, interaction_revision, payload_json, outcome, reason,
         actor_id, surface, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      row.id,
      input.idempotencyKey,
      input.interactionRevision,
      toJson(input.payload),
      outcome,
      reason,
      input.actor.id,
      input.actor.surface,
      now,
    );
}

function refusal(ctx: StoreContext, row: InteractionRow, input: AnswerInput): RunwardenError | null {
  const fresh = toInteraction(row);
  if (row.status !== 'pending' && row.status !== 'presenting') {
    return new RunwardenError('CONFLICT', `This question is no longer open (it is ${row.status}).`, {
      fresh,
    });
  }
  if (row.revision !== input.interactionRevision) {
    return new RunwardenError(
      'STALE_VIEW',
      'This question changed since you looked at it; review it and answer again.',
      {
        fresh,
        recovery: { kind: 'refresh' },
      },
    );
  }
  const run = loadRunRow(ctx, row.run_id);
  if (isTerminal(run))
    return new RunwardenError('CONFLICT', `Run ${run.id} is already ${run.status}.`, { fresh });
  if (run.paused === 1)
    return new RunwardenError('CONFLICT', `Run ${run.id} is paused; resume it before answering.`, { fresh });
  const issues = responseIssues(fresh, input.payload);
  if (issues.length > 0) {
    return new RunwardenError('VALIDATION', `The answer does not fit the question: ${issues.join(' ')}`, {
      issues,
    });
  }
  return null;
}

/**
 * A person's answer (SPEC §4): adopted when the idempotency key was already accepted; otherwise validated
 * and compare-and-set on the interaction revision. Refusals are recorded as rejected submissions.
 */
export function answerInteraction(
  ctx: StoreContext,
  interactionId: string,
  input: AnswerInput,
): AnswerResult {
  requireText(input.idempotencyKey, 'idempotencyKey');
  if (!Number.isInteger(input.interactionRevision)) {
    throw new RunwardenError('VALIDATION', 'interactionRevision must be an integer.');
  }
  const outcome = writeTx(ctx, (now): AnswerResult | RunwardenError => {
    const row = loadInteractionRow(ctx, interactionId);
    const prior = ctx
      .prep(
        `SELECT payload_json FROM submissions WHERE interaction_id = ? AND idempotency_key = ? AND outcome = 'accepted' LIMIT 1`,
      )
      .get(row.id, input.idempotencyKey) as { payload_json: string | null } | undefined;
    if (prior !== undefined) {
      // The same submission again (a retry after a lost reply) is adopted; the same key with another answer
      // is not the same submission, and must not be reported as recorded.
      if (prior.payload_json !== toJson(input.payload)) {
        const mismatch = new RunwardenError(
          'CONFLICT',
          'This question was already answered with a different answer under the same submission key.',
          { fresh: toInteraction(row) },
        );
        recordSubmission(ctx, row, input, 'rejected', `${mismatch.code}: ${mismatch.message}`, now);
        return mismatch;
      }
      recordSubmission(ctx, row, input, 'adopted', null, now);
      return { outcome: 'adopted', interaction: toInteraction(row) };
    }
    const refused = refusal(ctx, row, input);
    if (refused !== null) {
      // Its own transaction holds nothing but the rejected submission: no state changed.
      recordSubmission(ctx, row, input, 'rejected', `${refused.code}: ${refused.message}`, now);
      return refused;
    }
    ctx
      .prep(
        `UPDATE interactions SET status = 'settled', response_json = ?, provenance = 'human', revision = revision + 1,
           settled_at = ?, presenter_id = NULL, presenter_expires_at = NULL WHERE id = ?`,
      )
      .run(toJson(input.payload), now, row.id);
    recordSubmission(ctx, row, input, 'accepted', null, now);
    ctx
      .prep(`UPDATE runs SET status_detail = ? WHERE id = ? AND status = 'waiting'`)
      .run(`Answered: ${row.title}`, row.run_id);
    commitRun(ctx, row.run_id, now, {
      type: 'interaction.answered',
      actor: actorOf(input.actor),
      payload: { interactionId: row.id, idempotencyKey: input.idempotencyKey },
    });
    return { outcome: 'accepted', interaction: toInteraction(loadInteractionRow(ctx, row.id)) };
  });
  if (outcome instanceof RunwardenError) throw outcome;
  return outcome;
}

function runnerHoldsLive(lease: Pick<LeaseRow, 'owner_type' | 'expires_at'>, now: number): boolean {
  return lease.owner_type === 'runner' && lease.expires_at !== null && lease.expires_at > now;
}

export const DEADLINE_SQL = `SELECT id FROM interactions
  WHERE status IN ('pending', 'presenting') AND deadline_at IS NOT NULL AND deadline_at <= ?
  ORDER BY deadline_at LIMIT ?`;

/**
 * Questions settled per write transaction by `expireInteractionDeadlines`: 1,000 deadlines passing at once
 * must not cost 1,000 commits (docs/PERFORMANCE.md), and one transaction must not hold the write lock
 * past ~20 ms at 100k runs (SPEC §5: the sweeper never blocks for long). A batch is ~10 statements
 * whatever its size (`expireDueInteractions`), so its cost is its dirty pages: ~5 per question at 100k runs,
 * ~0.12 ms with their share of the commit. Bigger batches save only the fsyncs (~0.1 ms each here): 100
 * per transaction took as long in total as 40, with twice the lock hold.
 */
export const DEADLINES_PER_TX = 40;

/**
 * Settles or expires one question if it is still open and its deadline has passed: what a waiting runner
 * does when no sweeper runs, without touching any other run's questions.
 */
export function expireInteractionIfDue(ctx: StoreContext, interactionId: string, actor: Actor): boolean {
  return writeTx(ctx, (now) => expireDueInteractions(ctx, [interactionId], actor, now)) > 0;
}

/**
 * Sweeper step 2 (SPEC §5): a default answers with provenance timeout_policy, no default expires
 * (expired_no_default). A live runner reads the outcome itself; otherwise a run without an answer parks.
 * Due questions are settled DEADLINES_PER_TX per transaction; each is re-checked inside its transaction.
 */
export function expireInteractionDeadlines(ctx: StoreContext, limit: number, actor: Actor): number {
  const due = ctx.prep(DEADLINE_SQL).all(ctx.clock(), limit) as Array<{ id: string }>;
  let count = 0;
  for (let i = 0; i < due.length; i += DEADLINES_PER_TX) {
    const batch = due.slice(i, i + DEADLINES_PER_TX).map(({ id }) => id);
    count += writeTx(ctx, (now) => expireDueInteractions(ctx, batch, actor, now));
  }
  return count;
}

interface ExpiredRow {
  id: string;
  run_id: string;
  has_default: number;
  title: string;
}

/** What one expired question appends: its run, the run revision it carries, the event payload. */
type ExpiryEvent = [runId: string, revision: number, payload: string];

/**
 * Settles or expires the questions `ids` (in this order) that are still open and due, in the caller's
 * transaction, with a fixed number of statements for the whole set. The result — rows and events, in the
 * same sequence order — is exactly that of expiring each question in turn as its own run transition
 * (interaction, park, `commitRun`; test/main/store/deadline-expiry.test.ts compares both):
 * - one UPDATE settles (default → timeout_policy) or expires (expired_no_default) every due question;
 * - in `ids` order, a question without a default parks its run (interactionExpired, with its title) when
 *   no live runner holds it and its queue entry is not parked yet — so only the first such question of a run
 *   parks it, and the events say which;
 * - each run's view columns are computed once from its final state (the same as after its last question),
 *   its revision moves by its number of questions, and each question appends its own event with its own
 *   revision. Returns how many questions were settled or expired.
 */
export function expireDueInteractions(
  ctx: StoreContext,
  ids: readonly string[],
  actor: Actor,
  now: number,
): number {
  if (ids.length === 0) return 0;
  const order = new Map(ids.map((id, i) => [id, i]));
  const expired = (
    ctx
      .prep(
        `UPDATE interactions SET status = CASE has_default WHEN 1 THEN 'settled' ELSE 'expired' END,
           response_json = CASE has_default WHEN 1 THEN default_json ELSE 'null' END,
           provenance = CASE has_default WHEN 1 THEN 'timeout_policy' ELSE 'expired_no_default' END,
           revision = revision + 1, settled_at = @now, presenter_id = NULL, presenter_expires_at = NULL
         WHERE id IN (SELECT value FROM json_each(@ids)) AND status IN ('pending', 'presenting')
           AND deadline_at IS NOT NULL AND deadline_at <= @now
         RETURNING id, run_id, has_default, title`,
      )
      .all({ ids: JSON.stringify(ids), now }) as ExpiredRow[]
  ).sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
  if (expired.length === 0) return 0;

  const runIds = [...new Set(expired.map((row) => row.run_id))];
  const runIdsJson = JSON.stringify(runIds);
  const holders = new Map(
    (
      ctx
        .prep(
          `SELECT q.run_id, q.status, l.owner_type, l.expires_at FROM queue_entries q
           JOIN leases l ON l.run_id = q.run_id WHERE q.run_id IN (SELECT value FROM json_each(?))`,
        )
        .all(runIdsJson) as Array<Pick<LeaseRow, 'run_id' | 'owner_type' | 'expires_at'> & { status: string }>
    ).map((row) => [row.run_id as string, { queue: row.status, live: runnerHoldsLive(row, now) }]),
  );
  const parks: Array<[runId: string, detail: string]> = [];
  const outcomes = expired.map((row) => {
    const holder = holders.get(row.run_id);
    if (holder === undefined) {
      throw new RunwardenError('INTERNAL', `Run ${row.run_id} has no queue entry or lease row.`);
    }
    const withDefault = row.has_default === 1;
    const parked = !withDefault && !holder.live && holder.queue !== 'parked';
    if (parked) {
      holder.queue = 'parked';
      parks.push([row.run_id, `No answer to "${row.title}" before its deadline.`]);
    }
    return { row, withDefault, parked };
  });
  if (parks.length > 0) {
    const parksJson = JSON.stringify(parks);
    ctx
      .prep(
        `UPDATE queue_entries SET status = 'parked', error_code = 'interactionExpired', error_detail = p.detail,
           updated_at = @now
         FROM (SELECT value ->> 0 AS run_id, value ->> 1 AS detail FROM json_each(@parks)) AS p
         WHERE queue_entries.run_id = p.run_id`,
      )
      .run({ parks: parksJson, now });
    ctx
      .prep(
        `UPDATE runs SET status = 'waiting'
         WHERE id IN (SELECT value ->> 0 FROM json_each(?)) AND status = 'queued'`,
      )
      .run(parksJson);
  }

  // Each run once, from its state after all its questions: what the last of its transitions would write.
  const rows = ctx
    .prep(`SELECT ${RUN_COLUMNS} FROM ${RUN_FROM} WHERE r.id IN (SELECT value FROM json_each(?))`)
    .all(runIdsJson) as RunRow[];
  if (rows.length !== runIds.length) {
    throw new RunwardenError('INTERNAL', 'A question refers to a run that is not in this store.');
  }
  const snapshots = loadDisplaySnapshots(ctx, rows, { readAll: true });
  const revisions = new Map(rows.map((row) => [row.id, row.revision]));
  const events: ExpiryEvent[] = outcomes.map(({ row, withDefault, parked }) => {
    const revision = (revisions.get(row.run_id) ?? 0) + 1;
    revisions.set(row.run_id, revision);
    const payload = toJson({
      interactionId: row.id,
      provenance: withDefault ? 'timeout_policy' : 'expired_no_default',
      parked,
    });
    return [row.run_id, revision, payload];
  });
  // One UPDATE per set of moved view columns (few distinct sets): only moved columns are named in SET.
  const byChange = new Map<string, { columns: ViewColumn[]; runs: Array<Record<string, unknown>> }>();
  rows.forEach((row, i) => {
    const view = viewColumnsOf(ctx, row, snapshots[i] as RunSnapshot);
    const columns = changedViewColumns(row, view);
    const key = columns.join(',');
    const group = byChange.get(key) ?? { columns, runs: [] };
    const values: Record<string, unknown> = { id: row.id, revision: revisions.get(row.id) };
    for (const column of columns) values[column] = view[column];
    group.runs.push(values);
    byChange.set(key, group);
  });
  for (const { columns, runs } of byChange.values()) {
    ctx
      .prep(
        `UPDATE runs SET revision = v.revision, updated_at = @now${columns.map((c) => `, ${c} = v.${c}`).join('')}
         FROM (SELECT value ->> 'id' AS id, value ->> 'revision' AS revision${columns
           .map((c) => `, value ->> '${c}' AS ${c}`)
           .join('')} FROM json_each(@runs)) AS v
         WHERE runs.id = v.id`,
      )
      .run({ runs: JSON.stringify(runs), now });
  }
  const eventActor = actorOf(actor);
  ctx
    .prep(
      `INSERT INTO events (run_id, run_revision, type, actor_type, actor_id, surface, lease_generation, payload_json, at)
       SELECT value ->> 0, value ->> 1, 'interaction.expired', @actorType, @actorId, @surface, NULL, value ->> 2, @now
       FROM json_each(@events) ORDER BY key`,
    )
    .run({
      events: JSON.stringify(events),
      actorType: eventActor.type,
      actorId: eventActor.id,
      surface: eventActor.surface,
      now,
    });
  return expired.length;
}

/** Claims a question for one presenter (a dialog showing it) for `ttlMs`; no run revision change. */
export function presentInteraction(
  ctx: StoreContext,
  interactionId: string,
  presenterId: string,
  ttlMs: number,
  now: number,
): Interaction {
  requireText(presenterId, 'presenterId');
  const row = loadInteractionRow(ctx, interactionId);
  const free =
    row.status === 'pending' ||
    (row.status === 'presenting' &&
      (row.presenter_id === presenterId ||
        (row.presenter_expires_at !== null && row.presenter_expires_at <= now)));
  if (!free) {
    throw new RunwardenError(
      'CONFLICT',
      `This question is ${row.status === 'presenting' ? 'being answered elsewhere' : row.status}.`,
      {
        fresh: toInteraction(row),
      },
    );
  }
  ctx
    .prep(
      `UPDATE interactions SET status = 'presenting', presenter_id = ?, presenter_expires_at = ? WHERE id = ?`,
    )
    .run(presenterId, now + ttlMs, interactionId);
  return toInteraction(loadInteractionRow(ctx, interactionId));
}

export const EXPIRE_PRESENTERS_SQL = `UPDATE interactions SET status = 'pending', presenter_id = NULL, presenter_expires_at = NULL
  WHERE id IN (SELECT id FROM interactions WHERE status = 'presenting' AND presenter_expires_at <= ?
               ORDER BY presenter_expires_at LIMIT ?)`;

/** Expired presenter claims go back to pending (SPEC §5 step 2). No run revision change: both are "open". */
export function expirePresenterClaims(ctx: StoreContext, limit: number, now: number): number {
  return ctx.prep(EXPIRE_PRESENTERS_SQL).run(now, limit).changes;
}
