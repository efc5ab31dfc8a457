/**
 * Choice fields in the store (docs/ARCHITECTURE.md's interaction rules, shared/answer-rules.ts): what a runner
 * may declare (options with descriptions, multi, allowOther) and what an answer must be; a bad declaration or
 * answer is refused with VALIDATION and nothing changes.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunwardenError } from '../../../shared/errors';
import { createTempStore, HUMAN, reserveAndClaim, type TempStore } from '../../helpers/temp-store';

let t: TempStore;
beforeEach(() => {
  t = createTempStore();
});
afterEach(() => t.cleanup());

function errorOf(fn: () => unknown): RunwardenError {
  try {
    fn();
  } catch (error) {
    if (error instanceof RunwardenError) return error;
    throw error;
  }
  throw new Error('expected a RunwardenError');
}

const CHECKS = {
  name: 'checks',
  type: 'choice' as const,
  required: true,
  multi: true,
  allowOther: true,
  options: [{ label: 'Tests', description: 'The unit tests' }, 'Lint'],
};

describe('choice fields', () => {
  it('keeps options with their descriptions, multi and allowOther; answers are checked against them', () => {
    const claim = reserveAndClaim(t, 30_000);
    const q = t.store.requestInteraction(claim, {
      kind: 'input',
      title: 'Checks',
      fields: [CHECKS as never],
    });
    expect(q.fields).toEqual([
      {
        name: 'checks',
        type: 'choice',
        required: true,
        multi: true,
        allowOther: true,
        options: [{ label: 'Tests', description: 'The unit tests' }, { label: 'Lint' }],
      },
    ]);
    const answer = (payload: unknown, key: string) =>
      t.store.answerInteraction(q.id, { interactionRevision: 1, idempotencyKey: key, payload, actor: HUMAN });
    for (const [payload, message] of [
      [{ checks: 'Tests' }, /must be a list of: Tests, Lint, or your own words/],
      [{ checks: [] }, /pick at least one/],
      [{ checks: ['Tests', 'Tests'] }, /the same answer twice/],
      [{ checks: ['mine', 'also mine'] }, /one answer in your own words at most/],
      [{ checks: ['Tests', ' '] }, /must be picked from/],
    ] as const) {
      const error = errorOf(() => answer(payload, JSON.stringify(payload)));
      expect(error.code).toBe('VALIDATION');
      expect(error.message).toMatch(message);
    }
    expect(t.store.getInteraction(q.id)).toMatchObject({ status: 'pending', revision: 1 });
    expect(answer({ checks: ['Lint', 'only fast ones'] }, 'ok').interaction).toMatchObject({
      status: 'settled',
      response: { checks: ['Lint', 'only fast ones'] },
    });
  });

  it('refuses a choice field without options, with repeated labels, or with a bad default', () => {
    const claim = reserveAndClaim(t, 30_000);
    const ask = (field: object, defaultResponse?: unknown) =>
      errorOf(() =>
        t.store.requestInteraction(claim, {
          kind: 'input',
          title: 'Q',
          fields: [field as never],
          ...(defaultResponse === undefined ? {} : { defaultResponse }),
        }),
      );
    expect(ask({ name: 'a', type: 'choice' }).message).toMatch(/from 1 to 20 options/);
    expect(ask({ name: 'a', type: 'choice', options: ['x', 'x'] }).message).toMatch(
      /distinct non-empty labels/,
    );
    expect(ask({ name: 'a', type: 'choice', options: [{ label: 'x', description: 3 }] }).message).toMatch(
      /description of x is not a string/,
    );
    expect(ask({ name: 'a', type: 'choice', options: ['x'] }, { a: 'y' }).message).toMatch(
      /default answer does not fit: Field a must be one of: x\./,
    );
    expect(t.store.getRunDetail(claim.runId, { eventsLimit: 1 }).snapshot.interactions).toEqual([]);
  });
});
