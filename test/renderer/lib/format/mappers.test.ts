import { describe, expect, it } from 'vitest';
import { DISPLAY_STATUSES, RUN_ACTIONS } from '../../../../shared/display-status';
import type { EventType, RunEvent } from '../../../../shared/domain';
import { commandConsequences, defaultReason } from '../../../../renderer/src/lib/format/consequences';
import { cascadeText, timelineEntries } from '../../../../renderer/src/lib/format/event-text';
import { projectShortName } from '../../../../renderer/src/lib/format/project-name';
import { recoveryLabel } from '../../../../renderer/src/lib/format/recovery-text';
import { actionLabel, needsConfirmation, statusLook } from '../../../../renderer/src/lib/format/status-look';
import { countdown, formatDuration, relativeAge } from '../../../../renderer/src/lib/format/time-format';
import { emptyViewText, viewCount, viewLabel } from '../../../../renderer/src/lib/format/view-meta';
import { RUN_VIEWS } from '../../../../shared/views';
import { formatHash, hashProblem, parseHash } from '../../../../renderer/src/lib/hash-route';
import { resolveKey, type KeyInput } from '../../../../renderer/src/lib/keyboard-commands';
import { storeBanner } from '../../../../renderer/src/lib/state/store-status.svelte';

describe('statusLook', () => {
  it('gives every display status a distinct word and icon, so colour is never alone', () => {
    const looks = DISPLAY_STATUSES.map(statusLook);
    expect(new Set(looks.map((l) => l.label)).size).toBe(DISPLAY_STATUSES.length);
    expect(new Set(looks.map((l) => l.icon)).size).toBe(DISPLAY_STATUSES.length);
    expect(statusLook('needs-answer')).toEqual({ label: 'Needs answer', icon: '?', tone: 'attention' });
    expect(statusLook('stale').tone).toBe('danger');
    expect(statusLook('completed').tone).toBe('success');
  });

  it('labels every action; destructive ones and retry (it runs the work again) need a confirmation', () => {
    for (const action of RUN_ACTIONS) expect(actionLabel(action)).not.toBe('');
    expect(RUN_ACTIONS.filter(needsConfirmation)).toEqual([
      'cancel',
      'requestCancel',
      'requestPause',
      'pause',
      'resumeAnyway',
      'retry',
      'stopCommand',
    ]);
  });
});

describe('time formats', () => {
  const now = Date.UTC(2025, 0, 1, 12);
  it('relative ages', () => {
    expect(relativeAge(now - 3_000, now, 'en')).toBe('now');
    expect(relativeAge(now - 30_000, now, 'en')).toBe('30s ago');
    expect(relativeAge(now - 5 * 60_000, now, 'en')).toBe('5m ago');
    expect(relativeAge(now - 3 * 3_600_000, now, 'en')).toBe('3h ago');
    expect(relativeAge(now - 86_400_000, now, 'en')).toBe('yesterday');
    // Whole units passed: a time just under an hour ago never reads "60m ago" beside a later "1h ago".
    expect(relativeAge(now - 59 * 60_000 - 40_000, now, 'en')).toBe('59m ago');
    expect(relativeAge(now - 60 * 60_000 - 20_000, now, 'en')).toBe('1h ago');
    expect(relativeAge(now - 119 * 60_000, now, 'en')).toBe('1h ago');
  });
  it('durations', () => {
    expect(formatDuration(-5)).toBe('0s');
    expect(formatDuration(45_000)).toBe('45s');
    expect(formatDuration(125_000)).toBe('2m 05s');
    expect(formatDuration(3_840_000)).toBe('1h 04m');
    expect(formatDuration(2 * 86_400_000 + 3 * 3_600_000)).toBe('2d 3h');
  });
  it('countdowns', () => {
    expect(countdown(now + 299_000, now)).toEqual({ expired: false, text: '4m 59s left', urgent: false });
    expect(countdown(now + 30_000, now)).toEqual({ expired: false, text: '30s left', urgent: true });
    expect(countdown(now - 12_000, now)).toEqual({ expired: true, text: 'expired 12s ago', urgent: true });
  });
});

