/**
 * A side effect in words (docs/WINDOW.md#side-effects): its status as what is known of it, a person's
 * resolution as what they said, and what each answer to an unknown outcome means for a resume or a retry
 * (docs/CLI.md#effects: an applied key is never run again; a key that did not happen is run again by a retry,
 * and refused in the same run, where the script needs a new key to try again).
 */
import type { Effect, EffectResolution } from '$shared/domain';

/** The status as what is known: "did not happen", never the stored word "rejected". */
export function effectStatusText(effect: Pick<Effect, 'status' | 'resolution'>): string {
  switch (effect.status) {
    case 'pending':
      return 'not started';
    case 'applying':
      return 'in progress';
    case 'applied':
      return 'happened';
    case 'rejected':
      return 'did not happen';
    case 'ambiguous':
      return 'outcome unknown';
    case 'cancelled':
      return 'cancelled before it started';
  }
}

/** What a person said, with who and why: "It did not happen (alice): the bank shows no charge". */
export function resolutionText(
  effect: Pick<Effect, 'resolution' | 'resolvedBy' | 'resolutionNote'>,
): string | null {
  if (effect.resolution === null) return null;
  const said = effect.resolution === 'applied' ? 'It happened' : 'It did not happen';
  const who = effect.resolvedBy ? ` (said by ${effect.resolvedBy})` : '';
  const note = effect.resolutionNote ? `: ${effect.resolutionNote}` : '';
  return `${said}${who}${note}`;
}

/** The confirmation's heading for an answer. */
export function resolveHeading(resolution: EffectResolution): string {
  return resolution === 'applied' ? 'Record that it happened?' : 'Record that it did not happen?';
}

/** What recording this answer means, line by line, for the confirmation. */
export function resolveConsequences(resolution: EffectResolution): string[] {
  if (resolution === 'applied') {
    return [
      'It counts as done: a resume or a retry will not run it again (the same key is skipped).',
      'If it did not in fact happen, nothing will do it: it stays undone.',
      'This cannot be changed afterwards.',
    ];
  }
  return [
    'A retry runs it again (the same key is tried once more).',
    'A resume of this run refuses the same key: the script must use a new key to try it again.',
    'If it did in fact happen, running it again may do it twice.',
    'This cannot be changed afterwards.',
  ];
}
