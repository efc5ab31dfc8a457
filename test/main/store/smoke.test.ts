import { afterEach, describe, expect, it } from 'vitest';
import { createTempStore, HUMAN, reserveAndClaim, type TempStore } from '../../helpers/temp-store';

let t: TempStore;
afterEach(() => t?.cleanup());

describe('smoke', () => {
  it('runs a run end to end', () => {
    t = createTempStore();
    const claim = reserveAndClaim(t);
    t.store.markRunning(claim);
    const a = t.store.startAttempt(claim, 'compile');
    const e = t.store.reserveEffect(claim, { type: 'http', idempotencyKey: 'k1', summary: 'POST /x' });
    t.store.beginEffect(claim, e.id);
    t.store.settleEffect(claim, e.id, 'applied');
    t.store.finishAttempt(claim, a.id, 'completed');
    const i = t.store.requestInteraction(claim, { kind: 'decision', title: 'Ship?', choices: ['yes', 'no'] });
    expect(t.store.listRuns({ view: 'needs-answer', limit: 10 }).items).toHaveLength(1);
    const r = t.store.answerInteraction(i.id, {
      interactionRevision: 1,
      idempotencyKey: 'a',
      payload: 'yes',
      actor: HUMAN,
    });
    expect(r.outcome).toBe('accepted');
    t.store.resumeAfterInteraction(claim);
    const run = t.store.completeRun(claim, { ok: true });
    expect(run.status).toBe('completed');
    expect(t.store.doctor().contradictions).toEqual([]);
    expect(t.store.doctor().integrity).toBe('ok');
  });
});
