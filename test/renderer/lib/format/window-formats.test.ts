import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../../shared/domain';
import { DEFAULT_SETTINGS } from '../../../../shared/views';
import { eventTitle, timelineEntries } from '../../../../renderer/src/lib/format/event-text';
import { faviconSvg, windowTitle } from '../../../../renderer/src/lib/format/favicon';
import { leaseLane } from '../../../../renderer/src/lib/format/lease-lane';
import { markdownTree } from '../../../../renderer/src/lib/format/markdown-tree';
import { nextStepText } from '../../../../renderer/src/lib/format/next-step';
import { triageGroupOf } from '../../../../renderer/src/lib/format/triage-order';
import { fromDraft, toDraft } from '../../../../renderer/src/lib/settings-draft';

/** An event; `type` may be one this build does not know (a newer store's), as the timeline must cope. */
const event = (seq: number, type: string, extra: Partial<RunEvent> = {}): RunEvent => ({
  seq,
  runId: 'r',
  runRevision: seq,
  type: type as RunEvent['type'],
  actorType: 'runner',
  actorId: 'w1',
  surface: 'sdk',
  leaseGeneration: 1,
  payload: {},
  at: seq * 1000,
  ...extra,
});

describe('settings draft', () => {
  it('shows milliseconds as seconds and saves them back exactly', () => {
    const draft = toDraft({ ...DEFAULT_SETTINGS, sweepIntervalMs: 250, staleGraceMs: 90_000 });
    expect([draft.sweepIntervalSec, draft.staleGraceSec]).toEqual(['0.25', '90']);
    const back = fromDraft(draft);
    expect(back.ok && [back.patch.sweepIntervalMs, back.patch.staleGraceMs]).toEqual([250, 90_000]);
  });

  it('gives each bad field its own message and no patch', () => {
    const draft = {
      ...toDraft(DEFAULT_SETTINGS),
      sweepIntervalSec: '0x10',
      staleGraceSec: '7200',
      autoCancelOn: true,
      autoCancelStaleAfterMin: '1.5',
    };
    expect(fromDraft(draft)).toEqual({
      ok: false,
      errors: {
        sweepIntervalSec: 'Check every: type a number, like 0.25.',
        staleGraceSec: 'Stale grace: between 0 and 3600 seconds.',
        autoCancelStaleAfterMin: 'Auto-cancel after: in steps of 1 minutes.',
      },
    });
  });

  it('a policy that is off is saved as off, whatever its field says', () => {
    const result = fromDraft({ ...toDraft(DEFAULT_SETTINGS), retentionOn: false, retentionDays: 'junk' });
    expect(result.ok && result.patch.retentionDays).toBeNull();
  });
});

describe('timeline words', () => {
  it('names every event in words, a failed step as failed, and an error once', () => {
    const entries = timelineEntries([
      event(1, 'attempt.finished', { payload: { status: 'failed', error: 'exit 2' } }),
      event(2, 'run.failed', { payload: { error: 'exit 2' } }),
      event(3, 'effect.ambiguous', { payload: { effectId: 1 } }),
      event(4, 'effect.resolved', { actorType: 'human', actorId: 'dev', surface: 'app' }),
      event(5, 'deploy.rolled_back'),
    ]);
    expect(entries.map((e) => e.title)).toEqual([
      'Step failed',
      'Failed',
      'Side effect outcome unknown',
      'Side effect resolved by a person',
      'Deploy rolled back',
    ]);
    expect(entries[0]!.kind).toBe('problem');
    expect(entries[0]!.details).toContain('error: exit 2');
    expect(entries[1]!.details).toContain('error: the same as above');
    expect(entries.flatMap((e) => e.details).filter((d) => d.includes('exit 2'))).toHaveLength(1);
    expect(eventTitle('attempt.finished')).toBe('Step finished');
    expect(entries.some((e) => /effect\./.test(e.title))).toBe(false);
  });

  it('links a retry to its new run and the new run to the one it retries', () => {
    const [retried, reserved, hostile] = timelineEntries([
      event(1, 'run.retried', { payload: { newRunId: 'run_new' } }),
      event(2, 'run.reserved', { payload: { retryOf: 'run_old' } }),
      event(3, 'run.retried', { payload: { newRunId: 'javascript:alert(1)' } }),
    ]);
    expect(retried!.link).toEqual({ runId: 'run_new', label: 'Open the retry run_new' });
    expect(reserved!.link).toEqual({ runId: 'run_old', label: 'Open the run it retries, run_old' });
    expect(hostile!.link).toBeNull();
  });
});

