/**
 * The consequences of a stale cancel (docs/ARCHITECTURE.md#run-model-and-state-machine) in words, for the UI, bulk results and the CLI alike:
 * "2 applying effects became ambiguous, 1 question cancelled" (or "would become …" for a preview).
 */
import type { CancelCascade } from './views';

type Tense = 'did' | 'would';

const PARTS: ReadonlyArray<[keyof CancelCascade, string, string, Record<Tense, string>]> = [
  ['attemptsCancelled', 'attempt', 'attempts', { did: 'cancelled', would: 'would be cancelled' }],
  ['attemptsInterrupted', 'attempt', 'attempts', { did: 'interrupted', would: 'would be interrupted' }],
  [
    'effectsCancelled',
    'pending effect',
    'pending effects',
    { did: 'cancelled', would: 'would be cancelled' },
  ],
  [
    'effectsAmbiguous',
    'applying effect',
    'applying effects',
    { did: 'became ambiguous', would: 'would become ambiguous' },
  ],
  ['interactionsCancelled', 'question', 'questions', { did: 'cancelled', would: 'would be cancelled' }],
];

export function cascadeText(cascade: CancelCascade, tense: Tense = 'did'): string {
  const parts = PARTS.filter(([key]) => cascade[key] > 0).map(([key, one, many, verb]) => {
    const n = cascade[key];
    return `${n} ${n === 1 ? one : many} ${verb[tense]}`;
  });
  return parts.length === 0 ? 'nothing else affected' : parts.join(', ');
}
