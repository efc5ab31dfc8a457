/**
 * What every ending of a run does to its open questions (one helper, cancel-cascade.ts and
 * runner-transitions.ts), and the store's identity seam: the control claim of a person's cancel records
 * the identity and lease length `openStore` was given, not the test process's own.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../shared/domain';
import type { Claim } from '../../../main/store/store-types';
import { createTempStore, HUMAN, reserveAndClaim, type TempStore } from '../../helpers/temp-store';
import { EventLogWatch, expectHealthy, expectInvariants } from './invariants';

const LEASE = 30_000;
const IDENTITY = { pid: 424242, hostname: 'seam-host.example' };
const CONTROL_LEASE_MS = 7_500;

let t: TempStore;
let log: EventLogWatch;

// One store per test: no test sees another's runs, so they pass in any order and alone.
beforeEach(() => {
  t = createTempStore({ identity: IDENTITY, controlLeaseMs: CONTROL_LEASE_MS });
  log = new EventLogWatch(t.store);
});
afterEach(() => {
  expectInvariants(t.store);
  log.check();
  expectHealthy(t.store);
  t.cleanup();
});

/** A claimed run with one open decision and one open input question; returns their ids in order. */
function runWithTwoQuestions(): { claim: Claim; decision: string; input: string } {
  const claim = reserveAndClaim(t, LEASE);
  t.store.markRunning(claim);
  const decision = t.store.requestInteraction(claim, {
    kind: 'decision',
    title: 'Ship?',
    choices: ['yes', 'no'],
  }).id;
  const input = t.store.requestInteraction(claim, {
    kind: 'input',
    title: 'Why?',
    fields: [{ name: 'why', type: 'string' }],
  }).id;
  return { claim, decision, input };
}

function lastEvent(runId: string): RunEvent {
  const [event] = t.store.getRunDetail(runId, { eventsLimit: 1 }).events;
  if (event === undefined) throw new Error(`run ${runId} has no events`);
  return event;
}

function questionStates(runId: string): Array<[string, string, string | null]> {
  return t.store
    .getSnapshot(runId)
    .interactions.map((i) => [i.kind, i.status, i.provenance] as [string, string, string | null]);
}

const ENDINGS: Array<[string, (claim: Claim) => void, string]> = [
  ['complete', (c) => t.store.completeRun(c, { ok: true }), 'run.completed'],
  ['fail', (c) => t.store.failRun(c, 'boom'), 'run.failed'],
  ['time out', (c) => t.store.timeOutRun(c), 'run.timed_out'],
  ['cancel its own run', (c) => t.store.cancelOwnRun(c, 'asked to'), 'run.cancelled'],
];

describe('every ending cancels the open questions the same way', () => {
  it.each(ENDINGS)(
    '%s: decisions explicit_cancel, inputs no provenance, ids in the event',
    (_, end, type) => {
      const { claim, decision, input } = runWithTwoQuestions();
      const before = t.store.lastEventSeq();
      end(claim);
      expect(questionStates(claim.runId)).toEqual([
        ['decision', 'cancelled', 'explicit_cancel'],
        ['input', 'cancelled', null],
      ]);
      for (const q of t.store.getSnapshot(claim.runId).interactions) expect(q.revision).toBe(2);
      const event = lastEvent(claim.runId);
      expect(event.type).toBe(type);
      expect(event.payload).toMatchObject({ cancelledInteractions: [decision, input] });
      // One ending, one event: the questions are named in it, not appended beside it.
      expect(t.store.lastEventSeq()).toBe(before + 1);
    },
  );

  it('a person cancelling a stale run names the same questions', () => {
    const { claim, decision, input } = runWithTwoQuestions();
    t.clock.advance(LEASE + 1);
    const out = t.store.cancelRun(claim.runId, {
      expectedRevision: t.store.getRun(claim.runId).revision,
      reason: 'gone',
      actor: HUMAN,
    });
    expect(out.cascade.interactionsCancelled).toBe(2);
    expect(questionStates(claim.runId)).toEqual([
      ['decision', 'cancelled', 'explicit_cancel'],
      ['input', 'cancelled', null],
    ]);
    expect(lastEvent(claim.runId).payload).toMatchObject({
      stale: true,
      cancelledInteractions: [decision, input],
    });
  });

  it('an ending with no open question adds no cancelledInteractions', () => {
    const claim = reserveAndClaim(t, LEASE);
    t.store.completeRun(claim);
    expect(lastEvent(claim.runId).payload).toEqual({});
  });
});

describe('the identity seam', () => {
  it("a person's control claim records the identity and lease length openStore was given", () => {
    const claim = reserveAndClaim(t, LEASE);
    t.clock.advance(LEASE + 1);
    // The claim is taken and cleared inside one transaction; a temporary trigger sees the row in between.
    t.store.db.exec(`CREATE TEMP TABLE seen (pid INTEGER, hostname TEXT, start_id TEXT, length INTEGER)`);
    t.store.db.exec(`CREATE TEMP TRIGGER control_claim AFTER UPDATE ON leases WHEN NEW.owner_type = 'control'
      BEGIN INSERT INTO seen VALUES (NEW.owner_pid, NEW.owner_hostname, NEW.owner_start_id,
        NEW.expires_at - NEW.acquired_at); END`);
    try {
      t.store.cancelRun(claim.runId, {
        expectedRevision: t.store.getRun(claim.runId).revision,
        reason: '',
        actor: HUMAN,
      });
      expect(t.store.db.prepare(`SELECT * FROM seen`).all()).toEqual([
        { pid: IDENTITY.pid, hostname: IDENTITY.hostname, start_id: null, length: CONTROL_LEASE_MS },
      ]);
      expect(t.store.getSnapshot(claim.runId).lease).toMatchObject({ ownerType: null, ownerPid: null });
    } finally {
      t.store.db.exec(`DROP TRIGGER control_claim; DROP TABLE seen`);
    }
  });

  it('by default the store acts as this process on this host', async () => {
    const os = await import('node:os');
    const other = t.reopen();
    const claim = reserveAndClaim({ ...t, store: other }, LEASE);
    t.clock.advance(LEASE + 1);
    other.db.exec(`CREATE TEMP TABLE seen (pid INTEGER, hostname TEXT)`);
    other.db.exec(`CREATE TEMP TRIGGER control_claim AFTER UPDATE ON leases WHEN NEW.owner_type = 'control'
      BEGIN INSERT INTO seen VALUES (NEW.owner_pid, NEW.owner_hostname); END`);
    other.cancelRun(claim.runId, {
      expectedRevision: other.getRun(claim.runId).revision,
      reason: '',
      actor: HUMAN,
    });
    expect(other.db.prepare(`SELECT * FROM seen`).all()).toEqual([
      { pid: process.pid, hostname: os.hostname() },
    ]);
  });
});
