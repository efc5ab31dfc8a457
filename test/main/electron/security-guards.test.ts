import { describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY_HEADER } from '../../../shared/csp';
import {
  guardSession,
  guardWebContents,
  isAllowedRequestUrl,
  isAppPageUrl,
  withCspHeader,
  type GuardedContents,
  type GuardedSession,
} from '../../../main/electron/security-guards';
import { FakeEvent, FakeSession, FakeWebContents } from './fake-electron';

const APP = 'file:///opt/Runwarden/resources/app.asar/out/renderer/index.html';

describe('isAppPageUrl (navigation guard, checklist 13)', () => {
  it.each([
    [APP, true],
    [`${APP}#/runs/r1`, true],
    [`${APP}#`, true],
    [`${APP}?token=x`, false],
    ['file:///opt/Runwarden/resources/app.asar/out/renderer/other.html', false],
    ['file:///etc/passwd', false],
    ['file://remote-host/opt/Runwarden/resources/app.asar/out/renderer/index.html', false],
    ['https://example.com/', false],
    ['http://127.0.0.1:5173/index.html', false],
    ['javascript:alert(1)', false],
    ['data:text/html,<script>alert(1)</script>', false],
    ['runwarden://run/abc', false],
    ['devtools://devtools/bundled/inspector.html', false],
    ['about:blank', false],
    ['not a url', false],
    ['', false],
  ])('%s → %s', (url, allowed) => {
    expect(isAppPageUrl(url, APP)).toBe(allowed);
  });

  it('compares paths decoded, as Chromium and Node escape some characters differently', () => {
    const app = "file:///home/o'neil/My%20Apps/out/renderer/index.html";
    expect(isAppPageUrl('file:///home/o%27neil/My%20Apps/out/renderer/index.html#/x', app)).toBe(true);
    expect(isAppPageUrl('file:///home/o%27neil/My%20Apps/out/renderer/%69ndex.html', app)).toBe(true);
    expect(isAppPageUrl('file:///home/o%27neil/My%20Apps/out/renderer%2Findex.html', app)).toBe(false);
    expect(isAppPageUrl('file:///home/o%27neil/My%20Apps/out/renderer%5cindex.html', app)).toBe(false);
    expect(isAppPageUrl('file:///home/o%27neil/%E0%A4%A/index.html', app)).toBe(false);
    expect(isAppPageUrl('file:///home/other/My%20Apps/out/renderer/index.html', app)).toBe(false);
  });

  it('refuses everything when the app URL itself is not a file URL', () => {
    expect(isAppPageUrl('http://localhost/', 'http://localhost/')).toBe(false);
  });
});

describe('isAllowedRequestUrl (no remote content, checklist 1)', () => {
  it.each([
    [`${APP}`, true],
    ['file:///opt/Runwarden/resources/app.asar/out/renderer/assets/index.js', true],
    ['file:///etc/passwd', false],
    ['file:///home/me/Downloads/evil.js', false],
    ['file:///opt/Runwarden/resources/app.asar/out/renderer-evil/x.js', false],
    ['devtools://devtools/bundled/inspector.html', true],
    ['data:image/png;base64,AAAA', true],
    ['blob:file:///0f1e', true],
    ['https://example.com/x.js', false],
    ['http://127.0.0.1:8080/api', false],
    ['ws://localhost:1234/', false],
    ['wss://example.com/', false],
    ['ftp://example.com/', false],
    ['chrome-extension://abc/x.js', false],
    ['garbage', false],
  ])('%s → %s', (url, allowed) => {
    expect(isAllowedRequestUrl(url, new URL('./', APP).href)).toBe(allowed);
  });
});

describe('withCspHeader', () => {
  it('adds the policy and replaces any policy the response brought, whatever its case', () => {
    const headers = withCspHeader({
      'content-security-policy': ["default-src *; script-src 'unsafe-inline'"],
      'Content-Type': ['text/html'],
    });
    expect(headers).toEqual({
      'Content-Type': ['text/html'],
      'Content-Security-Policy': [CONTENT_SECURITY_POLICY_HEADER],
    });
  });

  it('works without headers', () => {
    expect(withCspHeader(undefined)).toEqual({ 'Content-Security-Policy': [CONTENT_SECURITY_POLICY_HEADER] });
  });
});

