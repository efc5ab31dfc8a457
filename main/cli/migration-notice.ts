/**
 * A command that migrated the store says so once, on stderr (docs/ARCHITECTURE.md#upgrades): from which
 * schema to which, and what a step changed in the data. The store's events record the same (`store.migrated`).
 */
import { describeMigration, type MigrationReport } from '../store/migrations/migration';
import type { CliContext } from './command';

/** Says it when the open that made `store` migrated it (stderr is guarded: the path cannot drive the terminal). */
export function sayMigration(
  ctx: CliContext,
  store: { migrated: MigrationReport | null; path: string },
): void {
  if (store.migrated !== null)
    ctx.stderr.write(`runwarden: ${describeMigration(store.migrated, store.path)}\n`);
}
