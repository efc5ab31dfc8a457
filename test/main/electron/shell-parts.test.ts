/**
 * The small shell modules on their own: opening runs only into a listening page, quick answers' failure
 * paths, the app's identity and menu, and macOS template icons.
 */
import { describe, expect, it, vi } from 'vitest';
import { APP_ID, applyAppIdentity, appIdentity } from '../../../main/electron/app-identity';
import { applicationMenu, hideMenuBar } from '../../../main/electron/app-menu';
import { createQuickAnswers, quickAnswerKey, type QuickAnswer } from '../../../main/electron/quick-answers';
import { createRunOpener } from '../../../main/electron/run-opener';
import { templatePixels, templateTrayImage } from '../../../main/electron/template-image';
import { trayIcon } from '../../../main/electron/tray';
import type { Result } from '../../../shared/errors';
import { app, decodePng, resetFakeElectron, type FakeImage } from './fake-electron';
import { TRAY_ICON_PNGS } from '../../../main/electron/tray-icons';

vi.mock('electron', () => import('./fake-electron'));

describe('createRunOpener', () => {
  function opener(initial: string | null = null) {
    const calls: string[] = [];
    let page = true;
    const o = createRunOpener(
      {
        reveal: () => calls.push('reveal'),
        push: (runId) => {
          if (!page) return false;
          calls.push(`push ${runId}`);
          return true;
        },
      },
      initial,
    );
    return { o, calls, noPage: () => (page = false) };
  }

  it('raises the window at once but holds the run until the page listens for open-run', () => {
    const { o, calls } = opener();
    o.open('r1');
    expect(calls).toEqual(['reveal']);
    o.listening(['changed', 'attention']);
    expect(calls).toEqual(['reveal']);
    o.listening(['changed', 'open-run']);
    expect(calls).toEqual(['reveal', 'push r1']);
    expect(o.pending).toBeNull();
  });

  it('a launch deep link waits for the page; only the latest of several waits', () => {
    const { o, calls } = opener('r0');
    o.open('r1');
    o.open('r2');
    o.listening(['open-run']);
    expect(calls).toEqual(['reveal', 'reveal', 'push r2']);
  });

  it('keeps working after in-page view changes; after a new document it waits for the page again', () => {
    const { o, calls } = opener();
    o.listening(['open-run']);
    o.open('r1');
    o.open('r2');
    expect(calls).toEqual(['reveal', 'push r1', 'reveal', 'push r2']);
    o.pageGone();
    o.open('r3');
    expect(calls.at(-1)).toBe('reveal');
    o.listening(['open-run']);
    expect(calls.at(-1)).toBe('push r3');
  });

  it('keeps the run when there is no page to push to', () => {
    const { o, noPage } = opener();
    o.listening(['open-run']);
    noPage();
    o.open('r1');
    expect(o.pending).toBe('r1');
  });
});

describe('createQuickAnswers', () => {
  const answer: QuickAnswer = { runId: 'r1', interactionId: 'i1', revision: 3, choice: 'yes', index: 0 };

  it('sends the window’s request shape with a per-choice key, hiding the question meanwhile', async () => {
    const sent: unknown[] = [];
    let hiddenDuring = false;
    const answers = createQuickAnswers({
      dispatch: (channel, input) => {
        sent.push({ channel, input });
        hiddenDuring = answers.hidden.has('i1');
        return Promise.resolve({ ok: true, value: null });
      },
      changed: () => {},
      failed: () => {},
    });
    await expect(answers.answer(answer)).resolves.toBe(true);
    expect(hiddenDuring).toBe(true);
    expect(sent).toEqual([
      {
        channel: 'interactions:answer',
        input: {
          interactionId: 'i1',
          interactionRevision: 3,
          idempotencyKey: 'quick:i1:r3:c0',
          payload: 'yes',
        },
      },
    ]);
    expect(quickAnswerKey({ interactionId: 'i1', revision: 3, index: 1 })).not.toBe(quickAnswerKey(answer));
    answers.reconcile(['i1']);
    expect(answers.hidden.has('i1')).toBe(true);
    answers.reconcile([]);
    expect(answers.hidden.size).toBe(0);
  });

  it.each([
    [
      'a refusal',
      () =>
        Promise.resolve<Result<unknown>>({
          ok: false,
          error: { code: 'CONFLICT', message: 'Already answered.' },
        }),
      'CONFLICT',
    ],
    ['a throw', () => Promise.reject(new Error('boom')), 'INTERNAL'],
  ] as const)('on %s the question comes back and the person is told', async (_case, dispatch, code) => {
    const failed: string[] = [];
    let changes = 0;
    const answers = createQuickAnswers({
      dispatch,
      changed: () => changes++,
      failed: (_a, e) => failed.push(e.code),
    });
    await expect(answers.answer(answer)).resolves.toBe(false);
    expect(answers.hidden.size).toBe(0);
    expect(changes).toBe(2);
    expect(failed).toEqual([code]);
  });
});

