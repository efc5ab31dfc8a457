import { describe, expect, it } from 'vitest';
import { cascadeText } from '../../shared/cascade-text';

const cascade = {
  attemptsCancelled: 1,
  attemptsInterrupted: 0,
  effectsCancelled: 3,
  effectsAmbiguous: 2,
  interactionsCancelled: 1,
};

describe('cascadeText', () => {
  it('names each consequence with its count, singular or plural, skipping zeros', () => {
    expect(cascadeText(cascade)).toBe(
      '1 attempt cancelled, 3 pending effects cancelled, 2 applying effects became ambiguous, 1 question cancelled',
    );
  });
  it('speaks of a preview in the conditional', () => {
    expect(
      cascadeText(
        { ...cascade, attemptsCancelled: 0, effectsCancelled: 0, interactionsCancelled: 0 },
        'would',
      ),
    ).toBe('2 applying effects would become ambiguous');
  });
  it('says when nothing else is affected', () => {
    expect(
      cascadeText({
        ...cascade,
        attemptsCancelled: 0,
        effectsCancelled: 0,
        effectsAmbiguous: 0,
        interactionsCancelled: 0,
      }),
    ).toBe('nothing else affected');
  });
});