function guardedContents() {
  const contents = new FakeWebContents();
  const dispose = guardWebContents(contents as unknown as GuardedContents, APP);
  return { contents, dispose };
}

function guardedSession() {
  const session = new FakeSession();
  guardSession(session as unknown as GuardedSession, APP);
  return session;
}

describe('guardWebContents', () => {
  it.each(['will-navigate', 'will-frame-navigate', 'will-redirect'])(
    '%s: denies other pages, allows our own',
    (eventName) => {
      const { contents } = guardedContents();
      const away = new FakeEvent('https://evil.example/');
      contents.emit(eventName, away);
      expect(away.defaultPrevented).toBe(true);
      const file = new FakeEvent('file:///home/me/.ssh/id_rsa');
      contents.emit(eventName, file);
      expect(file.defaultPrevented).toBe(true);
      const ours = new FakeEvent(`${APP}#/runs/r1`);
      contents.emit(eventName, ours);
      expect(ours.defaultPrevented).toBe(false);
    },
  );

  it('denies every new window (and never opens it externally)', () => {
    const { contents } = guardedContents();
    for (const url of ['https://example.com', APP, 'mailto:a@b.c', 'file:///etc/passwd']) {
      expect(contents.windowOpenHandler?.({ url })).toEqual({ action: 'deny' });
    }
  });

  it('denies attaching a <webview> (checklist 12)', () => {
    const { contents } = guardedContents();
    const event = new FakeEvent();
    contents.emit('will-attach-webview', event, {}, {});
    expect(event.defaultPrevented).toBe(true);
  });

  it('removes its listeners when disposed', () => {
    const { contents, dispose } = guardedContents();
    expect(contents.listenerCount('will-navigate')).toBe(1);
    dispose();
    for (const name of ['will-navigate', 'will-frame-navigate', 'will-redirect', 'will-attach-webview']) {
      expect(contents.listenerCount(name)).toBe(0);
    }
  });
});

describe('guardSession', () => {
  it.each(['media', 'geolocation', 'notifications', 'openExternal', 'clipboard-read', 'fullscreen'])(
    'denies the %s permission request',
    (permission) => {
      const session = guardedSession();
      const answers: boolean[] = [];
      const request = session.permissionRequest as unknown as (
        wc: unknown,
        p: string,
        cb: (granted: boolean) => void,
      ) => void;
      request({}, permission, (granted) => answers.push(granted));
      expect(answers).toEqual([false]);
      const check = session.permissionCheck as unknown as (wc: unknown, p: string) => boolean;
      expect(check({}, permission)).toBe(false);
    },
  );

  it('denies device access', () => {
    const session = guardedSession();
    expect((session.devicePermission as unknown as () => boolean)()).toBe(false);
  });

  it("cancels remote requests and local files outside the app's renderer folder", () => {
    const session = guardedSession();
    const before = session.webRequest.beforeRequest as unknown as (
      details: { url: string },
      cb: (r: { cancel: boolean }) => void,
    ) => void;
    const decide = (url: string) => {
      let cancel: boolean | undefined;
      before({ url }, (r) => (cancel = r.cancel));
      return cancel;
    };
    expect(decide('https://tracker.example/pixel.gif')).toBe(true);
    expect(decide(APP)).toBe(false);
    expect(decide('file:///home/me/Downloads/payload.js')).toBe(true);
  });

  it('adds the CSP header to responses', () => {
    const session = guardedSession();
    const headers = session.webRequest.headersReceived as unknown as (
      details: { responseHeaders?: Record<string, string[]> },
      cb: (r: { responseHeaders: Record<string, string[]> }) => void,
    ) => void;
    let result: Record<string, string[]> | undefined;
    headers({ responseHeaders: {} }, (r) => (result = r.responseHeaders));
    expect(result?.['Content-Security-Policy']).toEqual([CONTENT_SECURITY_POLICY_HEADER]);
  });
});

