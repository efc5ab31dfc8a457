/**
 * Opening the whole store: every facet's methods on one `RunStore`. The file checks themselves are in
 * open-connection.ts (docs/ARCHITECTURE.md#the-store-file); a runner's frequent CLI calls open only their side
 * of it (runner-store.ts).
 */
import { openConnection, type OpenStoreOptions } from './open-connection';
import { RunStore } from './run-store';

export { APPLICATION_ID, migrate, PAGE_CACHE_KIB, type OpenStoreOptions } from './open-connection';

/** Opens (creating if needed) the store at `storePath`; refuses a file that is not a Runwarden store. */
export function openStore(storePath: string, opts: OpenStoreOptions = {}): RunStore {
  const { ctx, state } = openConnection(storePath, opts);
  return new RunStore(ctx, state);
}
