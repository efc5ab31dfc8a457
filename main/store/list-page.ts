/**
 * A list page in one statement: the page query's runs with
 * their queue entry and lease joined in, and what the reducer reads of their open questions and ambiguous
 * effects. Before, a page took up to four more statements (queue entries, leases, questions, effects by id)
 * and mapped every column of those questions and effects, though a list row shows only a reason line.
 *
 * The page query (run-views.ts, `listRunsSql`) keeps its plan; the joins and extras are added to it. Where
 * that plan may sort many candidates (a search), they would be computed for every candidate, so there the
 * page query becomes a subquery and they are read for the page's rows only. Questions and effects are read
 * only when the run's counters say it has some, as the per-row reads did.
 */
import type { DisplaySnapshot } from '../../shared/display-status';
import type { Effect, Interaction } from '../../shared/domain';
import { RunwardenError } from '../../shared/errors';
import {
  OPEN_INTERACTION_SQL,
  RUN_COLUMNS,
  toLease,
  toQueue,
  toRun,
  type LeaseViewRow,
  type QueueRow,
  type RunRow,
} from './row-mapping';

/** An open question as a list page reads it: what the reducer and the next deadline need. */
export type ListInteraction = Pick<Interaction, 'status' | 'title' | 'deadlineAt' | 'createdAt'>;
/** An ambiguous effect as a list page reads it. */
export type ListEffect = Pick<Effect, 'status' | 'summary'>;

/** A page row: the run (RunRow), its queue entry (q_…), its lease (l_…) and the extras as JSON text. */
export interface ListRow extends RunRow {
  /** Null only when the run has no queue entry (refused: the store keeps one per run). */
  q_status: QueueRow['status'] | null;
  q_available_at: number;
  q_error_code: QueueRow['error_code'];
  q_error_detail: string | null;
  q_consecutive_errors: number;
  q_updated_at: number;
  /** Null only when the run has no lease row (refused likewise). */
  l_name: string | null;
  l_generation: number;
  l_owner_type: LeaseViewRow['owner_type'];
  l_owner_id: string | null;
  l_owner_pid: number | null;
  l_owner_hostname: string | null;
  l_owner_start_id: string | null;
  l_acquired_at: number | null;
  l_heartbeat_at: number | null;
  l_expires_at: number | null;
  l_owner_boot_id: string | null;
  l_owner_pid_ns: string | null;
  l_command_pid: number | null;
  l_command_pgid: number | null;
  l_command_start_id: string | null;
  l_vouched_at: number | null;
  l_orphaned_at: number | null;
  /** JSON array of ListInteraction, oldest first; null when the counter says none is open. */
  open_json: string | null;
  /** JSON array of ListEffect, by id; null when the counter says none is ambiguous. */
  ambiguous_json: string | null;
}

const QUEUE_COLUMNS = [
  'status',
  'available_at',
  'error_code',
  'error_detail',
  'consecutive_errors',
  'updated_at',
];

/** The lease columns `toLease` reads (not the token, nor the sweeper's bookkeeping). */
const LEASE_COLUMNS = [
  'name',
  'generation',
  'owner_type',
  'owner_id',
  'owner_pid',
  'owner_hostname',
  'owner_start_id',
  'acquired_at',
  'heartbeat_at',
  'expires_at',
  'owner_boot_id',
  'owner_pid_ns',
  'command_pid',
  'command_pgid',
  'command_start_id',
  'vouched_at',
  'orphaned_at',
];

/** The columns a page row adds to the run's, for the run alias `r` (the table, or the page subquery). */
function extraColumns(r: string): string {
  const queue = QUEUE_COLUMNS.map((c) => `q.${c} AS q_${c}`).join(', ');
  const lease = LEASE_COLUMNS.map((c) => `l.${c} AS l_${c}`).join(', ');
  return `${queue}, ${lease},
  CASE WHEN ${r}.open_interactions > 0 THEN (
    SELECT json_group_array(json_object('status', i.status, 'title', i.title, 'deadlineAt', i.deadline_at,
      'createdAt', i.created_at) ORDER BY i.created_at, i.id)
    FROM interactions i WHERE i.run_id = ${r}.id AND i.status IN ${OPEN_INTERACTION_SQL}) END AS open_json,
  CASE WHEN ${r}.ambiguous_effects > 0 THEN (
    SELECT json_group_array(json_object('status', e.status, 'summary', e.summary) ORDER BY e.id)
    FROM effects e WHERE e.run_id = ${r}.id AND e.status = 'ambiguous') END AS ambiguous_json`;
}

/** Outer joins: a run missing its queue entry or lease is reported, not dropped. */
function extraJoins(r: string): string {
  return `LEFT JOIN queue_entries q ON q.run_id = ${r}.id LEFT JOIN leases l ON l.run_id = ${r}.id`;
}

/**
 * The list statement for a page query's parts (it selects RUN_COLUMNS FROM `from` WHERE `where`, newest
 * first, LIMIT @limit). `sorted`: its plan may sort more than a page of candidates.
 */
export function listRowsSql(from: string, where: string, opts: { sorted: boolean }): string {
  const tail = `ORDER BY r.id DESC LIMIT @limit`;
  if (!opts.sorted) {
    return `SELECT ${RUN_COLUMNS}, ${extraColumns('r')} FROM ${from} ${extraJoins('r')} WHERE ${where} ${tail}`;
  }
  const page = `SELECT ${RUN_COLUMNS} FROM ${from} WHERE ${where} ${tail}`;
  return `SELECT page.*, ${extraColumns('page')} FROM (${page}) page ${extraJoins('page')} ORDER BY page.id DESC`;
}

/** What the reducer and the list row read of a page row. */
export interface ListSnapshot extends DisplaySnapshot {
  interactions: ListInteraction[];
  effects: ListEffect[];
}

export function listRowSnapshot(row: ListRow): ListSnapshot {
  if (row.q_status === null) throw new RunwardenError('INTERNAL', `Run ${row.id} has no queue entry.`);
  if (row.l_name === null) throw new RunwardenError('INTERNAL', `Run ${row.id} has no lease row.`);
  return {
    run: toRun(row),
    queue: toQueue({
      run_id: row.id,
      status: row.q_status,
      available_at: row.q_available_at,
      error_code: row.q_error_code,
      error_detail: row.q_error_detail,
      consecutive_errors: row.q_consecutive_errors,
      updated_at: row.q_updated_at,
    }),
    lease: toLease({
      name: row.l_name,
      run_id: row.id,
      generation: row.l_generation,
      owner_type: row.l_owner_type,
      owner_id: row.l_owner_id,
      owner_pid: row.l_owner_pid,
      owner_hostname: row.l_owner_hostname,
      owner_start_id: row.l_owner_start_id,
      acquired_at: row.l_acquired_at,
      heartbeat_at: row.l_heartbeat_at,
      expires_at: row.l_expires_at,
      owner_boot_id: row.l_owner_boot_id,
      owner_pid_ns: row.l_owner_pid_ns,
      command_pid: row.l_command_pid,
      command_pgid: row.l_command_pgid,
      command_start_id: row.l_command_start_id,
      vouched_at: row.l_vouched_at,
      orphaned_at: row.l_orphaned_at,
    }),
    interactions: row.open_json === null ? [] : (JSON.parse(row.open_json) as ListInteraction[]),
    effects: row.ambiguous_json === null ? [] : (JSON.parse(row.ambiguous_json) as ListEffect[]),
  };
}
