import { describe, expect, it } from 'vitest';
import { paletteRunActions } from '../../../renderer/src/lib/state/palette-run-actions';

describe('paletteRunActions (the selected run’s actions in the command palette)', () => {
  it('offers the allowed actions as they are when no effect is ambiguous', () => {
    expect(paletteRunActions(['retry', 'cancel'], 0)).toEqual(['retry', 'cancel']);
  });

  it('with ambiguous effects: no retry, and resolving them comes first', () => {
    expect(paletteRunActions(['retry', 'cancel'], 2)).toEqual(['resolveEffect', 'cancel']);
  });

  it('does not offer resolving twice when the status already allows it', () => {
    expect(paletteRunActions(['cancel', 'resolveEffect'], 1)).toEqual(['cancel', 'resolveEffect']);
  });

  it('leaves the list it was given unchanged', () => {
    const allowed = ['retry'] as const;
    paletteRunActions(allowed, 1);
    expect(allowed).toEqual(['retry']);
  });
});
