/**
 * Reserving a run (docs/ARCHITECTURE.md#run-model-and-state-machine): a new run, its queue entry and its
 * ownerless lease, idempotent by request key. A retry reserves through `insertRun` too.
 */
import { redactEnvironment } from '../../shared/command-environment';
import type { Actor, CommandSpec, Run } from '../../shared/domain';
import { RunwardenError } from '../../shared/errors';
import { newRunId } from './ids';
import { optionalTextWithin, requireText } from './input-checks';
import { canonicalProjectPath, upsertProject } from './projects';
import { parseJson, TERMINAL_RUN_SQL, toRun, toJson, type RunRow } from './row-mapping';
import { actorOf, commitRun, loadRunRow, type EventActor } from './run-state';
import type { ReserveRunInput } from './store-types';
import type { WritableDB } from './store-context';

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
  const env = checkEnvironment(command.env);
  return { argv: [...command.argv], cwd: command.cwd, ...(env === undefined ? {} : { env }) };
}

/** Generous: an environment is capped by the kernel's argument space, which is larger on some systems. */
const ENVIRONMENT_MAX_CHARS = 1024 * 1024;

/**
 * A command's recorded environment: names and string values, and never the value of a secret-looking
 * name — it is stored as null whatever the caller passed (docs/CLI.md#what-exec-records).
 */
function checkEnvironment(env: unknown): Record<string, string | null> | undefined {
  if (env === undefined || env === null) return undefined;
  const fail = (why: string): never => {
    throw new RunwardenError('VALIDATION', `command.env ${why}.`);
  };
  if (typeof env !== 'object' || Array.isArray(env)) fail('must be an object of name → string');
  const checked: Record<string, string | null> = {};
  let chars = 0;
  for (const [name, value] of Object.entries(env as Record<string, unknown>)) {
    if (name === '' || name.includes('=') || name.includes('\0')) fail(`has an invalid variable name`);
    if (value !== null && typeof value !== 'string') fail(`value of ${name} must be a string`);
    if (typeof value === 'string' && value.includes('\0')) fail(`value of ${name} contains a NUL byte`);
    chars += name.length + (typeof value === 'string' ? value.length : 0);
    checked[name] = value as string | null;
  }
  if (chars > ENVIRONMENT_MAX_CHARS) fail(`is larger than ${ENVIRONMENT_MAX_CHARS} characters`);
  return redactEnvironment(checked);
}

/** Inserts a new run, its queue entry and its ownerless lease; runs inside the caller's transaction. */
export function insertRun(
  ctx: WritableDB,
  now: number,
  canonicalPath: string,
  input: ReserveRunInput,
  actor: EventActor,
  payload: Record<string, unknown> = {},
): string {
  const projectId = upsertProject(ctx, canonicalPath, now);
  if (input.parentRunId !== undefined && input.parentRunId !== null) loadRunRow(ctx, input.parentRunId);
  if (input.enclosingRunId !== undefined && input.enclosingRunId !== null)
    loadRunRow(ctx, input.enclosingRunId);
  const id = newRunId(now);
  const mode = input.executionMode ?? 'interactive';
  ctx
    .prep(
      `INSERT INTO runs (id, project_id, workflow, title, status, execution_mode, origin_session, parent_run_id, lineage,
         enclosing_run_id, input_json, output_json, command_json, project_request_key, revision, display_base,
         created_at, updated_at)
       VALUES (?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?, ?, 'null', ?, ?, 0, 'queued', ?, ?)`,
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
      input.enclosingRunId ?? null,
      toJson(input.input),
      // The checked copy: a secret-looking variable's value is never written (docs/CLI.md#what-exec-records).
      input.command ? toJson(checkCommand(input.command)) : null,
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
      ...(input.enclosingRunId ? { enclosingRunId: input.enclosingRunId } : {}),
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

/** Retry and continuation links followed down from a key's run at most: a lineage is a short chain. */
const MAX_LINEAGE_DEPTH = 1000;

/**
 * The run a request key stands for in a project: the run reserved with it there, or — once a person retried
 * it — the newest run continuing it that has not ended (else the newest of them). So `exec --key K` run again
 * after `runwarden retry` claims the queued retry instead of stopping at the ended run (docs/CLI.md#effects).
 * Keys are per project: the same key in another project is another key (docs/CLI.md#the-same-line-again).
 */
function currentRunOfKey(ctx: WritableDB, canonicalPath: string, requestKey: string): string | undefined {
  const row = ctx
    .prep(
      `WITH RECURSIVE tree(id, depth) AS (
         SELECT r.id, 0 FROM runs r JOIN projects p ON p.id = r.project_id
         WHERE p.canonical_path = @canonicalPath AND r.project_request_key = @requestKey
         UNION
         SELECT r.id, t.depth + 1 FROM runs r JOIN tree t ON r.parent_run_id = t.id
         WHERE r.lineage IS NOT NULL AND t.depth < ${MAX_LINEAGE_DEPTH}
       )
       SELECT r.id FROM tree t JOIN runs r ON r.id = t.id
       ORDER BY r.status NOT IN ${TERMINAL_RUN_SQL} DESC, t.depth DESC, r.created_at DESC, r.id DESC LIMIT 1`,
    )
    .get({ canonicalPath, requestKey }) as { id: string } | undefined;
  return row?.id;
}

/**
 * A key names one piece of work: the command (argv and folder) it was first given with, in its project.
 * Reaching the key's run with another command is refused (CONFLICT), each difference named: reusing the run
 * would run one command under another's record — and, for a retry, skip the retried work.
 */
function refuseOtherWork(row: RunRow, requestKey: string, command: CommandSpec | null): void {
  const recorded = parseJson(row.command_json) as CommandSpec | null;
  const differences: string[] = [];
  const argvOf = (spec: CommandSpec | null) => (spec === null ? 'no command' : JSON.stringify(spec.argv));
  if (argvOf(recorded) !== argvOf(command)) {
    differences.push(`its command is ${argvOf(recorded)}, this one ${argvOf(command)}`);
  }
  if (recorded !== null && command !== null && recorded.cwd !== command.cwd) {
    differences.push(`it runs in the folder ${recorded.cwd}, this one in ${command.cwd}`);
  }
  if (differences.length === 0) return;
  throw new RunwardenError(
    'CONFLICT',
    `The key ${requestKey} names run ${row.id} (${row.status}) in ${row.project_path}, another piece of work: ${differences.join('; ')}. Nothing was run. Give the same command from the same folder to reuse run ${row.id}, or use another key.`,
  );
}

/**
 * Reserves a run, idempotent by requestKey within its project: the same key returns its run, or the retry
 * continuing it (`currentRunOfKey`) — when it was given with the same command in the same folder.
 */
export function reserveRun(ctx: WritableDB, input: ReserveRunInput, actor: Actor, now: number): Run {
  validateReserveInput(input);
  const canonical = canonicalProjectPath(input.projectPath);
  if (input.requestKey !== undefined && input.requestKey !== null) {
    const existing = currentRunOfKey(ctx, canonical, input.requestKey);
    if (existing !== undefined) {
      const row = loadRunRow(ctx, existing);
      refuseOtherWork(row, input.requestKey, checkCommand(input.command));
      return toRun(row);
    }
  }
  const id = insertRun(ctx, now, canonical, input, actorOf(actor));
  return toRun(loadRunRow(ctx, id));
}
