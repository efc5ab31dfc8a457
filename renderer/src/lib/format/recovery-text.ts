/** Error recoveries → the button a person presses (errors carry a typed recovery). */
import { assertNever, type Recovery } from '$shared/errors';

export function recoveryLabel(recovery: Recovery): string {
  switch (recovery.kind) {
    case 'refresh':
      return 'Refresh';
    case 'requestCancel':
      return 'Request cancel instead';
    case 'requestPause':
      return 'Request pause instead';
    case 'resolveEffects':
      return 'Resolve the effects first';
    case 'resumeAnyway':
      return 'Resume anyway';
    case 'retryLater':
      return 'Try again';
    case 'stopCommand':
      return 'Stop the command first';
    default:
      return assertNever(recovery, 'recovery');
  }
}
