/**
 * The documented ranges of every number and the size caps of every text the CLI takes
 * (docs/CLI.md#limits). A value outside them is a usage error (exit 2) raised while parsing, before the
 * store is opened, so nothing is written; `runwarden <command> --help` prints the ranges.
 */
import { MAX_LEASE_MS } from '../store/input-checks';
import { UsageError } from './usage-error';
import { TEXT_CAPS, type TextKind } from '../../shared/text-caps';

export interface IntRange {
  min: number;
  max: number;
}

export const RANGES = {
  /** Shorter heartbeats too often; the store refuses longer than a day (it would hide a dead runner). */
  leaseMs: { min: 100, max: MAX_LEASE_MS },
  pollMs: { min: 10, max: 60_000 },
  events: { min: 1, max: 1000 },
  limit: { min: 1, max: 500 },
  revision: { min: 0, max: Number.MAX_SAFE_INTEGER },
  effectId: { min: 1, max: Number.MAX_SAFE_INTEGER },
  /** A process id (Linux caps them at 2^22). */
  pid: { min: 1, max: 2 ** 31 - 1 },
  /** An exit code a command can return. */
  exitCode: { min: 1, max: 255 },
  liveMinutes: { min: 1, max: 24 * 60 },
  /** `cancel --stop-command`: SIGTERM → SIGKILL grace, up to 10 minutes. */
  graceMs: { min: 0, max: 600_000 },
  /** `ask --timeout`: up to 30 days. */
  timeoutMs: { min: 1, max: 30 * 86_400_000 },
} as const satisfies Record<string, IntRange>;

export { TEXT_CAPS, type TextKind };

export function rangeText(range: IntRange): string {
  return `${range.min}..${range.max === Number.MAX_SAFE_INTEGER ? 'any' : range.max}`;
}

/** An integer flag in its range; undefined when not given. */
export function parseIntegerFlag(
  value: string | undefined,
  name: string,
  range: IntRange,
): number | undefined {
  if (value === undefined) return undefined;
  const number = /^\d{1,16}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < range.min || number > range.max) {
    // Flags are named with their dashes; positionals (EFFECT, ID) as the usage line names them.
    const label = /^[A-Z]/.test(name) ? name : `--${name}`;
    throw new UsageError(
      `${label} must be a whole number from ${range.min} to ${range.max === Number.MAX_SAFE_INTEGER ? Number.MAX_SAFE_INTEGER : range.max}, got "${value.slice(0, 40)}"`,
    );
  }
  return number;
}

/** A text within its cap (and, unless `allowEmpty`, not blank); returns it unchanged. */
export function checkText(value: string, what: string, kind: TextKind, allowEmpty = false): string {
  const cap = TEXT_CAPS[kind];
  if (value.length > cap) {
    throw new UsageError(`${what} is ${value.length} characters; at most ${cap} are allowed`);
  }
  if (!allowEmpty && value.trim() === '') throw new UsageError(`${what} must not be empty`);
  return value;
}

export function checkOptionalText(
  value: string | undefined,
  what: string,
  kind: TextKind,
): string | undefined {
  return value === undefined ? undefined : checkText(value, what, kind);
}
