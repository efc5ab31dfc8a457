/**
 * The store's two handles (docs/ARCHITECTURE.md#parts), told apart by type, not by a list of names. A method
 * that writes declares its `this` (`this: RunStore`); `StoreReader` is every public member
 * of `RunStore` except those, so a consumer typed `StoreReader` cannot call a write (a type error, checked by
 * test/main/store/store-facets.test.ts). `StoreWriter` is the store itself: it reads and writes. A store
 * opened with `readonly: true` is typed `ReadonlyStore`: a reader plus `close`.
 */
import type { RunStore } from './run-store';

type Method = (...args: never[]) => unknown;

/** The public methods of `RunStore` that write: those whose `this` is declared. */
export type WriteMethod = {
  [K in keyof RunStore]: RunStore[K] extends Method
    ? unknown extends ThisParameterType<RunStore[K]>
      ? never
      : K
    : never;
}[keyof RunStore];

/** The raw connection and closing it: for the store's owner (the host, a CLI command, tests, the bench). */
type StoreHandle = 'db' | 'close';

/** A handle that only reads: every write is left out, so calling one does not compile. */
export type StoreReader = Omit<RunStore, WriteMethod | StoreHandle>;

/** What `openStore(path, { readonly: true })` returns: a reader that its owner closes. */
export type ReadonlyStore = StoreReader & Pick<RunStore, 'close'>;

/** A handle that reads and writes, each write in its own `BEGIN IMMEDIATE` transaction. */
export type StoreWriter = RunStore;
