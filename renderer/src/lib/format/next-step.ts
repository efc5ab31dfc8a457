/** Why a run needs a person and what to do about it, in a few words, for the Needs you list (docs/WINDOW.md#needs-you). */
import type { DisplayInfo } from '$shared/display-status';

/** The next step for a run's display status; empty when nothing is asked of the person. */
export function nextStepText(display: Pick<DisplayInfo, 'status' | 'actions' | 'liveOwner'>): string {
  switch (display.status) {
    case 'needs-answer':
      return 'Answer the question';
    case 'stale':
      return 'Cancel it, or wait for its runner';
    case 'orphaned':
      return display.actions.includes('stopCommand')
        ? 'Stop the command: its runner is gone'
        : 'Stop its command where it runs';
    case 'ambiguous':
      return 'Say whether the effect happened';
    case 'parked':
      return display.actions.includes('resumeAnyway')
        ? 'Check the source change, then resume or cancel'
        : display.liveOwner
          ? 'Its runner holds it: request cancel if stuck'
          : 'Resume or cancel';
    case 'queued':
      return 'Start a runner (runwarden worker), or cancel';
    case 'paused':
      return 'Resume when ready';
    default:
      return display.actions.includes('resolveEffect') ? 'Say whether the effect happened' : '';
  }
}
