/**
 * Reserving a run (docs/ARCHITECTURE.md#run-model-and-state-machine): a new run, its queue entry and its
 * ownerless lease, idempotent by request key. A retry reserves through `insertRun` too.
 */
import type { Actor, CommandSpec, Run } from '../../shared/domain';
import { RunwardenError } from '../../shared/errors';
import { newRunId } from './ids';
import { optionalTextWithin, requireText } from './input-checks';
import { canonicalProjectPath, upsertProject } from './projects';
import { toRun, toJson } from './rows';
import { actorOf, commitRun, loadRunRow, type EventActor } from './run-state';
import type { ReserveRunInput } from './store-types';
import type { StoreContext } from './store-context';

function checkCommand(command: CommandSpec | null | undefined): CommandSpec | null {
  if (command === undefined || command === null) return null;
  if (
    !Array.isArray(command.argv) ||
    command.argv.length === 0 ||
    !command.argv.every((a) => typeof a === 'string') ||
    typeof command.cwd !== 'string'
  ) {
    throw new RunwardenError('VALIDATION', 'command must be { argv: string[] (non-empty), cwd: string }.');
  }
  optionalTextWithin(command.argv.join(' '), 'the command line', 'command');
  return { argv: [...command.argv], cwd: command.cwd };
}

/** Inserts a new run, its queue entry and its ownerless lease; runs inside the caller's transaction. */
export function insertRun(
  ctx: StoreContext,
  now: number,
  canonicalPath: string,
  input: ReserveRunInput,
  actor: EventActor,
  payload: Record<string, unknown> = {},
): string {
  const projectId = upsertProject(ctx, canonicalPath, now);
  if (input.parentRunId !== undefined && input.parentRunId !== null) loadRunRow(ctx, input.parentRunId);
  const id = newRunId(now);
  const mode = input.executionMode ?? 'interactive';
  ctx
    .prep(
      `INSERT INTO runs (id, project_id, workflow, title, status, execution_mode, origin_session, parent_run_id, lineage,
         input_json, output_json, command_json, request_key, revision, display_base, created_at, updated_at)
       VALUES (?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?, 'null', ?, ?, 0, 'queued', ?, ?)`,
    )
    .run(
      id,
      projectId,
      input.workflow,
      input.title,
      mode,
      mode === 'headless' ? null : (input.originSession ?? null),
      input.parentRunId ?? null,
      input.lineage ?? null,
      toJson(input.input),
      input.command ? toJson(input.command) : null,
      input.requestKey ?? null,
      now,
      now,
    );
  ctx
    .prep(`INSERT INTO queue_entries (run_id, status, available_at, updated_at) VALUES (?, 'queued', ?, ?)`)
    .run(id, input.availableAt ?? now, now);
  ctx.prep(`INSERT INTO leases (name, run_id, generation) VALUES (?, ?, 0)`).run(`run:${id}`, id);
  commitRun(ctx, id, now, {
    type: 'run.reserved',
    actor,
    payload: {
      workflow: input.workflow,
      title: input.title,
      requestKey: input.requestKey ?? null,
      ...payload,
    },
  });
  return id;
}

export function validateReserveInput(input: ReserveRunInput): void {
  requireText(input.workflow, 'workflow', 'name');
  requireText(input.title, 'title', 'title');
  optionalTextWithin(input.requestKey, 'requestKey', 'key');
  checkCommand(input.command);
  if (
    input.executionMode !== undefined &&
    input.executionMode !== 'interactive' &&
    input.executionMode !== 'headless'
  ) {
    throw new RunwardenError('VALIDATION', 'executionMode must be interactive or headless.');
  }
  if (input.availableAt !== undefined && !Number.isFinite(input.availableAt)) {
    throw new RunwardenError('VALIDATION', 'availableAt must be epoch milliseconds.');
  }
  if (
    input.lineage !== undefined &&
    input.lineage !== null &&
    input.lineage !== 'retry' &&
    input.lineage !== 'continuation'
  ) {
    throw new RunwardenError('VALIDATION', 'lineage must be retry or continuation.');
  }
}

/** Reserves a run (idempotent by requestKey: the same key returns the same run). */
export function reserveRun(ctx: StoreContext, input: ReserveRunInput, actor: Actor, now: number): Run {
  validateReserveInput(input);
  const canonical = canonicalProjectPath(input.projectPath);
  if (input.requestKey !== undefined && input.requestKey !== null) {
    const existing = ctx.prep(`SELECT id FROM runs WHERE request_key = ?`).get(input.requestKey) as
      { id: string } | undefined;
    if (existing !== undefined) return toRun(loadRunRow(ctx, existing.id));
  }
  const id = insertRun(ctx, now, canonical, input, actorOf(actor));
  return toRun(loadRunRow(ctx, id));
}
