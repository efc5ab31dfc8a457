/** Checks of what a caller hands the store: a bad value is a VALIDATION error and nothing is written. */
import { RunwardenError } from '../../shared/errors';

export function requireText(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new RunwardenError('VALIDATION', `${what} must be a non-empty string.`);
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
  return reason;
}