describe('Windows paths (case-insensitive, as the file system is)', () => {
  // Started from a terminal that reports `c:\...`, Node's URL has a lower-case drive; Chromium's page URL has it upper-cased.
  const NODE_SIDE = 'file:///c:/Users/me/runwarden/out/renderer/index.html';
  const CHROMIUM_SIDE = 'file:///C:/Users/me/runwarden/out/renderer/index.html';

  it('on win32 the page and its files match whatever the drive letter case', () => {
    expect(isAppPageUrl(`${CHROMIUM_SIDE}#/runs/r1`, NODE_SIDE, 'win32')).toBe(true);
    expect(isAppPageUrl('file:///C:/USERS/ME/Runwarden/OUT/renderer/INDEX.html', NODE_SIDE, 'win32')).toBe(
      true,
    );
    const root = new URL('./', NODE_SIDE).href;
    expect(
      isAllowedRequestUrl('file:///C:/Users/me/runwarden/out/renderer/assets/index.js', root, 'win32'),
    ).toBe(true);
    expect(isAllowedRequestUrl('file:///C:/Users/me/Downloads/evil.js', root, 'win32')).toBe(false);
    expect(isAllowedRequestUrl('file:///C:/Users/me/runwarden/out/renderer-evil/x.js', root, 'win32')).toBe(
      false,
    );
    expect(isAppPageUrl('file:///D:/Users/me/runwarden/out/renderer/index.html', NODE_SIDE, 'win32')).toBe(
      false,
    );
  });

  it('elsewhere case still matters (Linux file systems are case-sensitive)', () => {
    expect(isAppPageUrl(CHROMIUM_SIDE, NODE_SIDE, 'linux')).toBe(false);
    expect(isAppPageUrl(APP.replace('renderer', 'Renderer'), APP, 'darwin')).toBe(false);
  });

  it('a Windows session lets the page load its own files and refuses others', () => {
    const session = new FakeSession();
    guardSession(session as unknown as GuardedSession, NODE_SIDE, 'win32');
    const before = session.webRequest.beforeRequest as unknown as (
      details: { url: string },
      cb: (r: { cancel: boolean }) => void,
    ) => void;
    const cancelled = (url: string) => {
      let cancel: boolean | undefined;
      before({ url }, (r) => (cancel = r.cancel));
      return cancel;
    };
    expect(cancelled(CHROMIUM_SIDE)).toBe(false);
    expect(cancelled('file:///C:/Users/me/runwarden/out/renderer/assets/app.css')).toBe(false);
    expect(cancelled('file:///C:/Windows/win.ini')).toBe(true);
  });
});

describe('the clipboard write permission (the Copy buttons)', () => {
  const request = (session: FakeSession, permission: string, details?: { requestingUrl: string }) => {
    const answers: boolean[] = [];
    const handler = session.permissionRequest as unknown as (
      wc: unknown,
      p: string,
      cb: (granted: boolean) => void,
      d?: { requestingUrl: string },
    ) => void;
    handler({}, permission, (granted) => answers.push(granted), details);
    return answers;
  };
  const check = (session: FakeSession, permission: string, requestingUrl?: string) =>
    (session.permissionCheck as unknown as (wc: unknown, p: string, o: string, d: object) => boolean)(
      null,
      permission,
      'file:///',
      requestingUrl === undefined ? { isMainFrame: true } : { requestingUrl, isMainFrame: true },
    );

  it('is granted to our page only', () => {
    const session = guardedSession();
    expect(request(session, 'clipboard-sanitized-write', { requestingUrl: `${APP}#/runs/r1` })).toEqual([
      true,
    ]);
    expect(check(session, 'clipboard-sanitized-write', APP)).toBe(true);
    expect(request(session, 'clipboard-sanitized-write', { requestingUrl: 'https://evil.example/' })).toEqual(
      [false],
    );
    expect(check(session, 'clipboard-sanitized-write', 'file:///tmp/other.html')).toBe(false);
    expect(check(session, 'clipboard-sanitized-write')).toBe(false);
    expect(request(session, 'clipboard-sanitized-write')).toEqual([false]);
  });

  it('reading the clipboard stays denied, even to our page', () => {
    const session = guardedSession();
    expect(request(session, 'clipboard-read', { requestingUrl: APP })).toEqual([false]);
    expect(check(session, 'clipboard-read', APP)).toBe(false);
  });
});
