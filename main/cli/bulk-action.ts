/**
 * Bulk `cancel | resume | retry` over a selection (run-selection.ts), with the window's rules: the same
 * `runs:bulk` handler, each run in its own transaction against the revision it was selected at, a
 * per-run result, `--dry-run` writing nothing. More than CONFIRM_ABOVE runs asks on a terminal first
 * (`--yes` skips it; without a terminal nothing is asked).
 */
import { environmentDifferences, type RecordedEnvironment } from '../../shared/command-environment';
import type { BulkAction, BulkItemResult, BulkResult, RetryCommandPreview } from '../../shared/views';
import type { ErrorCode } from '../../shared/errors';
import type { RunStore } from '../store';
import { printResult, type CliContext } from './command';
import { canPrompt, confirm } from './confirm';
import { EXIT, exitCodeForError } from './exit-codes';
import { callHandler } from './handler-call';
import { formatTable } from './output';
import { isBulk, selectionView, selectRuns, type SelectionFlags } from './run-selection';
import { sanitizeLine } from './sanitize';
import { shellCommand } from '../platform/shell-quote';

export const CONFIRM_ABOVE = 5;

/** The selection flags as a command parsed them (SELECTION_OPTIONS). */
export interface SelectionValues {
  stale?: boolean;
  view?: string;
  project?: string;
  'dry-run'?: boolean;
  yes?: boolean;
}

/** What the action records, and (retry) whether it takes runs whose earlier retry has not finished. */
export interface BulkOptions {
  reason: string;
  again: boolean;
}

const VERB: Record<BulkAction, string> = { cancel: 'Cancel', resume: 'Resume', retry: 'Retry' };

/**
 * The runs `cancel | resume | retry` are given, when that is a selection: several ids, a view, a project,
 * or any of them with --dry-run. Null for the one RUN of the command's own form.
 */
export function selectionOf(values: SelectionValues, ids: string[]): SelectionFlags | null {
  const flags = { ids, stale: values.stale, view: values.view, project: values.project };
  return isBulk(flags) || values['dry-run'] === true ? flags : null;
}

/** Runs the action over the selection: its flags checked first, then the store opened. */
export async function runBulkAction(
  ctx: CliContext,
  open: () => RunStore,
  action: BulkAction,
  flags: SelectionFlags,
  values: SelectionValues,
  options: BulkOptions,
): Promise<number> {
  const view = selectionView(flags, ctx.cwd);
  const store = open();
  const dryRun = values['dry-run'] === true;
  const { selected, missing } = selectRuns(store, flags, view);
  const refused: BulkItemResult[] = missing.map((m) => ({
    runId: m.runId,
    ok: false,
    code: 'NOT_FOUND',
    message: m.message,
  }));
  const items = selected;
  if (
    !dryRun &&
    values.yes !== true &&
    items.length > CONFIRM_ABOVE &&
    canPrompt() &&
    !(await confirm(`${VERB[action]} ${items.length} runs?`))
  ) {
    ctx.stderr.write('runwarden: nothing done\n');
    return EXIT.failure;
  }
  const handled: BulkResult =
    items.length === 0
      ? { action, dryRun, succeeded: 0, failed: 0, items: [] }
      : callHandler(store, 'runs:bulk', {
          action,
          items,
          dryRun,
          reason: options.reason,
          ...(action === 'retry' ? { again: options.again } : {}),
        });
  // Back in the order asked: ids first as given, then the view's order.
  const byId = new Map([...handled.items, ...refused].map((item) => [item.runId, item]));
  const order = [...flags.ids, ...selected.map((s) => s.runId)];
  const all = [...new Set(order)].flatMap((id) => {
    const item = byId.get(id);
    return item === undefined ? [] : [item];
  });
  // A retry's preview is compared with the environment it is typed in (docs/CLI.md#what-exec-records).
  for (const item of all) {
    if (item.command?.differences === undefined && item.command !== undefined) {
      const recorded = byRunCommand(store, item.runId);
      item.command.differences = recorded === undefined ? [] : environmentDifferences(recorded, process.env);
    }
  }
  const succeeded = all.filter((item) => item.ok).length;
  const result: BulkResult = {
    action,
    dryRun,
    succeeded,
    failed: all.length - succeeded,
    items: all,
  };
  printResult(ctx, result, () => renderBulk(result, ctx, titlesOf(store, all)));
  const firstFailure = all.find((item) => !item.ok);
  return firstFailure === undefined
    ? EXIT.ok
    : exitCodeForError((firstFailure.code ?? 'CONFLICT') as ErrorCode);
}

