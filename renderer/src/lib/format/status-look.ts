/** Display status → what a person sees: a word, an icon and a colour token (never colour alone). */
import type { DisplayStatus, RunAction } from '$shared/display-status';
import { assertNever } from '$shared/errors';

export type Tone = 'attention' | 'danger' | 'warning' | 'info' | 'success' | 'neutral';

export interface StatusLook {
  label: string;
  icon: string;
  tone: Tone;
}

/** The badge for a display status. */
export function statusLook(status: DisplayStatus): StatusLook {
  switch (status) {
    case 'needs-answer':
      return { label: 'Needs answer', icon: '?', tone: 'attention' };
    case 'stale':
      return { label: 'Stale', icon: '⚠', tone: 'danger' };
    case 'orphaned':
      return { label: 'Orphaned', icon: '⊗', tone: 'danger' };
    case 'ambiguous':
      return { label: 'Ambiguous', icon: '≈', tone: 'warning' };
    case 'parked':
      return { label: 'Parked', icon: '◇', tone: 'warning' };
    case 'paused':
      return { label: 'Paused', icon: '‖', tone: 'neutral' };
    case 'running':
      return { label: 'Running', icon: '▶', tone: 'info' };
    case 'waiting':
      return { label: 'Waiting', icon: '…', tone: 'info' };
    case 'queued':
      return { label: 'Queued', icon: '○', tone: 'neutral' };
    case 'failed':
      return { label: 'Failed', icon: '✕', tone: 'danger' };
    case 'timed_out':
      return { label: 'Timed out', icon: '◔', tone: 'danger' };
    case 'cancelled':
      return { label: 'Cancelled', icon: '⊘', tone: 'neutral' };
    case 'completed':
      return { label: 'Completed', icon: '✓', tone: 'success' };
    default:
      return assertNever(status, 'display status');
  }
}

/** Button label for each action the display reducer allows. */
export function actionLabel(action: RunAction): string {
  switch (action) {
    case 'answer':
      return 'Answer';
    case 'cancel':
      return 'Cancel run…';
    case 'requestCancel':
      return 'Request cancel…';
    case 'requestPause':
      return 'Request pause…';
    case 'pause':
      return 'Pause…';
    case 'resume':
      return 'Resume';
    case 'resumeAnyway':
      return 'Resume anyway…';
    case 'resolveEffect':
      return 'Resolve effects';
    case 'retry':
      return 'Retry…';
    case 'stopCommand':
      return 'Stop the command…';
    default:
      return assertNever(action, 'run action');
  }
}

/** Actions that change or end a run irreversibly and therefore go through a confirmation dialog. */
export function needsConfirmation(action: RunAction): boolean {
  return (
    action === 'cancel' ||
    action === 'requestCancel' ||
    action === 'requestPause' ||
    action === 'pause' ||
    action === 'resumeAnyway' ||
    action === 'retry' ||
    action === 'stopCommand'
  );
}
