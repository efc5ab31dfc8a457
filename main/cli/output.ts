/**
 * Human output helpers: aligned tables, relative times (Intl), colour only for a TTY without NO_COLOR,
 * and the guard every byte of the CLI's own output passes through (sanitize.ts).
 */
import type { DisplayStatus } from '../../shared/display-status';
import { sanitizeLine, sanitizeTerminal } from './sanitize';

export interface OutputStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

/**
 * The CLI's stdout / stderr: every chunk goes through sanitizeTerminal, so a field some command forgot to
 * sanitize still cannot drive the terminal.
 */
export function guardedStream(stream: OutputStream, colour: boolean | (() => boolean)): OutputStream {
  const on = typeof colour === 'boolean' ? () => colour : colour;
  return {
    write: (chunk: string) => stream.write(sanitizeTerminal(chunk, on())),
    get isTTY() {
      return stream.isTTY;
    },
  };
}

/**
 * A stream made on its first write: Node builds `process.stdout` / `stderr` (and loads the stream modules)
 * on first access, a few ms a command that prints nothing (`notify`, `progress`) need not pay. Whether it
 * is a terminal is asked on first read too (node:tty loads net and the stream modules).
 */
export function lazyStream(open: () => OutputStream, isTTY: () => boolean): OutputStream {
  let tty: boolean | undefined;
  return {
    write: (chunk: string) => open().write(chunk),
    get isTTY() {
      tty ??= isTTY();
      return tty;
    },
  };
}

/** `painter`, decided on its first use: a command that prints nothing never asks whether stdout is a terminal. */
export function lazyPainter(enabled: () => boolean): Paint {
  let paint: Paint | undefined;
  return (style, text) => (paint ??= painter(enabled()))(style, text);
}

export type Style = 'bold' | 'dim' | 'red' | 'green' | 'yellow' | 'blue' | 'magenta' | 'cyan';

const ANSI: Record<Style, [number, number]> = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  blue: [34, 39],
  magenta: [35, 39],
  cyan: [36, 39],
};

/** Colour follows https://no-color.org: off when NO_COLOR is set, when not a TTY, or TERM=dumb. */
export function colourEnabled(stream: OutputStream, env: Record<string, string | undefined>): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

export type Paint = (style: Style, text: string) => string;

export function painter(enabled: boolean): Paint {
  if (!enabled) return (_style, text) => text;
  return (style, text) => `\u001b[${ANSI[style][0]}m${text}\u001b[${ANSI[style][1]}m`;
}

const STATUS_STYLE: Record<DisplayStatus, Style> = {
  'needs-answer': 'magenta',
  stale: 'red',
  orphaned: 'red',
  ambiguous: 'yellow',
  parked: 'yellow',
  paused: 'dim',
  running: 'cyan',
  waiting: 'blue',
  queued: 'dim',
  failed: 'red',
  timed_out: 'red',
  cancelled: 'dim',
  completed: 'green',
};

export function statusStyle(status: DisplayStatus): Style {
  return STATUS_STYLE[status];
}

// Strips ANSI colour codes so padding is computed on visible characters.
// oxlint-disable-next-line no-control-regex
const ANSI_PATTERN = /\u001b\[[0-9;]*m/g;

export function visibleLength(text: string): number {
  return [...text.replace(ANSI_PATTERN, '')].length;
}

export interface Column<T> {
  header: string;
  /** Plain text: control characters are neutralised, so values never carry terminal codes. */
  value: (row: T) => string;
  /** Colour for this cell, applied after sanitising and padding. */
  style?: (row: T) => Style | null;
  /** Maximum visible width; longer values are cut with an ellipsis. */
  max?: number;
  align?: 'left' | 'right';
}

/** Renders rows as an aligned text table (two spaces between columns, no trailing spaces). */
export function formatTable<T>(columns: Column<T>[], rows: readonly T[], paint: Paint): string {
  const cells = rows.map((row) =>
    columns.map((column) => truncate(sanitizeLine(column.value(row)), column.max)),
  );
  const widths = columns.map((column, index) =>
    Math.max(visibleLength(column.header), ...cells.map((cell) => visibleLength(cell[index] ?? ''))),
  );
  const render = (values: string[], row: T | null): string =>
    values
      .map((value, index) => {
        const column = columns[index];
        const width = widths[index] ?? 0;
        const pad = ' '.repeat(Math.max(0, width - visibleLength(value)));
        const style = row === null ? 'bold' : (column?.style?.(row) ?? null);
        const text = style === null ? value : paint(style, value);
        if (column?.align === 'right') return pad + text;
        return index === values.length - 1 ? text : text + pad;
      })
      .join('  ')
      .trimEnd();
  const header = render(
    columns.map((column) => column.header),
    null,
  );
  return [header, ...cells.map((cell, index) => render(cell, rows[index] as T))].join('\n') + '\n';
}

export function truncate(text: string, max: number | undefined): string {
  if (max === undefined) return text;
  const chars = [...text];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text;
}

// Made on first use: creating any Intl formatter loads ICU data (a large share of a process's start-up),
// which a command that prints no time (notify, progress) must not pay.
let relativeFormat: Intl.RelativeTimeFormat | null = null;

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
];

/** "5 min. ago" / "in 30 sec." — largest whole unit, via Intl.RelativeTimeFormat. */
export function relativeTime(at: number | null, now: number): string {
  if (at === null) return '-';
  const delta = at - now;
  const abs = Math.abs(delta);
  if (abs < 1000) return 'now';
  for (const [unit, ms] of UNITS) {
    if (abs < ms) continue;
    relativeFormat ??= new Intl.RelativeTimeFormat('en', { numeric: 'always', style: 'short' });
    return relativeFormat.format(Math.trunc(delta / ms), unit);
  }
  return 'now';
}

export function isoTime(at: number | null): string {
  return at === null ? '-' : new Date(at).toISOString();
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses "500ms", "30s", "10m", "2h", "1d"; a bare number means seconds. Returns null if invalid. */
export function parseDuration(text: string): number | null {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text.trim());
  if (match === null) return null;
  const value = Number(match[1]);
  const unit = DURATION_UNITS[match[2] ?? 's'] ?? 1000;
  const ms = Math.round(value * unit);
  return Number.isFinite(ms) && ms > 0 ? ms : null;
}