describe('views', () => {
  it('counts each view from display-status counts', () => {
    const counts = {
      running: 2,
      waiting: 1,
      queued: 1,
      parked: 1,
      paused: 2,
      ambiguous: 1,
      stale: 3,
      failed: 1,
      timed_out: 1,
      completed: 5,
    };
    // The same sets the store lists for each view (shared VIEW_STATUSES).
    expect(RUN_VIEWS.map((v) => [viewLabel(v), viewCount(v, counts, 4)])).toEqual([
      ['Needs you', 4],
      ['Running', 3],
      ['Queued', 1],
      ['Parked', 4],
      ['Stale', 3],
      ['Failed', 2],
      ['All', 18],
    ]);
  });
  it('empty states say what to do next', () => {
    expect(emptyViewText('needs-you', 'none').title).toBe('Nothing needs you.');
    // Commands are parts of their own (shown as code), never wrapped in literal backticks.
    const hint = emptyViewText('all', 'none').hint;
    expect(hint).toContainEqual({ code: 'runwarden demo' });
    expect(hint.filter((part) => typeof part === 'string').join('')).not.toContain('`');
    expect(emptyViewText('stale', 'search').title).toBe('No runs match.');
    expect(emptyViewText('all', 'unknown-project').title).toBe('This project has no runs.');
  });
  it('short project names', () => {
    expect(projectShortName('/home/dev/alpha/')).toBe('alpha');
    expect(projectShortName('C:\\work\\beta')).toBe('beta');
  });
});

describe('hash routes', () => {
  it('round-trips view, project, search and run', () => {
    const route = {
      view: 'stale' as const,
      projectPath: '/home/me/a b&c',
      runId: 'run_01',
      search: 'deploy #2',
    };
    expect(parseHash(formatHash(route))).toEqual(route);
    expect(formatHash({ view: 'needs-you', projectPath: null, runId: null, search: '' })).toBe('#/needs-you');
  });
  it('falls back on unknown views and refuses bad run ids', () => {
    expect(parseHash('#/nope?run=../../etc')).toEqual({
      view: 'needs-you',
      projectPath: null,
      runId: null,
      search: '',
    });
    expect(parseHash('').view).toBe('needs-you');
  });
  it('opens #/run/<id> as the desktop link does, and says what a hash asked for that it cannot show', () => {
    expect(parseHash('#/run/run_01abc')).toEqual({
      view: 'all',
      projectPath: null,
      runId: 'run_01abc',
      search: '',
    });
    expect(hashProblem('#/run/run_01abc')).toBeNull();
    expect(hashProblem('#/needs-you?run=run_01&q=x')).toBeNull();
    expect(hashProblem('')).toBeNull();
    expect(hashProblem('#/nope')).toBe('There is no view “nope”: showing Needs you.');
    expect(hashProblem('#/run/../x')).toBe('“..” is not a run id: showing Needs you.');
    expect(hashProblem('#/all?run=../../etc')).toBe('“../../etc” is not a run id: no run is open.');
  });
});

