import { describe, expect, it } from 'vitest';
import {
  answerFormModel,
  checkChoice,
  checkFields,
  newIdempotencyKey,
  toggleChoice,
  typeOther,
} from '../../../renderer/src/lib/answer-form';
import type { Interaction } from '../../../shared/domain';

/** A question as the store returns it (literal data: these checks are pure functions of it). */
function makeInteraction(runId: string, overrides: Partial<Interaction> = {}): Interaction {
  return {
    id: `int_${runId}`,
    runId,
    attemptId: null,
    kind: 'decision',
    title: 'Deploy to production?',
    prompt: 'Ship it?',
    choices: ['yes', 'no'],
    fields: null,
    defaultResponse: null,
    hasDefault: false,
    deadlineAt: null,
    status: 'pending',
    revision: 1,
    presenterId: null,
    presenterExpiresAt: null,
    response: null,
    provenance: null,
    createdAt: 0,
    settledAt: null,
    ...overrides,
  };
}

describe('answer form model', () => {
  it('offers declared choices, preselecting a valid default', () => {
    const model = answerFormModel(
      makeInteraction('r', { choices: ['a', 'b'], hasDefault: true, defaultResponse: 'b' }),
    );
    expect(model).toEqual({ mode: 'choices', choices: ['a', 'b'], initial: 'b' });
    expect(
      answerFormModel(makeInteraction('r', { choices: ['a'], hasDefault: true, defaultResponse: 'zzz' })),
    ).toEqual({ mode: 'choices', choices: ['a'], initial: null });
  });

  it('builds typed fields with defaults', () => {
    const model = answerFormModel(
      makeInteraction('r', {
        kind: 'input',
        choices: null,
        fields: [
          { name: 'n', type: 'number', required: true },
          { name: 'ok', type: 'boolean', label: 'OK?' },
        ],
        hasDefault: true,
        defaultResponse: { n: 3, ok: true },
      }),
    );
    expect(model).toEqual({
      mode: 'fields',
      fields: [
        { name: 'n', type: 'number', label: 'n', required: true, initial: '3' },
        { name: 'ok', type: 'boolean', label: 'OK?', required: false, initial: true },
      ],
    });
  });
});

describe('answer checks', () => {
  it('a choice must be one of the declared ones', () => {
    expect(checkChoice({ choices: ['a'] }, null).ok).toBe(false);
    expect(checkChoice({ choices: ['a'] }, 'x').ok).toBe(false);
    expect(checkChoice({ choices: ['a'] }, 'a')).toEqual({ ok: true, payload: 'a' });
  });

  it('fields: required, numbers parsed, empty optional left out, booleans always present', () => {
    const fields = [
      { name: 's', type: 'string' as const, label: 'S', required: true, initial: '' },
      { name: 'n', type: 'number' as const, label: 'N', required: false, initial: '' },
      { name: 'b', type: 'boolean' as const, label: 'B', required: false, initial: false },
    ];
    expect(checkFields(fields, { s: ' ', n: 'x' })).toEqual({
      ok: false,
      errors: { s: 'S is required.', n: 'N must be a number.' },
    });
    expect(checkFields(fields, { s: 'hi', n: '' })).toEqual({ ok: true, payload: { s: 'hi', b: false } });
    expect(checkFields(fields, { s: 'hi', n: '2.5', b: true })).toEqual({
      ok: true,
      payload: { s: 'hi', n: 2.5, b: true },
    });
  });

  it('keys are long enough for the contract', () => {
    const a = newIdempotencyKey();
    expect(a.length).toBeGreaterThanOrEqual(8);
    expect(newIdempotencyKey()).not.toBe(a);
  });

  it('choice fields: options with descriptions, several picks in option order, own words last', () => {
    const model = answerFormModel(
      makeInteraction('c', {
        kind: 'input',
        choices: null,
        fields: [
          {
            name: 'q1',
            type: 'choice',
            label: 'Which checks?',
            required: true,
            multi: true,
            allowOther: true,
            options: [{ label: 'Tests', description: 'The unit tests' }, { label: 'Lint' }],
          },
          { name: 'q2', type: 'choice', label: 'Runner?', required: true, options: [{ label: 'Vitest' }] },
        ],
      }),
    );
    if (model.mode !== 'fields') throw new Error('a form of fields');
    const [checks, runner] = model.fields;
    if (checks === undefined || runner === undefined) throw new Error('two fields');
    expect(checks.options?.[0]).toEqual({ label: 'Tests', description: 'The unit tests' });
    const empty = { picked: [], otherOn: false, otherText: '' };
    expect(checkFields(model.fields, { q1: empty, q2: empty })).toEqual({
      ok: false,
      errors: { q1: 'Which checks?: pick at least one.', q2: 'Runner? is required.' },
    });
    let draft = toggleChoice(checks, empty, 'Lint', true);
    draft = toggleChoice(checks, draft, 'Tests', true);
    draft = typeOther(checks, draft, ' only fast ones ');
    const runnerDraft = toggleChoice(runner, empty, 'Vitest', true);
    expect(checkFields(model.fields, { q1: draft, q2: runnerDraft })).toEqual({
      ok: true,
      payload: { q1: ['Tests', 'Lint', 'only fast ones'], q2: 'Vitest' },
    });
    // Other ticked but blank says so; a single choice holds one option or Other, never both.
    const blank = toggleChoice(checks, draft, null, true);
    expect(checkFields(model.fields, { q1: { ...blank, otherText: ' ' }, q2: runnerDraft }).ok).toBe(false);
    expect(toggleChoice(runner, typeOther(runner, runnerDraft, 'Bun'), 'Vitest', true)).toMatchObject({
      picked: ['Vitest'],
      otherOn: false,
    });
    // A single choice without own words refuses them (the store's rule).
    expect(checkFields(model.fields, { q1: draft, q2: typeOther(runner, empty, 'Bun') })).toEqual({
      ok: false,
      errors: { q2: 'Runner? must be one of: Vitest.' },
    });
  });
});
