/**
 * Opening the whole store: every facet's methods on one `RunStore`. The file checks themselves are in
 * open-connection.ts (docs/ARCHITECTURE.md#the-store-file); a runner's frequent CLI calls open only their side
 * of it (runner-store.ts).
 */
import { openConnection, type OpenStoreOptions } from './open-connection';
import { RunStore } from './run-store';
import type { ReadonlyStore } from './store-facets';

export { APPLICATION_ID, migrate, PAGE_CACHE_KIB, type OpenStoreOptions } from './open-connection';

/**
 * Opens (creating if needed, unless `mustExist`) the store at `storePath`; refuses a file that is not a
 * Runwarden store. A store that opens read-only for a reason of its own (a read-only file, a newer schema) is
 * still a writer: its writes fail with READ_ONLY and a sentence saying why.
 */
export function openStore(storePath: string, opts: OpenStoreOptions = {}): RunStore {
  const { ctx, state } = openConnection(storePath, opts);
  return new RunStore(ctx, state);
}

/**
 * Opens an existing store for a consumer that only reads (`runwarden ls`, `show`, `logs`): the same checks
 * and upgrade as any open, typed as a reader, so a write through it does not compile.
 */
export function openStoreReader(
  storePath: string,
  opts: Omit<OpenStoreOptions, 'mustExist'> = {},
): ReadonlyStore {
  return openStore(storePath, { ...opts, mustExist: true });
}
