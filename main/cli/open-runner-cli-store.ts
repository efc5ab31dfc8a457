/**
 * Opens the runner's side of the store for the calls a runner makes often (notify, progress, step, effect,
 * park): `RunnerStore` loads only the runner's transitions, not the person, host, view and search code the
 * rest of the CLI needs (docs/CLI.md#start-up).
 */
import { openRunnerStore, type RunnerStore } from '../store/runner-store';
import { storePathOf, type CliContext } from './command';

/**
 * Opens the store at --store / RUNWARDEN_STORE / the default path; closed when the command returns.
 * `mustExist`: inside a run the store exists, so a missing one is a mistyped path, not a new store.
 * No `quick_check`: these calls rely on SQLite refusing each damaged page a statement reads
 * (docs/ARCHITECTURE.md#the-store-file).
 */
export function openRunnerCliStore(
  ctx: CliContext,
  flag: string | undefined,
  options: { mustExist: boolean },
): RunnerStore {
  const store = openRunnerStore(storePathOf(ctx, flag), {
    mustExist: options.mustExist,
    quickCheck: false,
  });
  ctx.defer(() => store.close());
  return store;
}
