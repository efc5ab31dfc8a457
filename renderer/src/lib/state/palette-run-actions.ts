/**
 * The actions the command palette offers for the selected run: those its display status allows, except that
 * a run with ambiguous effects is not retried (a retry could repeat an effect that may already have
 * happened) and offers resolving them first.
 */
import type { RunAction } from '$shared/display-status';

export function paletteRunActions(allowed: readonly RunAction[], ambiguousEffects: number): RunAction[] {
  const actions = allowed.filter((a) => !(a === 'retry' && ambiguousEffects > 0));
  if (ambiguousEffects > 0 && !actions.includes('resolveEffect')) actions.unshift('resolveEffect');
  return actions;
}
