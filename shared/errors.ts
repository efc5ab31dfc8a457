/**
 * Errors are data (docs/ARCHITECTURE.md#conventions): a literal code, a message a person can act on, and an optional
 * recovery the UI turns into a button. The same shape crosses IPC, HTTP and the CLI's --json output.
 */

export const ERROR_CODES = [
  'VALIDATION',
  'NOT_FOUND',
  'STALE_VIEW',
  'LIVE_OWNER',
  'CONFLICT',
  'FENCED',
  'READ_ONLY',
  'DISK_FULL',
  'BUSY',
  'STORE_NEWER',
  'STORE_FOREIGN',
  'STORE_CORRUPT',
  'STORE_LOCKED',
  'FORBIDDEN',
  // An answer to a question nobody waits for any more (withdrawn, or its asking process is gone).
  'NOBODY_WAITING',
  // An answer from inside the run that asked: only a person outside the run answers its questions.
  'SELF_ANSWER',
  // A read that a newer one of the same kind replaced before it ran (a search's counts while typing).
  'SUPERSEDED',
  'INTERNAL',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export type Recovery =
  | { kind: 'refresh' }
  | { kind: 'requestCancel'; runId: string }
  | { kind: 'requestPause'; runId: string }
  | { kind: 'resolveEffects'; runId: string }
  | { kind: 'stopCommand'; runId: string }
  | { kind: 'resumeAnyway'; runId: string }
  | { kind: 'retryLater' };

export interface ErrorInfo {
  code: ErrorCode;
  message: string;
  recovery?: Recovery;
  /** Fresh state for STALE_VIEW / CONFLICT refusals, so the caller can re-render without another round trip. */
  fresh?: unknown;
  /** Validation issues, one line per problem. */
  issues?: string[];
}

/** The one error type the store, services and handlers throw on purpose. */
export class RunwardenError extends Error {
  readonly code: ErrorCode;
  readonly recovery: Recovery | undefined;
  readonly fresh: unknown;
  readonly issues: string[] | undefined;

  constructor(code: ErrorCode, message: string, extra: Omit<ErrorInfo, 'code' | 'message'> = {}) {
    super(message);
    this.name = 'RunwardenError';
    this.code = code;
    this.recovery = extra.recovery;
    this.fresh = extra.fresh;
    this.issues = extra.issues;
  }

  toInfo(): ErrorInfo {
    const info: ErrorInfo = { code: this.code, message: this.message };
    if (this.recovery !== undefined) info.recovery = this.recovery;
    if (this.fresh !== undefined) info.fresh = this.fresh;
    if (this.issues !== undefined) info.issues = this.issues;
    return info;
  }
}

/**
 * READ_ONLY because the store's folder or file cannot be created where it was asked for: nothing is wrong
 * with a store, the path is (the CLI's hint says where to choose another).
 */
export class StoreNotCreatedError extends RunwardenError {
  constructor(message: string) {
    super('READ_ONLY', message);
    this.name = 'StoreNotCreatedError';
  }
}

export function isRunwardenError(error: unknown): error is RunwardenError {
  return error instanceof RunwardenError;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: ErrorInfo };

export function assertNever(value: never, what = 'value'): never {
  throw new Error(`Unexpected ${what}: ${JSON.stringify(value)}`);
}
