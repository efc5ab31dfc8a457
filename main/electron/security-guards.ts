/**
 * The Electron security checklist applied to every web contents and to the session
 * (https://www.electronjs.org/docs/latest/tutorial/security). The window only ever shows our own
 * bundled `index.html`; everything else is refused. Decisions are pure functions, tested as tables.
 */
import type { Session, WebContents } from 'electron';
import { CONTENT_SECURITY_POLICY_HEADER } from '../../shared/csp';
import type { Disposer } from './disposables';

/**
 * A file URL's path as the file system compares it: percent-escapes decoded (Chromium and Node escape some
 * characters of a path differently), and case-folded on Windows. There paths are case-insensitive, and the
 * two sides disagree in practice: Chromium upper-cases the drive letter of the page it loaded while Node
 * keeps the case it was started with (`c:\...` from some terminals), so an exact comparison would refuse the
 * page's own files and every IPC call.
 */
export function comparablePath(url: URL, platform: NodeJS.Platform = process.platform): string | null {
  // An escaped separator names no file on disk; refuse it rather than decode it into one.
  if (/%2f|%5c/i.test(url.pathname)) return null;
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    return null;
  }
  return platform === 'win32' ? path.toLowerCase() : path;
}

/**
 * Checklist 13: navigation stays on our page. Only the app's own index.html (any fragment: the UI routes by
 * hash) is allowed; other files, query strings, other schemes and remote pages are refused.
 */
export function isAppPageUrl(
  candidate: string,
  appIndexUrl: string,
  platform: NodeJS.Platform = process.platform,
): boolean {
  let url: URL;
  let app: URL;
  try {
    url = new URL(candidate);
    app = new URL(appIndexUrl);
  } catch {
    return false;
  }
  const path = comparablePath(url, platform);
  return (
    url.protocol === 'file:' &&
    path !== null &&
    app.protocol === 'file:' &&
    url.host === app.host &&
    path === comparablePath(app, platform) &&
    url.search === '' &&
    url.username === '' &&
    url.password === ''
  );
}

/**
 * Checklist 1 and 14: the renderer never reaches the network. Our page is `file://`; DevTools and inline
 * `data:`/`blob:` resources are local. Every other scheme (http, https, ws, ftp, ...) is cancelled.
 */
export function isAllowedRequestUrl(
  candidate: string,
  rendererRoot: string,
  platform: NodeJS.Platform = process.platform,
): boolean {
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    return false;
  }
  // Local files only from the built renderer's folder: a page that was tricked into loading another local
  // file would otherwise run it under `script-src 'self'`, which covers every file:// URL.
  if (url.protocol === 'file:') {
    const path = comparablePath(url, platform);
    const root = comparablePath(new URL(rendererRoot), platform);
    return path !== null && root !== null && path.startsWith(root.endsWith('/') ? root : `${root}/`);
  }
  return url.protocol === 'devtools:' || url.protocol === 'data:' || url.protocol === 'blob:';
}

/** Adds our CSP to a response's headers (checklist 7), replacing any policy the response brought. */
export function withCspHeader(
  headers: Record<string, string[]> | undefined,
  policy: string = CONTENT_SECURITY_POLICY_HEADER,
): Record<string, string[]> {
  const next: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() !== 'content-security-policy') next[name] = value;
  }
  next['Content-Security-Policy'] = [policy];
  return next;
}

function preventWebviewAttach(event: Electron.Event): void {
  event.preventDefault();
}

/** The web-contents surface the guards use: a structural subset of Electron's WebContents. */
export type GuardedContents = Pick<WebContents, 'on' | 'off' | 'setWindowOpenHandler'>;

/**
 * Guards one web contents: navigation and redirects away from our page (checklist 13), new windows
 * (checklist 14: denied, and *not* forwarded to `shell.openExternal`: links from runs are never opened,
 * the window never hands a run's text to the OS), and `<webview>` attachment (checklist 12).
 */
export function guardWebContents(contents: GuardedContents, appIndexUrl: string): Disposer {
  const onWillNavigate = (event: Electron.Event<Electron.WebContentsWillNavigateEventParams>): void => {
    if (!isAppPageUrl(event.url, appIndexUrl)) event.preventDefault();
  };
  const onWillFrameNavigate = (
    event: Electron.Event<Electron.WebContentsWillFrameNavigateEventParams>,
  ): void => {
    if (!isAppPageUrl(event.url, appIndexUrl)) event.preventDefault();
  };
  const onWillRedirect = (event: Electron.Event<Electron.WebContentsWillRedirectEventParams>): void => {
    if (!isAppPageUrl(event.url, appIndexUrl)) event.preventDefault();
  };
  contents.on('will-navigate', onWillNavigate);
  contents.on('will-frame-navigate', onWillFrameNavigate);
  contents.on('will-redirect', onWillRedirect);
  contents.on('will-attach-webview', preventWebviewAttach);
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  return () => {
    contents.off('will-navigate', onWillNavigate);
    contents.off('will-frame-navigate', onWillFrameNavigate);
    contents.off('will-redirect', onWillRedirect);
    contents.off('will-attach-webview', preventWebviewAttach);
  };
}

/** The session surface the guards use. */
export interface GuardedSession {
  setPermissionRequestHandler: Session['setPermissionRequestHandler'];
  setPermissionCheckHandler: Session['setPermissionCheckHandler'];
  setDevicePermissionHandler: Session['setDevicePermissionHandler'];
  webRequest: Pick<Session['webRequest'], 'onBeforeRequest' | 'onHeadersReceived'>;
}

/**
 * The one permission the UI uses: `clipboard-sanitized-write`, which `navigator.clipboard.writeText` (the
 * Copy buttons) asks for. Granted only to our own page's main frame; everything else stays denied.
 */
export const GRANTED_PERMISSIONS: ReadonlySet<string> = new Set(['clipboard-sanitized-write']);

export function isPermissionGranted(
  permission: string,
  requestingUrl: string | undefined,
  appIndexUrl: string,
  platform: NodeJS.Platform = process.platform,
): boolean {
  return (
    GRANTED_PERMISSIONS.has(permission) &&
    requestingUrl !== undefined &&
    isAppPageUrl(requestingUrl, appIndexUrl, platform)
  );
}

/**
 * Guards the session: every permission request and check denied (checklist 5) except the clipboard write of
 * our own page, remote requests cancelled, and the CSP added as a header to anything that does come back over
 * HTTP. Our own page is `file://`, which has no headers: there the meta tag injected at build time applies.
 */
export function guardSession(
  session: GuardedSession,
  appIndexUrl: string,
  platform: NodeJS.Platform = process.platform,
): void {
  const rendererRoot = new URL('./', appIndexUrl).href;
  session.setPermissionRequestHandler((_contents, permission, callback, details) =>
    callback(isPermissionGranted(permission, details?.requestingUrl, appIndexUrl, platform)),
  );
  session.setPermissionCheckHandler((_contents, permission, _origin, details) =>
    isPermissionGranted(permission, details?.requestingUrl, appIndexUrl, platform),
  );
  session.setDevicePermissionHandler(() => false);
  session.webRequest.onBeforeRequest((details, callback) => {
    callback({ cancel: !isAllowedRequestUrl(details.url, rendererRoot, platform) });
  });
  session.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: withCspHeader(details.responseHeaders) });
  });
  // No disposer on purpose: the session outlives every window, and its guards must never be lifted.
}