/** Each listed run's title, so a person reads which runs, not only ids ('-' for an unknown id). */
function titlesOf(store: RunStore, items: readonly BulkItemResult[]): Map<string, string> {
  const titles = new Map<string, string>();
  for (const item of items) {
    try {
      titles.set(item.runId, store.getSnapshot(item.runId).run.title);
    } catch {
      titles.set(item.runId, '-');
    }
  }
  return titles;
}

function renderBulk(result: BulkResult, ctx: CliContext, titles: Map<string, string>): string {
  if (result.items.length === 0) return 'No runs selected.\n';
  const table = formatTable(
    [
      { header: 'RUN', value: (item: BulkItemResult) => item.runId },
      { header: 'TITLE', value: (item: BulkItemResult) => titles.get(item.runId) ?? '-', max: 40 },
      {
        header: 'RESULT',
        value: (item: BulkItemResult) =>
          item.ok ? (result.dryRun ? 'would' : 'done') : (item.code ?? 'refused'),
        style: (item: BulkItemResult) => (item.ok ? 'green' : 'yellow'),
      },
      { header: 'WHAT', value: (item: BulkItemResult) => item.message, max: 100 },
    ],
    result.items,
    ctx.paint,
  );
  const previews = result.items.flatMap((item) => [
    ...(item.command === undefined ? [] : [retryPreviewText(item.runId, item.command)]),
    ...(item.skips === undefined || item.skips.length === 0 ? [] : [skipsText(item.runId, item.skips)]),
  ]);
  const verb = result.action === 'cancel' ? 'cancelled' : result.action === 'resume' ? 'resumed' : 'retried';
  const summary = result.dryRun
    ? `Dry run: ${result.succeeded} would be ${verb}, ${result.failed} refused; nothing was changed.`
    : `${result.succeeded} ${verb}, ${result.failed} refused.`;
  return `${table}${previews.join('')}${summary}\n`;
}

function byRunCommand(store: RunStore, runId: string): RecordedEnvironment | undefined {
  return store.getRun(runId).command?.env;
}

/** The effects a retry will skip, each with the run that applied it (docs/LIVENESS.md#nested-runs). */
function skipsText(runId: string, skips: NonNullable<BulkItemResult['skips']>): string {
  const lines = [
    `${runId}: a retry skips ${skips.length === 1 ? 'this effect' : 'these effects'}, already applied:`,
  ];
  for (const skip of skips)
    lines.push(`  ${sanitizeLine(skip.key)} (${sanitizeLine(skip.summary)}): applied in run ${skip.runId}`);
  return `${lines.join('\n')}\n`;
}

/** A retry's command, folder and environment in words (sanitised: it is recorded input). */
function retryPreviewText(runId: string, preview: RetryCommandPreview): string {
  const lines = [
    `${runId} would run: ${sanitizeLine(shellCommand(preview.argv))}`,
    `  in ${sanitizeLine(preview.cwd)}`,
  ];
  if (!preview.environmentRecorded) {
    lines.push('  with the worker’s environment (none was recorded for this run)');
  } else {
    const shown = (preview.differences ?? []).filter((d) => d.recorded !== null);
    lines.push(
      shown.length === 0
        ? '  with the environment recorded at its start, the same as here'
        : '  with the environment recorded at its start; these differ from here:',
    );
    for (const d of shown)
      lines.push(
        `    ${sanitizeLine(`${d.name}=${d.recorded ?? ''} (here: ${d.here === null ? 'not set' : d.here})`)}`,
      );
    if (preview.fromWorker.length > 0)
      lines.push(
        `  ${sanitizeLine(preview.fromWorker.join(', '))}: secret-named, never stored; taken from the worker’s environment`,
      );
  }
  return `${lines.join('\n')}\n`;
}
