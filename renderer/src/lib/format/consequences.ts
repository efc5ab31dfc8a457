/** What a command will do, in words, for its confirmation dialog (docs/WINDOW.md#commands-and-retry). */
import type { DisplayInfo } from '$shared/display-status';
import { assertNever } from '$shared/errors';
import type { BulkAction, CancelPreview, RunDetail } from '$shared/views';
import type { HeaderAction } from '$lib/state/run-detail.svelte';

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The consequence lines for one run's command; `preview` is the store's previewCancel for a cancel. */
export function commandConsequences(action: HeaderAction, preview: CancelPreview | null): string[] {
  switch (action) {
    case 'cancel': {
      const lines = ['The run ends as cancelled. This cannot be undone.'];
      if (preview === null) return [...lines, 'Checking what else the cancel affects…'];
      if (preview.liveOwner)
        lines.push('A runner holds a live lease on this run: the store will refuse. Request cancel instead.');
      const c = preview.cascade;
      if (c.attemptsCancelled > 0)
        lines.push(`${plural(c.attemptsCancelled, 'active step', 'active steps')} will be cancelled.`);
      if (c.attemptsInterrupted > 0)
        lines.push(`${plural(c.attemptsInterrupted, 'step', 'steps')} will be marked interrupted.`);
      if (c.effectsAmbiguous > 0)
        lines.push(
          `${plural(c.effectsAmbiguous, 'applying effect', 'applying effects')} will become ambiguous: you will have to say whether ${c.effectsAmbiguous === 1 ? 'it' : 'they'} happened.`,
        );
      if (c.effectsCancelled > 0)
        lines.push(`${plural(c.effectsCancelled, 'pending effect', 'pending effects')} will be cancelled.`);
      if (c.interactionsCancelled > 0)
        lines.push(
          `${plural(c.interactionsCancelled, 'open question', 'open questions')} will be cancelled.`,
        );
      return lines;
    }
    case 'requestCancel':
      return ['The runner is asked to stop at its next heartbeat and cancels the run itself.'];
    case 'requestPause':
      return ['The runner is asked to park the run at its next heartbeat.'];
    case 'pause':
      return ['No runner will pick the run up until you resume it.'];
    case 'resumeAnyway':
      return [
        'The workflow source changed since this run started.',
        'The run continues on the changed source; steps already done are not re-checked.',
      ];
    case 'resume':
      return ['The run is queued again and a runner can pick it up.'];
    case 'retry':
      return ['A new run starts with the same workflow, input and command. This run stays as it is.'];
    case 'stopCommand':
      return [
        'The runner is gone but its command still runs, unseen.',
        'Its whole process group gets SIGTERM, then SIGKILL after 5 s; the run is then stale and can be cancelled.',
      ];
    default:
      return assertNever(action, 'action');
  }
}

/**
 * What a retry will run again, named from the run itself: its workflow and command, the steps it already went
 * through, and the side effects that will not repeat (docs/WINDOW.md#commands-and-retry: a retry starts a new run with the same
 * workflow, input and command; effects resolved as happened are never applied again).
 */
export function retryConsequences(detail: RunDetail): string[] {
  const run = detail.snapshot.run;
  const lines = [
    `A new run of workflow “${run.workflow}” starts with the same input. This run stays as it is.`,
  ];
  if (run.command !== null && run.command.argv.length > 0) {
    const where = run.command.cwd ? ` in ${run.command.cwd}` : '';
    lines.push(`It runs the command again: ${run.command.argv.join(' ')}${where}.`);
    lines.push(retryEnvironmentLine(run.command.env));
  } else {
    lines.push('It has no command of its own: it waits until a runner for this workflow picks it up.');
  }
  const steps = [...new Set(detail.attempts.map((a) => a.step))];
  if (steps.length > 0)
    lines.push(
      `${plural(steps.length, 'step', 'steps')} this run went through will run again unless the workflow skips them: ${steps.join(', ')}.`,
    );
  const happened = detail.snapshot.effects.filter((e) => e.status === 'applied').length;
  if (happened > 0)
    lines.push(
      `${plural(happened, 'side effect', 'side effects')} that already happened ${happened === 1 ? 'is' : 'are'} not applied again (same idempotency keys).`,
    );
  return lines;
}

/** How a retry's environment is put together (docs/CLI.md#what-exec-records). */
function retryEnvironmentLine(env: Record<string, string | null> | undefined): string {
  if (env === undefined)
    return 'No environment was recorded for this run: it runs with the worker’s environment.';
  const secrets = Object.keys(env).filter((name) => env[name] === null);
  const base = 'It runs with the environment recorded when this run started';
  return secrets.length === 0
    ? `${base}.`
    : `${base}; ${secrets.join(', ')} ${secrets.length === 1 ? 'was' : 'were'} never stored (secret-named) and ${secrets.length === 1 ? 'comes' : 'come'} from the worker’s environment.`;
}

/** The reason a dialog starts with; the person may edit it. */
export function defaultReason(action: HeaderAction, display: DisplayInfo | null): string {
  switch (action) {
    case 'cancel':
      return display?.status === 'stale'
        ? 'Runner stopped heartbeating; cancelled by hand.'
        : 'Cancelled by hand from Runwarden.';
    case 'requestCancel':
      return 'Cancel requested from Runwarden.';
    case 'requestPause':
      return 'Pause requested from Runwarden.';
    case 'pause':
      return 'Paused from Runwarden.';
    case 'resumeAnyway':
      return 'Checked the source change; resuming anyway.';
    case 'resume':
      return 'Resumed from Runwarden.';
    case 'retry':
      return '';
    case 'stopCommand':
      return 'Runner gone, command still running; stopped by hand.';
    default:
      return assertNever(action, 'action');
  }
}

export function bulkVerb(action: BulkAction): string {
  switch (action) {
    case 'cancel':
      return 'Cancel';
    case 'resume':
      return 'Resume';
    case 'retry':
      return 'Retry';
    default:
      return assertNever(action, 'bulk action');
  }
}

/** What a bulk action did, in the past tense: the word the dialog's heading and the toast share. */
export function bulkDone(action: BulkAction): string {
  switch (action) {
    case 'cancel':
      return 'Cancelled';
    case 'resume':
      return 'Resumed';
    case 'retry':
      return 'Retried';
    default:
      return assertNever(action, 'bulk action');
  }
}

/**
 * The one count of a finished bulk action, said the same in the dialog's heading and in the toast:
 * "Cancelled 6 runs, 1 refused".
 */
export function bulkOutcomeText(action: BulkAction, succeeded: number, refused: number): string {
  const done = `${bulkDone(action)} ${plural(succeeded, 'run', 'runs')}`;
  return refused === 0 ? done : `${done}, ${refused} refused`;
}

export function bulkDefaultReason(action: BulkAction): string {
  return `Bulk ${action} from Runwarden.`;
}
