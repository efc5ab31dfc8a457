/** Ages, durations and countdowns, with the platform's Intl formatters (no date library: Intl does it). */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const relativeFormatters = new Map<string, Intl.RelativeTimeFormat>();
function relativeFormatter(locale: string | undefined): Intl.RelativeTimeFormat {
  const key = locale ?? '';
  let formatter = relativeFormatters.get(key);
  if (formatter === undefined) {
    formatter = new Intl.RelativeTimeFormat(locale, { numeric: 'auto', style: 'narrow' });
    relativeFormatters.set(key, formatter);
  }
  return formatter;
}

/**
 * "5m ago", "3h ago", "yesterday": how long ago `at` was, relative to `now` — the window's one relative-time
 * formatter. Each unit counts whole units passed (59m 40s is "59m ago", never "60m ago"), so an older
 * time never reads as newer than a later one ("60m ago" above "1h ago").
 */
export function relativeAge(at: number, now: number, locale?: string): string {
  const diff = at - now;
  const abs = Math.abs(diff);
  const format = relativeFormatter(locale);
  const whole = (unit: number) => Math.trunc(diff / unit) || 0;
  if (abs < 10 * SECOND) return format.format(0, 'second');
  if (abs < MINUTE) return format.format(whole(SECOND), 'second');
  if (abs < HOUR) return format.format(whole(MINUTE), 'minute');
  if (abs < DAY) return format.format(whole(HOUR), 'hour');
  if (abs < 30 * DAY) return format.format(whole(DAY), 'day');
  if (abs < 365 * DAY) return format.format(whole(30 * DAY), 'month');
  return format.format(whole(365 * DAY), 'year');
}

const absoluteFormatters = new Map<string, Intl.DateTimeFormat>();
/** A full local date and time, for tooltips and the timeline. */
export function absoluteTime(at: number, locale?: string): string {
  const key = locale ?? '';
  let formatter = absoluteFormatters.get(key);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'medium' });
    absoluteFormatters.set(key, formatter);
  }
  return formatter.format(at);
}

/** A compact duration: "45s", "2m 05s", "1h 04m", "3d 2h". Negative inputs count as zero. */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / SECOND));
  const days = Math.floor(total / 86_400);
  const hours = Math.floor((total % 86_400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  if (days > 0) return `${days}d ${hours}h`;
  if (hours > 0) return `${hours}h ${pad(minutes)}m`;
  if (minutes > 0) return `${minutes}m ${pad(seconds)}s`;
  return `${seconds}s`;
}

function pad(n: number): string {
  return n.toString().padStart(2, '0');
}

export interface Countdown {
  expired: boolean;
  /** "4m 59s left" or "expired 12s ago". */
  text: string;
  /** Under a minute left: shown with more emphasis. */
  urgent: boolean;
}

/** Time left until a deadline. */
export function countdown(deadline: number, now: number): Countdown {
  const left = deadline - now;
  if (left <= 0) return { expired: true, text: `expired ${formatDuration(-left)} ago`, urgent: true };
  return { expired: false, text: `${formatDuration(left)} left`, urgent: left < MINUTE };
}
