/**
 * Desktop notifications (SPEC §7): the host decides what to show and when (rules, coalescing); this shows
 * it with Electron's Notification, as plain text, and a click opens the run.
 */
import type { NotificationConstructorOptions } from 'electron';
import type { DesktopNotice, Notifier } from '../services/host-types';

const MAX_TITLE = 120;
const MAX_BODY = 400;
/** Notifications kept referenced so their click handlers survive garbage collection. */
const MAX_LIVE = 20;

/**
 * Plain text for a notification (SPEC §8: strings from the store are untrusted): control characters go and
 * length is capped.
 */
export function plainNotificationText(text: string, max: number): string {
  // oxlint-disable-next-line no-control-regex -- stripping control characters is the point
  const flat = text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * The body as the platform will render it. Electron hands the Linux body to libnotify unchanged, and
 * notification servers with the `body-markup` capability render `<b>`, `<a href>` and entities in it, so
 * on Linux markup characters are escaped: they show as typed and nothing becomes a link. (The summary line
 * is never markup.) macOS and Windows render the body as text already.
 */
export function notificationBody(text: string, platform: NodeJS.Platform): string {
  const plain = plainNotificationText(text, MAX_BODY);
  if (platform !== 'linux') return plain;
  return plain.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function notificationOptions(
  notice: DesktopNotice,
  platform: NodeJS.Platform,
): NotificationConstructorOptions {
  return {
    title: plainNotificationText(notice.title, MAX_TITLE),
    body: notificationBody(notice.body, platform),
    silent: notice.level === 'info' || notice.level === 'success',
    urgency: notice.level === 'attention' || notice.level === 'failure' ? 'critical' : 'normal',
  };
}

/** The part of Electron's Notification this uses. */
export interface ShownNotification {
  on(event: 'click' | 'close', listener: () => void): unknown;
  show(): void;
}

export interface NotifierDeps {
  create(options: NotificationConstructorOptions): ShownNotification;
  isSupported(): boolean;
  openRun(runId: string): void;
  openWindow(): void;
  /** The `notificationsPaused` setting, read at each notice. */
  paused(): boolean;
  platform: NodeJS.Platform;
}

export function createNotifier(deps: NotifierDeps): Notifier {
  const live = new Set<ShownNotification>();
  return {
    show(notice) {
      if (deps.paused() || !deps.isSupported()) return;
      const notification = deps.create(notificationOptions(notice, deps.platform));
      const release = (): void => {
        live.delete(notification);
      };
      notification.on('click', () => {
        release();
        if (notice.runId !== null) deps.openRun(notice.runId);
        else deps.openWindow();
      });
      notification.on('close', release);
      live.add(notification);
      if (live.size > MAX_LIVE) {
        const oldest = live.values().next().value;
        if (oldest !== undefined) live.delete(oldest);
      }
      notification.show();
    },
  };
}