describe('lease lane', () => {
  it('draws one segment per hold, ends a lost one in danger, and ticks the last heartbeat of the one held now', () => {
    const lane = leaseLane(
      [
        event(1, 'run.claimed', { leaseGeneration: 1 }),
        event(3, 'run.progress'),
        event(5, 'run.runner_lost'),
        event(6, 'run.claimed', { leaseGeneration: 2, actorId: 'w2' }),
      ],
      11_000,
      { ownerType: 'runner', heartbeatAt: 8_500 },
    );
    expect(lane).not.toBeNull();
    expect(lane!.segments.map((s) => [s.generation, s.ending, s.from, s.to])).toEqual([
      [1, 'lost', 1000, 5000],
      [2, 'held', 6000, 11_000],
    ]);
    expect(lane!.segments[0]!.left).toBe(0);
    expect(lane!.segments[1]!.left + lane!.segments[1]!.width).toBeCloseTo(100);
    expect(lane!.beats).toEqual([75]);
    expect(lane!.summary).toBe(
      '2 leases held, 1 lost without a release, one held now (the tick is its last heartbeat).',
    );
  });

  it('does not call an expired or orphaned lease "held now"', () => {
    const events = [event(1, 'run.claimed', { leaseGeneration: 1 })];
    const stale = leaseLane(events, 600_000, { ownerType: 'runner', heartbeatAt: 5_000, expiresAt: 20_000 });
    expect(stale!.summary).toBe(
      '1 lease held, the last one expired: its runner stopped heartbeating (the tick is its last heartbeat).',
    );
    const orphan = leaseLane(events, 600_000, {
      ownerType: 'runner',
      heartbeatAt: 5_000,
      expiresAt: 20_000,
      orphanedAt: 30_000,
    });
    expect(orphan!.summary).toContain("the last one's runner is gone but its command still runs");
    expect(orphan!.summary).not.toContain('held now');
  });

  it('does not draw a hold up to now when nobody holds the lease any more', () => {
    const free = { ownerType: null, heartbeatAt: null };
    const lane = leaseLane([event(1, 'run.claimed'), event(4, 'run.progress')], 60_000, free);
    expect(lane!.segments[0]).toMatchObject({ ending: 'released', to: 4000 });
    expect(lane!.beats).toEqual([]);
    expect(leaseLane([event(1, 'run.reserved')], 60_000, free)).toBeNull();
  });
});

describe('markdown tree', () => {
  it('keeps raw HTML as text, links as words with their address, images as a description', () => {
    const tree = markdownTree(
      '# Title\n\n**bold** <script>x</script> [a](javascript:1) ![i](http://x/i.png)',
    );
    expect(tree[0]).toEqual({ kind: 'heading', level: 1, children: [{ kind: 'text', text: 'Title' }] });
    const para = tree[1];
    expect(para?.kind).toBe('paragraph');
    const children = para?.kind === 'paragraph' ? para.children : [];
    expect(children).toContainEqual({ kind: 'strong', children: [{ kind: 'text', text: 'bold' }] });
    expect(children).toContainEqual({ kind: 'text', text: '<script>' });
    expect(children).toContainEqual({
      kind: 'link',
      href: 'javascript:1',
      children: [{ kind: 'text', text: 'a' }],
    });
    expect(children).toContainEqual({ kind: 'image', alt: 'i', src: 'http://x/i.png' });
  });

  it('an HTML block stays visible source text', () => {
    expect(markdownTree('<div onclick="x()">hi</div>')).toEqual([
      { kind: 'paragraph', children: [{ kind: 'text', text: '<div onclick="x()">hi</div>' }] },
    ]);
  });
});

describe('window title and icon', () => {
  it('count what needs you, with no run text in the icon', () => {
    expect([windowTitle(0), windowTitle(3), windowTitle(120)]).toEqual([
      'Runwarden',
      '(3) Runwarden',
      '(99+) Runwarden',
    ]);
    expect(faviconSvg(0)).not.toContain('<text');
    expect(faviconSvg(4)).toContain('>4</text>');
    expect(faviconSvg(40)).toContain('>9+</text>');
  });
});

describe('next step', () => {
  it('says what to do for each kind of needing you', () => {
    const look = (status: Parameters<typeof nextStepText>[0]['status'], actions: string[] = []) =>
      nextStepText({ status, actions: actions as never, liveOwner: false });
    expect(look('needs-answer')).toBe('Answer the question');
    expect(look('stale')).toBe('Cancel it, or wait for its runner');
    expect(look('ambiguous')).toBe('Say whether the effect happened');
    expect(look('parked', ['resumeAnyway'])).toBe('Check the source change, then resume or cancel');
    expect(look('completed')).toBe('');
  });
});

describe('triage group', () => {
  it('keeps the group the store placed a run in, else places it by what it shows', () => {
    const item = (status: string, extra: Record<string, unknown> = {}) =>
      ({ display: { status }, ambiguousEffects: 0, ...extra }) as never;
    expect(triageGroupOf(item('running', { triageGroup: 'stale' }))).toBe('stale');
    expect(triageGroupOf(item('needs-answer'))).toBe('answer');
    expect(triageGroupOf(item('orphaned'))).toBe('stale');
    expect(triageGroupOf(item('failed', { ambiguousEffects: 1 }))).toBe('effects');
    expect(triageGroupOf(item('paused'))).toBe('parked');
    expect(triageGroupOf(item('queued'))).toBe('queued');
    expect(triageGroupOf(item('running'))).toBe('other');
  });
});