describe('app identity', () => {
  it('installed and development runs get separate userData folders, so separate single-instance locks', () => {
    const installed = appIdentity({ packaged: true, platform: 'linux', appData: '/home/me/.config' });
    const dev = appIdentity({ packaged: false, platform: 'linux', appData: '/home/me/.config' });
    expect(installed).toEqual({
      name: 'Runwarden',
      userData: '/home/me/.config/Runwarden',
      appUserModelId: null,
    });
    expect(dev).toEqual({
      name: 'Runwarden Dev',
      userData: '/home/me/.config/Runwarden Dev',
      appUserModelId: null,
    });
  });

  it('on Windows the AppUserModelID is the installer appId (a dev run gets its own)', () => {
    expect(appIdentity({ packaged: true, platform: 'win32', appData: 'C:/x' }).appUserModelId).toBe(APP_ID);
    expect(appIdentity({ packaged: false, platform: 'win32', appData: 'C:/x' }).appUserModelId).toBe(
      `${APP_ID}.dev`,
    );
  });

  it('is applied through app before the lock', () => {
    resetFakeElectron();
    app.isPackaged = true;
    applyAppIdentity(app, 'win32');
    expect(app.name).toBe('Runwarden');
    expect(app.getPath('userData')).toBe('/home/me/.config/Runwarden');
    expect(app.appUserModelId).toBe('dev.runwarden.app');
  });
});

describe('applicationMenu', () => {
  it('a development run keeps Electron’s default menu (Reload, DevTools)', () => {
    expect(applicationMenu({ packaged: false, platform: 'linux', productName: 'Runwarden' })).toBe('default');
  });

  it.each(['linux', 'win32'] as const)(
    'packaged on %s: only the zoom roles, with the menu bar hidden',
    (platform) => {
      const menu = applicationMenu({ packaged: true, platform, productName: 'Runwarden' });
      if (menu === null || menu === 'default') throw new Error('expected a template');
      expect(menu.map((m) => m.label)).toEqual(['View']);
      const items = menu.flatMap((m) => (Array.isArray(m.submenu) ? m.submenu : []));
      expect(items.map((i) => i.role)).toEqual(['resetZoom', 'zoomIn', 'zoomIn', 'zoomOut']);
      expect(items.find((i) => i.accelerator !== undefined)).toMatchObject({
        accelerator: 'CommandOrControl+=',
        visible: false,
      });
      expect(hideMenuBar(true, platform)).toBe(true);
      expect(hideMenuBar(false, platform)).toBe(false);
      expect(hideMenuBar(true, 'darwin')).toBe(false);
    },
  );

  it('packaged on macOS: app, Edit and Window menus only — no DevTools, Reload or Help', () => {
    const menu = applicationMenu({ packaged: true, platform: 'darwin', productName: 'Runwarden' });
    if (menu === null || menu === 'default') throw new Error('expected a template');
    expect(menu.map((m) => m.label)).toEqual(['Runwarden', 'Edit', 'View', 'Window']);
    const roles = menu.flatMap((m) => (Array.isArray(m.submenu) ? m.submenu : [])).map((i) => i.role);
    expect(roles).toEqual(
      expect.arrayContaining(['copy', 'paste', 'selectAll', 'quit', 'zoomIn', 'zoomOut', 'resetZoom']),
    );
    expect(roles).not.toEqual(expect.arrayContaining(['toggleDevTools']));
    expect(
      roles.some((r) => r === 'reload' || r === 'forceReload' || r === 'toggleDevTools' || r === 'help'),
    ).toBe(false);
  });
});

describe('macOS template tray icons', () => {
  it('black with alpha: the coloured disc stays opaque, the white glyph becomes a hole', () => {
    const { bgra } = decodePng(Buffer.from(TRAY_ICON_PNGS['needs-answer'].x2, 'base64'));
    const out = templatePixels(bgra);
    let opaque = 0;
    let holes = 0;
    for (let i = 0; i < bgra.length; i += 4) {
      expect([out[i], out[i + 1], out[i + 2]]).toEqual([0, 0, 0]);
      const white = (bgra[i] ?? 0) > 240 && (bgra[i + 1] ?? 0) > 240 && (bgra[i + 2] ?? 0) > 240;
      if ((bgra[i + 3] ?? 0) === 255 && white) {
        expect(out[i + 3]).toBe(0);
        holes++;
      }
      if ((out[i + 3] ?? 0) === 255) opaque++;
    }
    expect(holes).toBeGreaterThan(0);
    expect(opaque).toBeGreaterThan(0);
  });

  it('every state differs as a template too (the shape tells it, not the colour)', () => {
    const templates = Object.values(TRAY_ICON_PNGS).map((pngs) =>
      templatePixels(decodePng(Buffer.from(pngs.x2, 'base64')).bgra).toString('base64'),
    );
    expect(new Set(templates).size).toBe(templates.length);
  });

  it('keeps both scale factors and marks the image as a template', () => {
    const template = templateTrayImage(trayIcon('stale') as never) as unknown as FakeImage;
    expect(template.template).toBe(true);
    expect(template.scaleFactors).toEqual([1, 2]);
    expect(template.sizes).toEqual([
      { width: 16, height: 16 },
      { width: 32, height: 32 },
    ]);
  });
});
