/** Checks of what a caller hands the store: a bad value is a VALIDATION error and nothing is written. */
import { RunwardenError } from '../../shared/errors';
import { TEXT_CAPS, type TextKind } from '../../shared/text-caps';

/** A non-empty string, within the cap of its kind when one is given. */
export function requireText(value: unknown, what: string, kind?: TextKind): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new RunwardenError('VALIDATION', `${what} must be a non-empty string.`);
  }
  return kind === undefined ? value : requireWithin(value, what, kind);
}

/** A string (empty allowed) within the cap of its kind; undefined and null pass. */
export function optionalTextWithin<T extends string | null | undefined>(
  value: T,
  what: string,
  kind: TextKind,
): T {
  if (value === undefined || value === null) return value;
  if (typeof value !== 'string') throw new RunwardenError('VALIDATION', `${what} must be a string.`);
  requireWithin(value, what, kind);
  return value;
}

function requireWithin(value: string, what: string, kind: TextKind): string {
  const cap = TEXT_CAPS[kind];
  if (value.length > cap) {
    throw new RunwardenError(
      'VALIDATION',
      `${what} is ${value.length} characters; at most ${cap} are allowed.`,
    );
  }
  return value;
}

/** The longest lease a claim takes: a day. Longer ones only hide a dead runner for longer. */
export const MAX_LEASE_MS = 86_400_000;

export function requireLeaseMs(leaseMs: unknown): number {
  if (typeof leaseMs !== 'number' || !Number.isInteger(leaseMs) || leaseMs <= 0 || leaseMs > MAX_LEASE_MS) {
    throw new RunwardenError(
      'VALIDATION',
      `leaseMs must be a positive integer of milliseconds, at most ${MAX_LEASE_MS} (a day).`,
    );
  }
  return leaseMs;
}

export function requireReason(reason: unknown): string {
  if (typeof reason !== 'string') throw new RunwardenError('VALIDATION', 'reason must be a string.');
  return requireWithin(reason, 'reason', 'reason');
}

/** A JSON value (an answer, a default) whose text fits the payload cap. */
export function requirePayloadWithin(value: unknown, what: string): void {
  const text = JSON.stringify(value ?? null);
  if (text.length > TEXT_CAPS.payload) {
    throw new RunwardenError(
      'VALIDATION',
      `${what} is ${text.length} characters as JSON; at most ${TEXT_CAPS.payload} are allowed.`,
    );
  }
}
