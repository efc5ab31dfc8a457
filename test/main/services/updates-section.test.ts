/**
 * Settings' Updates section through the dispatcher (docs/DESKTOP-CHECKLIST.md#updates): the desktop app's
 * channels over the real UpdateController with an injected updater, the automatic check persisted in the
 * store's settings, and browser mode, which has no updater and says why.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDispatcher, type Dispatch } from '../../../main/services/dispatcher';
import { browserUpdateStatus } from '../../../main/services/handlers';
import { loadSettings } from '../../../main/services/settings-service';
import { openStore } from '../../../main/store';
import { UpdateController, updateActions, type Updater } from '../../../main/electron/update-controller';
import type { Settings, UpdateStatus } from '../../../shared/views';
import { HUMAN, createTempStore, type TempStore } from '../../helpers/temp-store';

let t: TempStore;
beforeEach(() => {
  t = createTempStore();
});
afterEach(() => t.cleanup());

/** An updater whose check waits until the test lets it answer; it records downloads and installs. */
function injectedUpdater(version: string, notes: unknown) {
  const calls: string[] = [];
  let answer: () => void = () => {};
  const updater: Updater = {
    autoDownload: true,
    autoInstallOnAppQuit: false,
    allowDowngrade: true,
    checkForUpdates: () => {
      calls.push('check');
      return new Promise((resolve) => {
        answer = () => resolve({ isUpdateAvailable: true, updateInfo: { version, releaseNotes: notes } });
      });
    },
    downloadUpdate: () => (calls.push('download'), Promise.resolve([])),
    quitAndInstall: () => void calls.push('install'),
  };
  return { updater, calls, answer: () => answer() };
}

function desktop(updater: Updater, questions: { open: number }) {
  const controller = new UpdateController({
    updater,
    plan: { kind: 'install', reason: null },
    feed: { provider: 'github', owner: 'someone', repo: 'runwarden' },
    currentVersion: '0.1.0',
    now: () => 5_000,
  });
  const changed: Settings[] = [];
  const dispatch = createDispatcher({
    store: t.store,
    clock: t.clock,
    actor: HUMAN,
    onSettingsChanged: (next) => changed.push(next),
    updates: updateActions(controller, () => questions.open),
  });
  return { controller, dispatch, changed };
}

function value<T>(result: ReturnType<Dispatch>): T {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.value as T;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('the Updates section in the desktop app', () => {
  it('"Check now" answers at once; the status follows the check to a download ready to install', async () => {
    const fake = injectedUpdater('0.1.1', '<h2>Fixes</h2><ul><li>the hook &amp; the tray</li></ul>');
    const { dispatch } = desktop(fake.updater, { open: 0 });
    expect(value<UpdateStatus>(dispatch('updates:status', {}))).toMatchObject({
      phase: 'idle',
      currentVersion: '0.1.0',
      plan: { kind: 'install' },
      restartRequested: false,
    });
    expect(value<UpdateStatus>(dispatch('updates:check', {})).phase).toBe('checking');
    // A second press joins the check under way.
    expect(value<UpdateStatus>(dispatch('updates:check', {})).phase).toBe('checking');
    fake.answer();
    await settle();
    await settle();
    const status = value<UpdateStatus>(dispatch('updates:status', {}));
    expect(status).toMatchObject({ phase: 'ready', latestVersion: '0.1.1', checkedAt: 5_000 });
    // The release's HTML arrives as plain text: nothing in it is markup any more.
    expect(status.releaseNotes).toBe('Fixes\nthe hook & the tray');
    expect(fake.calls).toEqual(['check', 'download']);
  });

  it('"Restart to update" waits while a question is open, then restarts once none is', async () => {
    const fake = injectedUpdater('0.1.1', null);
    const questions = { open: 1 };
    const { controller, dispatch } = desktop(fake.updater, questions);
    expect(dispatch('updates:restart', {})).toMatchObject({
      ok: false,
      error: { code: 'CONFLICT', message: 'No update is downloaded yet: check for updates first.' },
    });
    dispatch('updates:check', {});
    fake.answer();
    await settle();
    await settle();
    const waiting = value<UpdateStatus>(dispatch('updates:restart', {}));
    expect(waiting).toMatchObject({
      phase: 'ready',
      restartRequested: true,
      message: 'A question is open: Runwarden restarts to update once it is answered.',
    });
    expect(fake.calls).not.toContain('install');
    // The shell's next decision (the attention changed, or the minute's timer): the person asked, so the
    // machine's idle time no longer matters; the open question still does.
    expect(controller.restart({ openQuestions: 1, idleSeconds: 0 }).restart).toBe(false);
    questions.open = 0;
    expect(controller.restart({ openQuestions: 0, idleSeconds: 0 })).toEqual({ restart: true });
    expect(fake.calls.filter((c) => c === 'install')).toHaveLength(1);
  });

  it('with no question open the restart is immediate', async () => {
    const fake = injectedUpdater('0.2.0', null);
    const { dispatch } = desktop(fake.updater, { open: 0 });
    dispatch('updates:check', {});
    fake.answer();
    await settle();
    await settle();
    dispatch('updates:restart', {});
    expect(fake.calls).toEqual(['check', 'download', 'install']);
  });

  it('the automatic check is a setting, on by default, persisted in the store', () => {
    const fake = injectedUpdater('0.1.1', null);
    const { dispatch, changed } = desktop(fake.updater, { open: 0 });
    expect(value<Settings>(dispatch('settings:get', {})).autoUpdateCheck).toBe(true);
    expect(
      value<Settings>(dispatch('settings:set', { patch: { autoUpdateCheck: false } })).autoUpdateCheck,
    ).toBe(false);
    expect(changed.map((s) => s.autoUpdateCheck)).toEqual([false]);
    expect(dispatch('settings:set', { patch: { autoUpdateCheck: 'no' } })).toMatchObject({
      ok: false,
      error: { code: 'VALIDATION' },
    });
    t.store.close();
    const reopened = openStore(t.path);
    try {
      expect(loadSettings(reopened).autoUpdateCheck).toBe(false);
    } finally {
      reopened.close();
    }
  });
});

describe('browser mode', () => {
  it('says updates are not available and why; checking and restarting are refused with a sentence', () => {
    const dispatch = createDispatcher({
      store: t.store,
      clock: t.clock,
      actor: HUMAN,
      onSettingsChanged: () => {},
    });
    const status = value<UpdateStatus>(dispatch('updates:status', {}));
    expect(status).toEqual(browserUpdateStatus());
    expect(status.phase).toBe('off');
    expect(status.currentVersion).toMatch(/^\d+\.\d+\.\d+/);
    expect(status.plan.reason).toMatch(/^Updates are not available in a browser: /);
    for (const channel of ['updates:check', 'updates:restart'] as const) {
      expect(dispatch(channel, {})).toMatchObject({
        ok: false,
        error: {
          code: 'FORBIDDEN',
          message: "Updates are checked and installed from the desktop app's Settings, not from a browser.",
        },
      });
    }
  });
});
