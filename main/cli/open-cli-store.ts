/** Opens the whole store for a CLI command (open-runner-cli-store.ts opens a runner's side only). */
import { openStore, openStoreReader } from '../store/open-store';
import { RUNNER_BUSY_WAIT_MS } from '../store/store-context';
import { sayMigration } from './migration-notice';
import { openWaiting } from './open-waiting';
import type { RunStore } from '../store/run-store';
import type { ReadonlyStore } from '../store/store-facets';
import { storePathOf, type CliContext } from './command';
import type { StoreOpener } from './define-command';

/**
 * Opens the store at --store / RUNWARDEN_STORE / the default path; closed when the command returns.
 * `mustExist`: a command that acts on what is there (a run, a question) never creates a store, so a
 * mistyped path is "no store at PATH". `runner`: a runner's command (exec, worker, ask, park) waits out a
 * busy store (docs/ARCHITECTURE.md#the-store-file).
 */
export function openCliStore(
  ctx: CliContext,
  flag: string | undefined,
  options: { mustExist?: boolean; runner?: boolean } = {},
): RunStore {
  const open = (): RunStore =>
    openStore(storePathOf(ctx, flag), {
      mustExist: options.mustExist === true,
      ...(options.runner === true && { busyWaitMs: RUNNER_BUSY_WAIT_MS }),
    });
  const store = options.runner === true ? openWaiting(open) : open();
  ctx.defer(() => store.close());
  sayMigration(ctx, store);
  return store;
}

/** Opens an existing store for a command that only reads (ls, show, logs, doctor): a reader, never created. */
export function openCliReader(ctx: CliContext, flag: string | undefined): ReadonlyStore {
  const store = openStoreReader(storePathOf(ctx, flag));
  ctx.defer(() => store.close());
  sayMigration(ctx, store);
  return store;
}

/** A command's store as the whole store's writer (`defineCommand`'s `store`), opened as `openCliStore` says. */
export function writer(options: { mustExist?: boolean; runner?: boolean } = {}): StoreOpener<RunStore> {
  return (ctx, flag) => openCliStore(ctx, flag, options);
}

/** A read command's store (`defineCommand`'s `store`): an existing store's reader. */
export const reader: StoreOpener<ReadonlyStore> = openCliReader;
