/**
 * A notification lives exactly as long as what it announces (docs/ARCHITECTURE.md#change-feed): each way a
 * question closes — answered, withdrawn by its asker, expired (with or without its default), cancelled with
 * its run — resolves its notification in the same commit, and an effect notification is resolved when its
 * last effect of unknown outcome is; migration 0017 links and resolves notifications made before.
 */
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Notification } from '../../../shared/domain';
import { migrate, openStore } from '../../../main/store/open-store';
import { MIGRATIONS } from '../../../main/store/migrations';
import { migration0017 } from '../../../main/store/migrations/0017-notification-subjects';
import type { Claim } from '../../../main/store/store-types';
import {
  createTempStore,
  HUMAN,
  reserveAndClaim,
  RUNNER_ACTOR,
  SWEEPER,
  type TempStore,
} from '../../helpers/temp-store';
import { EventLogWatch, expectHealthy, expectInvariants } from './invariants';
import { schemaBackTo } from './schema-back';

let t: TempStore;
let log: EventLogWatch;
const NOTIFIER = { type: 'host', id: 'notifier', surface: 'sweeper' } as const;

beforeAll(() => {
  t = createTempStore();
  log = new EventLogWatch(t.store);
});
afterEach(() => {
  expectInvariants(t.store);
  log.check();
});
afterAll(() => {
  expectHealthy(t.store);
  t.cleanup();
});

function ask(claim: Claim, over: { deadlineAt?: number; defaultResponse?: unknown } = {}) {
  return t.store.requestInteraction(claim, {
    kind: 'decision',
    title: 'Deploy?',
    choices: ['yes', 'no'],
    ...over,
  });
}

/** What the acting host records when it announces the question. */
function announce(runId: string, interactionId: string): Notification {
  return t.store.notify(
    runId,
    { level: 'attention', title: 'Needs an answer: Deploy?', body: 'b', interactionId },
    NOTIFIER,
  );
}

function note(id: number): Notification {
  const found = t.store.listNotifications({ limit: 500 }).find((n) => n.id === id);
  if (found === undefined) throw new Error(`no notification ${id}`);
  return found;
}

describe('a question’s notification is resolved with the question', () => {
  it('answered: resolved and read in the answer’s commit; unread while it was open', () => {
    const claim = reserveAndClaim(t);
    const q = ask(claim);
    const n = announce(claim.runId, q.id);
    expect(n).toMatchObject({ interactionId: q.id, readAt: null, resolvedAt: null, resolution: null });
    expect(t.store.listNotifications({ unreadOnly: true, limit: 500 }).map((x) => x.id)).toContain(n.id);
    t.clock.advance(1_000);
    t.store.answerInteraction(q.id, {
      interactionRevision: q.revision,
      idempotencyKey: 'k1',
      payload: 'yes',
      actor: { ...HUMAN, surface: 'cli' },
    });
    expect(note(n.id)).toMatchObject({
      resolution: 'answered',
      resolvedAt: t.clock.now(),
      readAt: t.clock.now(),
    });
    expect(t.store.listNotifications({ unreadOnly: true, limit: 500 }).map((x) => x.id)).not.toContain(n.id);
    t.store.completeRun(claim, null);
  });

  it('withdrawn by its asker (an agent answered in its terminal, a killed session)', () => {
    const claim = reserveAndClaim(t);
    const q = ask(claim);
    const n = announce(claim.runId, q.id);
    expect(t.store.withdrawInteraction(q.id, 'asker_interrupted', SWEEPER)).toBe(true);
    expect(note(n.id)).toMatchObject({ resolution: 'withdrawn', resolvedAt: t.clock.now() });
    t.store.completeRun(claim, null);
  });

  it('expired at its deadline, with and without a default; a later deadline stays open', () => {
    const claim = reserveAndClaim(t, 3_600_000);
    const due = t.clock.now() + 60_000;
    const bare = ask(claim, { deadlineAt: due });
    const withDefault = ask(claim, { deadlineAt: due, defaultResponse: 'no' });
    const later = ask(claim, { deadlineAt: due + 3_600_000 });
    const notes = [bare, withDefault, later].map((q) => announce(claim.runId, q.id));
    t.clock.advance(61_000);
    expect(t.store.expireInteractionDeadlines(100, SWEEPER)).toBe(2);
    expect(notes.map((n) => note(n.id).resolution)).toEqual(['expired', 'expired', null]);
    expect(note(notes[2]!.id).readAt).toBeNull();
    t.store.failRun(claim, 'gave up');
    // The run's ending cancels the last one, and its notification with it.
    expect(note(notes[2]!.id)).toMatchObject({ resolution: 'cancelled', resolvedAt: t.clock.now() });
  });

  it('cancelled by a person’s cancel of the run', () => {
    const claim = reserveAndClaim(t, 1_000);
    const q = ask(claim);
    const n = announce(claim.runId, q.id);
    t.clock.advance(5_000);
    const run = t.store.getRun(claim.runId);
    t.store.cancelRun(claim.runId, { expectedRevision: run.revision, reason: 'not needed', actor: HUMAN });
    expect(note(n.id)).toMatchObject({ resolution: 'cancelled', resolvedAt: t.clock.now() });
  });

  it('announced after it was already answered (the host came late): recorded resolved', () => {
    const claim = reserveAndClaim(t);
    const q = ask(claim);
    t.store.answerInteraction(q.id, {
      interactionRevision: q.revision,
      idempotencyKey: 'k-late',
      payload: 'no',
      actor: HUMAN,
    });
    const n = announce(claim.runId, q.id);
    expect(n).toMatchObject({ resolution: 'answered', resolvedAt: t.clock.now(), readAt: t.clock.now() });
    t.store.completeRun(claim, null);
  });

  it('refuses a question of another run or effects not of the run, writing nothing', () => {
    const one = reserveAndClaim(t);
    const other = reserveAndClaim(t);
    const q = ask(one);
    const before = t.store.listNotifications({ limit: 1 })[0]?.id;
    expect(() => announce(other.runId, q.id)).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(() =>
      t.store.notify(other.runId, { level: 'attention', title: 'x', effectIds: [0] }, NOTIFIER),
    ).toThrow(expect.objectContaining({ code: 'VALIDATION' }));
    expect(() =>
      t.store.notify(other.runId, { level: 'attention', title: 'x', effectIds: [999_999] }, NOTIFIER),
    ).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(() =>
      t.store.notify(null, { level: 'attention', title: 'x', interactionId: q.id }, NOTIFIER),
    ).toThrow(expect.objectContaining({ code: 'VALIDATION' }));
    expect(t.store.listNotifications({ limit: 1 })[0]?.id).toBe(before);
    t.store.completeRun(one, null);
    t.store.completeRun(other, null);
  });
});

