/**
 * Opening a store for a runner's command: a store another process is creating or migrating (its first
 * commands all starting at once) answers STORE_LOCKED for a moment; a runner waits it out for up to
 * RUNNER_BUSY_WAIT_MS instead of failing (docs/LIVENESS.md#outcomes-of-finished-commands).
 */
import { isRunwardenError } from '../../shared/errors';
import { RUNNER_BUSY_WAIT_MS } from '../store/store-context';

export function openWaiting<T>(open: () => T): T {
  const deadline = performance.now() + RUNNER_BUSY_WAIT_MS;
  for (let attempt = 0; ; attempt += 1) {
    try {
      return open();
    } catch (error) {
      if (!isRunwardenError(error) || error.code !== 'STORE_LOCKED' || performance.now() > deadline) {
        throw error;
      }
      const ms = Math.min(1000, 25 * 2 ** attempt) * (0.5 + Math.random());
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
    }
  }
}
