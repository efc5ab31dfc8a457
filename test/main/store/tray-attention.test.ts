/**
 * The tray's one read (main/store/tray-attention.ts): the attention summary and the open questions of the
 * runs it lists, equal to what a summary plus one snapshot per run returned, from a single snapshot.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createTempStore, HUMAN, reserveAndClaim, type TempStore } from '../../helpers/temp-store';

let t: TempStore;
afterEach(() => t?.cleanup());

function ask(claim: ReturnType<typeof reserveAndClaim>, title: string) {
  return t.store.requestInteraction(claim, { kind: 'decision', title, choices: ['yes', 'no'] });
}

describe('trayAttention', () => {
  it('lists the open questions of the listed runs only, oldest first, answered ones left out', () => {
    t = createTempStore();
    const a = reserveAndClaim(t, 600_000);
    const a1 = ask(a, 'first of a');
    t.clock.advance(1);
    const a2 = ask(a, 'second of a');
    t.clock.advance(1);
    const answered = ask(a, 'answered');
    t.store.answerInteraction(answered.id, {
      interactionRevision: answered.revision,
      idempotencyKey: 'k',
      payload: 'yes',
      actor: HUMAN,
    });
    const b = reserveAndClaim(t, 600_000);
    t.clock.advance(1);
    const b1 = ask(b, 'only of b');
    const quiet = reserveAndClaim(t, 600_000);

    const read = t.store.trayAttention(8);
    const before = t.store.attentionSummary(8);
    const perRun = before.items.flatMap((item) =>
      t.store
        .getSnapshot(item.run.id)
        .interactions.filter((q) => q.status === 'pending' || q.status === 'presenting'),
    );
    expect(read.summary).toEqual(before);
    const byId = (list: typeof perRun) => [...list].sort((x, y) => x.id.localeCompare(y.id));
    expect(byId(read.questions)).toEqual(byId(perRun));
    expect(new Set(read.questions.map((q) => q.id))).toEqual(new Set([a1.id, a2.id, b1.id]));
    expect(read.questions.filter((q) => q.runId === a.runId).map((q) => q.title)).toEqual([
      'first of a',
      'second of a',
    ]);
    expect(read.summary.items.some((item) => item.run.id === quiet.runId)).toBe(false);

    // A limit of one lists one run and only that run's questions.
    const one = t.store.trayAttention(1);
    expect(one.summary.items).toHaveLength(1);
    const listed = one.summary.items[0]?.run.id;
    expect(one.questions.length).toBeGreaterThan(0);
    expect(one.questions.every((q) => q.runId === listed)).toBe(true);
  });

  it('nothing asking: the summary and no questions', () => {
    t = createTempStore();
    reserveAndClaim(t, 600_000);
    expect(t.store.trayAttention(8)).toEqual({
      summary: t.store.attentionSummary(8),
      questions: [],
      closed: [],
    });
  });

  it('says which of the watched questions (desktop notifications) closed, whatever run they are of', () => {
    t = createTempStore();
    const a = reserveAndClaim(t, 600_000);
    const open = ask(a, 'open');
    const answered = ask(a, 'answered');
    t.store.answerInteraction(answered.id, {
      interactionRevision: answered.revision,
      idempotencyKey: 'k-watch',
      payload: 'no',
      actor: HUMAN,
    });
    // A limit of 0 lists no run: the closed ones are found all the same; an unknown id is closed too.
    // Another machine's question (`box:id`) is not this store's to call closed.
    expect(t.store.trayAttention(0, [open.id, answered.id, 'box:int_x', 'int_gone']).closed).toEqual([
      answered.id,
      'int_gone',
    ]);
  });
});
