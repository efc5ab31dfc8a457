/** Opens the whole store for a CLI command (open-runner-cli-store.ts opens a runner's side only). */
import { openStore } from '../store/open-store';
import type { RunStore } from '../store/run-store';
import { storePathOf, type CliContext } from './command';

/**
 * Opens the store at --store / RUNWARDEN_STORE / the default path; closed when the command returns.
 * `read`: a command that only reads never creates a store, so a mistyped path is "no store at PATH",
 * not an empty list.
 */
export function openCliStore(
  ctx: CliContext,
  flag: string | undefined,
  options: { read?: boolean } = {},
): RunStore {
  const store = openStore(storePathOf(ctx, flag), { mustExist: options.read === true });
  ctx.defer(() => store.close());
  return store;
}