describe('keyboard commands', () => {
  const key = (k: string, extra: Partial<KeyInput> = {}): KeyInput => ({
    key: k,
    ctrlKey: false,
    metaKey: false,
    altKey: false,
    inTextField: false,
    inControl: false,
    ...extra,
  });
  it('maps keys to commands', () => {
    expect(resolveKey(key('j'), false).command).toEqual({ kind: 'next' });
    expect(resolveKey(key('k'), false).command).toEqual({ kind: 'prev' });
    expect(resolveKey(key('Enter'), false).command).toEqual({ kind: 'open' });
    expect(resolveKey(key('/'), false).command).toEqual({ kind: 'focusSearch' });
    expect(resolveKey(key('x'), false).command).toEqual({ kind: 'toggleSelect' });
    expect(resolveKey(key('?'), false).command).toEqual({ kind: 'help' });
  });
  it('Home, End, PageUp and PageDown jump over the list, but not from a control or a text field', () => {
    expect(resolveKey(key('Home'), false).command).toEqual({ kind: 'jump', to: 'first' });
    expect(resolveKey(key('End'), false).command).toEqual({ kind: 'jump', to: 'last' });
    expect(resolveKey(key('PageUp'), false).command).toEqual({ kind: 'jump', to: 'pageUp' });
    expect(resolveKey(key('PageDown'), false).command).toEqual({ kind: 'jump', to: 'pageDown' });
    expect(resolveKey(key('End', { inControl: true }), false).command).toBeNull();
    expect(resolveKey(key('Home', { inTextField: true }), false).command).toBeNull();
  });
  it('a answers, Shift+X selects all, Ctrl/Cmd+K opens the palette even from a text field', () => {
    expect(resolveKey(key('a'), false).command).toEqual({ kind: 'answer' });
    expect(resolveKey(key('X'), false).command).toEqual({ kind: 'selectAll' });
    expect(resolveKey(key('k', { ctrlKey: true }), false).command).toEqual({ kind: 'palette' });
    expect(resolveKey(key('k', { metaKey: true, inTextField: true }), false).command).toEqual({
      kind: 'palette',
    });
    expect(resolveKey(key('k', { ctrlKey: true, altKey: true }), false).command).toBeNull();
  });
  it('g then a letter jumps to a view', () => {
    const first = resolveKey(key('g'), false);
    expect(first).toEqual({ command: null, pendingG: true });
    expect(resolveKey(key('f'), true).command).toEqual({ kind: 'view', view: 'failed' });
    expect(resolveKey(key('z'), true)).toEqual({ command: null, pendingG: false });
  });
  it('leaves text fields, controls and modified keys alone, except Escape', () => {
    expect(resolveKey(key('j', { inTextField: true }), false).command).toBeNull();
    expect(resolveKey(key('Escape', { inTextField: true }), false).command).toEqual({ kind: 'close' });
    expect(resolveKey(key('Enter', { inControl: true }), false).command).toBeNull();
    expect(resolveKey(key('j', { inControl: true }), false).command).toEqual({ kind: 'next' });
    expect(resolveKey(key('j', { ctrlKey: true }), false).command).toBeNull();
  });
});

describe('consequences', () => {
  it('states the cascade the store reports for a cancel', () => {
    const lines = commandConsequences('cancel', {
      liveOwner: false,
      cascade: {
        attemptsCancelled: 1,
        attemptsInterrupted: 0,
        effectsCancelled: 3,
        effectsAmbiguous: 2,
        interactionsCancelled: 1,
      },
    });
    expect(lines).toContain(
      '2 applying effects will become ambiguous: you will have to say whether they happened.',
    );
    expect(lines).toContain('3 pending effects will be cancelled.');
    expect(lines).toContain('1 open question will be cancelled.');
    expect(lines).toContain('1 active step will be cancelled.');
  });
  it('warns when a live owner would make the store refuse', () => {
    const empty = {
      attemptsCancelled: 0,
      attemptsInterrupted: 0,
      effectsCancelled: 0,
      effectsAmbiguous: 0,
      interactionsCancelled: 0,
    };
    expect(commandConsequences('cancel', { liveOwner: true, cascade: empty }).join(' ')).toMatch(
      /Request cancel instead/,
    );
    expect(cascadeText(empty)).toBe('nothing else affected');
  });
  it('pre-fills a reason', () => {
    expect(defaultReason('requestCancel', null)).toBe('Cancel requested from Runwarden.');
  });
  it('names recoveries as buttons', () => {
    expect(recoveryLabel({ kind: 'requestCancel', runId: 'r' })).toBe('Request cancel instead');
    expect(recoveryLabel({ kind: 'refresh' })).toBe('Refresh');
  });
});

