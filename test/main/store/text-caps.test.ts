/**
 * Text caps in the store (shared/text-caps.ts): whoever calls it, a text one character over its cap is
 * refused with VALIDATION and nothing is written (the store's data_version and last event do not move);
 * at the cap it is accepted.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEXT_CAPS, fitText, type TextKind } from '../../../shared/text-caps';
import type { Claim } from '../../../main/store';
import {
  createTempStore,
  HUMAN,
  reserve,
  reserveAndClaim,
  RUNNER_ACTOR,
  type TempStore,
} from '../../helpers/temp-store';

let t: TempStore;
let claim: Claim;
beforeEach(() => {
  t = createTempStore();
  claim = reserveAndClaim(t, 600_000);
});
afterEach(() => t.cleanup());

const text = (kind: TextKind, extra: number) => 'x'.repeat(TEXT_CAPS[kind] + extra);

/** Every write a runner or a person makes with text, given the text. */
const WRITES: Array<[string, TextKind, (value: string) => unknown]> = [
  ['run title', 'title', (v) => reserve(t, { title: v })],
  ['workflow', 'name', (v) => reserve(t, { workflow: v })],
  ['request key', 'key', (v) => reserve(t, { requestKey: v })],
  ['progress', 'progress', (v) => t.store.setProgress(claim, v)],
  ['step name', 'name', (v) => t.store.startAttempt(claim, v)],
  [
    'effect type',
    'name',
    (v) => t.store.reserveEffect(claim, { type: v, idempotencyKey: 'k', summary: 's' }),
  ],
  [
    'effect key',
    'key',
    (v) => t.store.reserveEffect(claim, { type: 'http', idempotencyKey: v, summary: 's' }),
  ],
  [
    'effect summary',
    'summary',
    (v) => t.store.reserveEffect(claim, { type: 'http', idempotencyKey: 'k', summary: v }),
  ],
  [
    'question title',
    'title',
    (v) => t.store.requestInteraction(claim, { kind: 'decision', title: v, choices: ['a'] }),
  ],
  [
    'question prompt',
    'prompt',
    (v) => t.store.requestInteraction(claim, { kind: 'decision', title: 'q', prompt: v, choices: ['a'] }),
  ],
  [
    'a choice',
    'title',
    (v) => t.store.requestInteraction(claim, { kind: 'decision', title: 'q', choices: [v] }),
  ],
  [
    'notification title',
    'title',
    (v) => t.store.notify(claim.runId, { level: 'info', title: v }, RUNNER_ACTOR),
  ],
  [
    'notification body',
    'body',
    (v) => t.store.notify(claim.runId, { level: 'info', title: 't', body: v }, RUNNER_ACTOR),
  ],
  ['park detail', 'detail', (v) => t.store.park(claim, 'sourceChanged', v)],
  [
    'cancel reason',
    'reason',
    (v) =>
      t.store.requestCancel(claim.runId, {
        reason: v,
        actor: HUMAN,
        expectedRevision: t.store.getRun(claim.runId).revision,
      }),
  ],
];

describe('text caps in the store', () => {
  it.each(WRITES)('%s: one over the cap is VALIDATION and writes nothing', (_name, kind, write) => {
    const runs = t.store.listRuns({ view: 'all', limit: 50 }).items.length;
    const lastEvent = t.store.lastEventSeq();
    expect(() => write(text(kind, 1))).toThrow(
      expect.objectContaining({ code: 'VALIDATION', message: expect.stringContaining('at most') }),
    );
    expect(t.store.lastEventSeq()).toBe(lastEvent);
    expect(t.store.listRuns({ view: 'all', limit: 50 }).items).toHaveLength(runs);
  });

  it.each(WRITES)('%s: at the cap it is accepted', (_name, kind, write) => {
    expect(() => write(text(kind, 0))).not.toThrow();
  });

  it('an answer or a default over the payload cap is refused', () => {
    const big = 'x'.repeat(TEXT_CAPS.payload);
    const fields = [{ name: 'text', type: 'string' as const }];
    expect(() =>
      t.store.requestInteraction(claim, {
        kind: 'input',
        title: 'q',
        fields,
        defaultResponse: { text: big },
      }),
    ).toThrow(expect.objectContaining({ code: 'VALIDATION', message: expect.stringContaining('at most') }));
    // Just under the cap as JSON ({"text":"…"} adds 11 characters) is a valid default.
    const fits = { text: 'x'.repeat(TEXT_CAPS.payload - 11) };
    expect(() =>
      t.store.requestInteraction(claim, { kind: 'input', title: 'q', fields, defaultResponse: fits }),
    ).not.toThrow();
    const q = t.store.requestInteraction(claim, { kind: 'input', title: 'q', fields });
    const before = t.store.lastEventSeq();
    expect(() =>
      t.store.answerInteraction(q.id, {
        interactionRevision: q.revision,
        idempotencyKey: 'answer-1',
        payload: { text: big },
        actor: HUMAN,
      }),
    ).toThrow(expect.objectContaining({ code: 'VALIDATION', message: expect.stringContaining('at most') }));
    expect(t.store.lastEventSeq()).toBe(before);
  });

  it('fitText cuts what Runwarden composes itself, with an ellipsis, to exactly the cap', () => {
    expect(fitText('short', 'title')).toBe('short');
    const cut = fitText(text('title', 20), 'title');
    expect(cut).toHaveLength(TEXT_CAPS.title);
    expect(cut.endsWith('…')).toBe(true);
  });
});
