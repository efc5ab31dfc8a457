/**
 * Needs you is the store's triage queue (main/store/needs-you-queue.ts): ordered and counted over every page,
 * questions by their soonest deadline first, and pages that follow each other without moving a row.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isRunwardenError } from '../../../shared/errors';
import { TRIAGE_GROUPS, type TriageGroup } from '../../../shared/triage';
import type { FullRunListItem } from '../../../shared/views';
import type { Claim } from '../../../main/store/store-types';
import {
  createTempStore,
  HUMAN,
  reserve,
  RUNNER_ACTOR,
  runnerOwner,
  SWEEPER,
  type TempStore,
} from '../../helpers/temp-store';
import { expectHealthy } from './invariants';

const DAY = 86_400_000;
let t: TempStore;

function claimed(title: string, leaseMs = DAY): Claim {
  const run = t.store.reserveRun({ projectPath: t.projectDir, workflow: 'w', title }, RUNNER_ACTOR);
  return t.store.claimRun(run.id, { ...runnerOwner(), leaseMs }).claim;
}

/** A run asking a question, due in `inMs` (null: no deadline). */
function asking(title: string, inMs: number | null): string {
  const claim = claimed(title);
  t.store.requestInteraction(claim, {
    kind: 'decision',
    title,
    choices: ['y', 'n'],
    ...(inMs !== null && { deadlineAt: t.clock.now() + inMs }),
  });
  return claim.runId;
}

/** Every page of Needs you, `limit` rows at a time, with each page's group counts. */
function pages(limit: number, more: { search?: string; projectPath?: string } = {}) {
  const items: FullRunListItem[] = [];
  const counts = [];
  let cursor: string | null = null;
  for (let n = 0; n < 200; n += 1) {
    const page = t.store.listRuns({ view: 'needs-you', limit, cursor, ...more });
    items.push(...page.items);
    counts.push(page.groups);
    if (page.nextCursor === null) return { items, counts };
    cursor = page.nextCursor;
  }
  throw new Error('paging did not end');
}

beforeEach(() => {
  t = createTempStore();
  const s = t.store;
  // Made oldest first, so "newest first" and "soonest deadline first" disagree.
  asking('due in an hour', 3_600_000);
  const queued = reserve(t, { title: 'queued, nobody came' });
  asking('no deadline, older', null);
  const parked = claimed('parked: the runner exited');
  s.park(parked, 'runnerExited');
  const effect = claimed('charged the card?');
  const e = s.reserveEffect(effect, { type: 'bank', idempotencyKey: 'k', summary: 'charge the card' });
  s.beginEffect(effect, e.id);
  s.settleEffect(effect, e.id, 'ambiguous');
  asking('due in 11 minutes', 660_000);
  const lost = claimed('runner lost');
  s.markRunnerGone(lost.runId, lost.generation, 'pid gone', SWEEPER);
  asking('no deadline, newer', null);
  claimed('lapsing', 5_000);
  asking('due in 20 minutes', 1_200_000);
  s.markRunning(claimed('running, fine'));
  void queued;
  t.clock.advance(10 * 60_000);
  // A question due sooner than any other, asked last, with the store clock moved on.
  asking('due in a second', 1_000);
});
afterEach(() => {
  expectHealthy(t.store);
  t.cleanup();
});

describe('Needs you, the store queue', () => {
  it('orders every page in triage order, soonest deadline first, and the pages join without a move', () => {
    const whole = t.store.listRuns({ view: 'needs-you', limit: 100 });
    expect(whole.nextCursor).toBeNull();
    expect(whole.items.map((i) => i.run.title)).toEqual([
      'due in a second',
      'due in 11 minutes',
      'due in 20 minutes',
      'due in an hour',
      'no deadline, newer',
      'no deadline, older',
      'lapsing',
      'runner lost',
      'charged the card?',
      'parked: the runner exited',
      'queued, nobody came',
    ]);
    for (const limit of [1, 2, 3, 5]) {
      const paged = pages(limit);
      expect(
        paged.items.map((i) => i.run.id),
        `limit ${limit}`,
      ).toEqual(whole.items.map((i) => i.run.id));
      // Only the first page counts the groups, and over the whole queue.
      expect(paged.counts.slice(1).every((c) => c === undefined)).toBe(true);
      expect(paged.counts[0]).toEqual({ answer: 6, stale: 2, effects: 1, parked: 1, queued: 1 });
    }
  });

  it('places each run in the group its display status says', () => {
    const { items } = pages(4);
    const rank = (g: TriageGroup | undefined) => TRIAGE_GROUPS.indexOf(g ?? 'other');
    for (const item of items) {
      const status = item.display.status;
      const expected: TriageGroup =
        status === 'needs-answer'
          ? 'answer'
          : status === 'stale' || status === 'orphaned'
            ? 'stale'
            : status === 'ambiguous'
              ? 'effects'
              : status === 'parked'
                ? 'parked'
                : 'queued';
      expect(item.triageGroup, item.run.title).toBe(expected);
    }
    const ranks = items.map((i) => rank(i.triageGroup));
    expect(ranks).toEqual(ranks.toSorted((a, b) => a - b));
  });

  it('a later page does not move the rows already shown when the queue changes in between', () => {
    const first = t.store.listRuns({ view: 'needs-you', limit: 4 });
    // A new question due sooner than all: it belongs above the first page, never inside a later one.
    asking('due now', 10);
    const rest = pages(100).items.map((i) => i.run.title);
    const second = t.store.listRuns({ view: 'needs-you', limit: 100, cursor: first.nextCursor });
    expect(second.items.map((i) => i.run.title)).not.toContain('due now');
    expect(rest[0]).toBe('due now');
    expect([...first.items, ...second.items].map((i) => i.run.title)).toEqual(rest.slice(1));
  });

  it('counts and orders what a search or a project filter keeps', () => {
    const due = pages(2, { search: 'due in' });
    expect(due.items.map((i) => i.run.title)).toEqual([
      'due in a second',
      'due in 11 minutes',
      'due in 20 minutes',
      'due in an hour',
    ]);
    expect(due.counts[0]).toEqual({ answer: 4 });
    expect(pages(3, { projectPath: t.projectDir }).items).toHaveLength(11);
  });

  it('refuses a cursor it did not give out, with VALIDATION', () => {
    for (const cursor of ['run_01', 'triage:9:0:run_01', 'triage:1:x:run_01', 'triage:0:0:drop table']) {
      let code = 'none';
      try {
        t.store.listRuns({ view: 'needs-you', limit: 5, cursor });
      } catch (error) {
        code = isRunwardenError(error) ? error.code : String(error);
      }
      expect(code, cursor).toBe('VALIDATION');
    }
  });

  it('a settled question leaves the queue, and its run takes its next group', () => {
    const id = t.store.listRuns({ view: 'needs-you', limit: 1 }).items[0]?.run.id as string;
    const question = t.store.getRunDetail(id, { eventsLimit: 1 }).snapshot.interactions[0];
    t.store.answerInteraction(question?.id as string, {
      interactionRevision: 1,
      idempotencyKey: 'q',
      payload: 'y',
      actor: HUMAN,
    });
    const page = t.store.listRuns({ view: 'needs-you', limit: 100 });
    expect(page.items.map((i) => i.run.id)).not.toContain(id);
    expect(page.groups?.answer).toBe(5);
  });
});
