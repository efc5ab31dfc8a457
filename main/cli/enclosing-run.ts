/**
 * What the runner-side commands (`step`, `effect`, `progress`, `park`, `ask`) need: the run and claim
 * `runwarden exec` put in their environment (docs/CLI.md#runner-contract). Outside a run they are a
 * usage error with a sentence saying how to get inside one.
 */
import { enclosingClaim, type EnclosingClaim } from '../runner/runner-env';
import type { CliContext } from './command';
import { UsageError } from './usage-error';

export function requireEnclosingRun(ctx: CliContext, command: string): EnclosingClaim {
  const claim = enclosingClaim(ctx.env);
  if (claim === null) {
    throw new UsageError(
      `runwarden ${command} must run inside a run: start your script with "runwarden exec -- ..." (RUNWARDEN_RUN_ID is not set)`,
    );
  }
  // What these commands write is recorded as coming through the CLI, not the kit.
  return { ...claim, surface: 'cli' };
}