describe('an effect notification is resolved with its last effect', () => {
  it('stays while one effect is still of unknown outcome, resolved with the last', () => {
    const claim = reserveAndClaim(t);
    const effects = ['refund a', 'refund b'].map((summary, i) => {
      const reserved = t.store.reserveEffect(claim, { type: 'pay', idempotencyKey: `e${i}`, summary });
      return t.store.beginEffect(claim, reserved.id);
    });
    t.store.failRun(claim, 'supervisor died');
    const ids = effects.map((e) => e.id);
    const n = t.store.notify(
      claim.runId,
      { level: 'failure', title: 'Failed: Build the thing', effectIds: ids },
      NOTIFIER,
    );
    expect(n.resolution).toBeNull();
    const resolve = (id: number, resolution: 'applied' | 'not_applied') =>
      t.store.resolveEffect(id, {
        resolution,
        note: 'checked the ledger',
        expectedRevision: t.store.getRun(claim.runId).revision,
        actor: HUMAN,
      });
    resolve(ids[0]!, 'applied');
    expect(note(n.id)).toMatchObject({ resolution: null, readAt: null });
    t.clock.advance(1_000);
    resolve(ids[1]!, 'not_applied');
    expect(note(n.id)).toMatchObject({
      resolution: 'resolved',
      resolvedAt: t.clock.now(),
      readAt: t.clock.now(),
    });
  });
});

it('0017 from version 16: an old "Needs an answer" notification is linked, and resolved if its question closed', () => {
  const other = createTempStore();
  try {
    const claim = reserveAndClaim(other);
    const ask2 = (title: string) =>
      other.store.requestInteraction(claim, { kind: 'decision', title, choices: ['yes', 'no'] });
    const answered = ask2('Ship?');
    other.clock.advance(10);
    const open = ask2('Tag?');
    const legacy = (title: string) =>
      other.store.notify(claim.runId, { level: 'attention', title, body: '' }, RUNNER_ACTOR);
    other.clock.advance(10);
    const ship = legacy('Needs an answer: Ship?');
    const tag = legacy('Needs an answer: Tag?');
    const done = legacy('Completed: something');
    other.store.answerInteraction(answered.id, {
      interactionRevision: answered.revision,
      idempotencyKey: 'm1',
      payload: 'yes',
      actor: HUMAN,
    });
    other.store.close();
    const db = new Database(other.path);
    // Notifications as the old version left them: no link, still unread.
    db.exec(
      `UPDATE notifications SET interaction_id = NULL, resolved_at = NULL, resolution = NULL, read_at = NULL`,
    );
    schemaBackTo(db, migration0017.version - 1);
    expect(migrate(db, MIGRATIONS.slice(0, migration0017.version))).toBe(migration0017.version);
    const rows = db
      .prepare(
        `SELECT id, interaction_id, resolution, read_at IS NOT NULL AS read FROM notifications ORDER BY id`,
      )
      .all();
    expect(rows).toEqual([
      { id: ship.id, interaction_id: answered.id, resolution: 'answered', read: 1 },
      { id: tag.id, interaction_id: open.id, resolution: null, read: 0 },
      { id: done.id, interaction_id: null, resolution: null, read: 0 },
    ]);
    db.close();
    const reopened = openStore(other.path, { clock: other.clock });
    try {
      expect(reopened.listNotifications({ unreadOnly: true, limit: 10 }).map((n) => n.id)).toEqual([
        done.id,
        tag.id,
      ]);
    } finally {
      reopened.close();
    }
  } finally {
    other.cleanup();
  }
});
