/**
 * Which run a CLI process runs inside. The runner-side commands (`step`, `effect`, `progress`, `park`,
 * `ask`) need the run and claim `runwarden exec` put in their environment (docs/CLI.md#runner-contract):
 * outside a run they are a usage error with a sentence saying how to get inside one. The supervisors
 * (`exec`, `worker`) started inside a run make the runs they start or claim its children
 * (docs/LIVENESS.md#nested-runs).
 */
import { enclosingClaim, type EnclosingClaim } from '../runner/runner-env';
import type { RunnerStore } from '../store/runner-store';
import { processAncestry } from '../store/process-identity';
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

/**
 * The run this process was started inside: the one its environment names (RUNWARDEN_RUN_ID), or — the
 * environment cleared (`env -i`) — the run whose live supervisor or command is its nearest ancestor. Null
 * outside every run.
 */
export function runThisProcessIsInside(ctx: CliContext, store: RunnerStore): string | null {
  return store.enclosingRunOf({
    runId: ctx.env.RUNWARDEN_RUN_ID?.trim() || null,
    ancestry: processAncestry(process.pid),
  });
}
