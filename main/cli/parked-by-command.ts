/**
 * After `exec` or `worker` lost its lease: was it its own command that gave the run up? `runwarden effect`
 * (an unknown outcome) and `runwarden park` park the run under the runner's claim, which releases the
 * lease; the supervisor then sees a fenced heartbeat. That is no takeover: the run is parked, at the
 * same lease generation, with nobody holding it.
 */
import type { ParkCode } from '../../shared/domain';
import type { StoreReader } from '../store';

export function parkedByCommand(
  store: StoreReader,
  runId: string,
  generation: number,
): { code: ParkCode | string; detail: string | null } | null {
  try {
    const { queue, lease } = store.getSnapshot(runId);
    if (queue.status !== 'parked' || lease === null) return null;
    if (lease.ownerType !== null || lease.generation !== generation) return null;
    return { code: queue.errorCode ?? 'parked', detail: queue.errorDetail };
  } catch {
    return null;
  }
}
