/**
 * The one path every request takes, whatever the transport (docs/ARCHITECTURE.md#parts): validate against the contract,
 * refuse writes on a read-only store, run the handler, and return the `{ok, ...}` envelope. Nothing
 * thrown inside ever crosses the boundary raw.
 */
import type { Channel } from '../../shared/channel-names';
import { isChannel, parseRequest, type Response } from '../../shared/contract';
import { isRunwardenError, type ErrorInfo, type Result } from '../../shared/errors';
import { WRITE_CHANNELS, handlers, type HandlerDeps } from './handlers';
import type { RequestOrigin } from './host-types';

/** `origin`: who sent it, where the transport can tell (a serve API client); absent for the window. */
export type Dispatch = <C extends Channel>(
  channel: C,
  input: unknown,
  origin?: RequestOrigin,
) => Result<Response<C>>;

/** A request slower than this is logged (docs/ARCHITECTURE.md#conventions): it held the main process that long. */
export const SLOW_REQUEST_MS = 40;

export interface DispatcherHooks {
  /** Told when the store answered BUSY (shown as "busy", not as a failure) or recovered. */
  onBusy?: (busy: boolean) => void;
  /** A write failed because the disk is full or the store became read-only (null: a write succeeded). */
  onWriteError?: (error: { code: 'DISK_FULL' | 'READ_ONLY'; message: string } | null) => void;
  /** Unexpected errors: logged by the shell; the caller gets a generic INTERNAL error. */
  onInternalError?: (channel: string, error: unknown) => void;
  /** Told of every request slower than SLOW_REQUEST_MS. */
  onSlow?: (channel: string, ms: number) => void;
  /** A monotonic millisecond clock for timing; injectable so tests can make a request "slow". */
  elapsed?: () => number;
}

export function createDispatcher(deps: HandlerDeps, hooks: DispatcherHooks = {}): Dispatch {
  return <C extends Channel>(channel: C, input: unknown, origin?: RequestOrigin): Result<Response<C>> => {
    if (!isChannel(channel)) {
      return { ok: false, error: { code: 'NOT_FOUND', message: `Unknown channel ${String(channel)}.` } };
    }
    const parsed = parseRequest(channel, input);
    if (!parsed.ok) return parsed;
    if (WRITE_CHANNELS.has(channel) && deps.store.mode === 'read-only') {
      return {
        ok: false,
        error: {
          code: 'READ_ONLY',
          message: `The store is open read-only: ${deps.store.modeReason ?? 'writes are not possible'}`,
        },
      };
    }
    const elapsed = hooks.elapsed ?? (() => performance.now());
    const started = elapsed();
    try {
      const handler = handlers[channel] as (d: HandlerDeps, i: unknown) => Response<C>;
      const value = handler(origin === undefined ? deps : { ...deps, origin }, parsed.value);
      hooks.onBusy?.(false);
      if (WRITE_CHANNELS.has(channel)) hooks.onWriteError?.(null);
      return { ok: true, value };
    } catch (error) {
      return { ok: false, error: toErrorInfo(channel, error, hooks) };
    } finally {
      const ms = elapsed() - started;
      if (ms > SLOW_REQUEST_MS) hooks.onSlow?.(channel, ms);
    }
  };
}

function toErrorInfo(channel: string, error: unknown, hooks: DispatcherHooks): ErrorInfo {
  if (isRunwardenError(error) && error.code !== 'INTERNAL') {
    if (error.code === 'BUSY') hooks.onBusy?.(true);
    if (error.code === 'DISK_FULL' || error.code === 'READ_ONLY')
      hooks.onWriteError?.({ code: error.code, message: error.message });
    return error.toInfo();
  }
  // An unexpected failure (a disk error, a bug): its details go to the log, not to the person.
  hooks.onInternalError?.(channel, error);
  return { code: 'INTERNAL', message: 'Something went wrong inside Runwarden; the store was not changed.' };
}