describe('timeline', () => {
  const event = (seq: number, type: EventType, extra: Partial<RunEvent> = {}): RunEvent => ({
    seq,
    runId: 'r',
    runRevision: seq,
    type,
    actorType: 'runner',
    actorId: 'w1',
    surface: 'sdk',
    leaseGeneration: 1,
    payload: {},
    at: seq * 1000,
    ...extra,
  });
  it('orders events, folds repeated heartbeats, and names operators with their surface and reason', () => {
    const entries = timelineEntries([
      event(5, 'run.cancelled', {
        actorType: 'human',
        actorId: 'dev',
        surface: 'app',
        payload: {
          stale: true,
          reason: 'stuck',
          cascade: {
            attemptsCancelled: 1,
            attemptsInterrupted: 0,
            effectsCancelled: 0,
            effectsAmbiguous: 2,
            interactionsCancelled: 0,
          },
        },
      }),
      event(1, 'run.claimed'),
      event(2, 'run.progress'),
      event(3, 'run.progress'),
      event(4, 'run.runner_lost', { actorType: 'host', actorId: null, surface: 'sweeper' }),
    ]);
    expect(entries.map((e) => [e.title, e.count])).toEqual([
      ['Lease claimed', 1],
      ['Progress', 2],
      ['Runner lost: lease expired', 1],
      ['Cancelled', 1],
    ]);
    const cancelled = entries[3]!;
    expect(cancelled.kind).toBe('operator');
    expect(cancelled.actor).toBe('human dev via app');
    expect(cancelled.details).toEqual([
      'Stale run: no live runner held it.',
      'reason: stuck',
      'Cascade: 1 attempt cancelled, 2 applying effects became ambiguous',
    ]);
    expect(entries[2]!.actor).toBe('host via sweeper');
  });
});

describe('store banner', () => {
  const info = {
    path: '/s',
    mode: 'read-only' as const,
    modeReason: 'Made by Runwarden schema 9.',
    schemaVersion: 9,
    supportedVersion: 1,
    sizeBytes: 0,
    walBytes: 0,
  };
  it('explains each store problem with what to do', () => {
    expect(storeBanner(null, null, null)).toBeNull();
    expect(
      storeBanner(null, { mode: 'read-write', modeReason: null, busy: false, disconnected: true }, null),
    ).toMatchObject({ tone: 'danger', title: 'Lost the connection to runwarden serve.' });
    expect(storeBanner({ ...info, mode: 'read-write', schemaVersion: 1 }, null, null)).toBeNull();
    expect(storeBanner(info, null, null)?.title).toBe('Read-only: this store was made by a newer Runwarden.');
    expect(storeBanner(null, { mode: 'read-write', modeReason: null, busy: true }, null)?.title).toBe(
      'The store is busy.',
    );
    const corrupt = storeBanner(null, null, { code: 'STORE_CORRUPT', message: 'Header is damaged.' });
    expect(corrupt?.tone).toBe('danger');
    expect(corrupt?.advice).toContain('runwarden doctor');
  });

  it('says the disk is full, or that the store became read-only, instead of a generic failure', () => {
    const full = storeBanner(
      null,
      {
        mode: 'read-write',
        modeReason: null,
        busy: false,
        writeError: {
          code: 'DISK_FULL',
          message: 'The disk holding the store is full: nothing was written.',
        },
      },
      null,
    );
    expect(full).toMatchObject({ tone: 'danger', title: 'The disk is full: nothing can be saved.' });
    expect(full?.advice).toContain('nothing was written');
    const readOnly = storeBanner(
      null,
      {
        mode: 'read-write',
        modeReason: null,
        busy: false,
        writeError: {
          code: 'READ_ONLY',
          message: 'The store cannot be written: its file or folder is read-only.',
        },
      },
      null,
    );
    expect(readOnly?.title).toBe('The store became read-only.');
    expect(storeBanner(null, null, { code: 'DISK_FULL', message: 'No space.' })?.title).toBe(
      'The disk is full.',
    );
  });
});
