/**
 * Opens the runner's side of the store for the calls a runner makes often (notify, progress, step, effect,
 * park): `RunnerStore` loads only the runner's transitions, not the person, host, view and search code the
 * rest of the CLI needs (docs/CLI.md#start-up).
 */
import { isRunwardenError } from '../../shared/errors';
import { openRunnerStore, type RunnerStore } from '../store/runner-store';
import { RUNNER_BUSY_WAIT_MS } from '../store/store-context';
import type { ClaimKey } from '../store/store-types';
import { storePathOf, type CliContext } from './command';
import type { StoreOpener } from './define-command';
import { sayMigration } from './migration-notice';
import { openWaiting } from './open-waiting';

/** The claim's lease length when `exec` did not say (RUNWARDEN_LEASE_MS): its default. */
const DEFAULT_LEASE_MS = 30_000;

/**
 * Opens the store at --store / RUNWARDEN_STORE / the default path; closed when the command returns.
 * `mustExist`: inside a run the store exists, so a missing one is a mistyped path, not a new store. No
 * `quick_check`, a busy store waited out (docs/ARCHITECTURE.md#the-store-file), and a write refused because
 * the claim lapsed meanwhile renews it and is tried once more.
 */
export function openRunnerCliStore(
  ctx: CliContext,
  flag: string | undefined,
  options: { mustExist: boolean },
): RunnerStore {
  const store = openWaiting(() =>
    openRunnerStore(storePathOf(ctx, flag), {
      mustExist: options.mustExist,
      quickCheck: false,
      busyWaitMs: RUNNER_BUSY_WAIT_MS,
    }),
  );
  ctx.defer(() => store.close());
  sayMigration(ctx, store);
  const leaseMs = Number(ctx.env.RUNWARDEN_LEASE_MS) || DEFAULT_LEASE_MS;
  return renewingLapsedClaims(store, leaseMs);
}

/** A runner's command's store (`defineCommand`'s `store`): the runner's side, opened as above. */
export function runnerWriter(options: { mustExist: boolean }): StoreOpener<RunnerStore> {
  return (ctx, flag) => openRunnerCliStore(ctx, flag, options);
}

function isClaim(value: unknown): value is ClaimKey {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as ClaimKey).token === 'string' &&
    typeof (value as ClaimKey).runId === 'string' &&
    typeof (value as ClaimKey).generation === 'number'
  );
}

/**
 * A runner's write refused as FENCED because its claim lapsed while nobody took over (its supervisor was
 * kept waiting by a crowded store) heartbeats first, which renews it, and tries again once
 * (docs/LIVENESS.md#suspend-safe-renewal). A claim taken over, released or whose owner was verified gone
 * does not renew: the refusal stands.
 */
function renewingLapsedClaims(store: RunnerStore, leaseMs: number): RunnerStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || property === 'heartbeat') return value;
      return (...args: unknown[]): unknown => {
        const call = (): unknown => (value as (...a: unknown[]) => unknown).apply(target, args);
        try {
          return call();
        } catch (error) {
          const claim = args[0];
          if (!isRunwardenError(error) || error.code !== 'FENCED' || !isClaim(claim)) throw error;
          if (!target.heartbeat(claim, leaseMs).ok) throw error;
          return call();
        }
      };
    },
  });
}
