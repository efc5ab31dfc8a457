/**
 * The environment `runwarden exec` (and `worker`) hands its command, so the runner commands inside it
 * (`step`, `effect`, `progress`, `park`, `ask`, `notify`) act on the enclosing run under the supervisor's
 * claim (docs/CLI.md#runner-contract). The supervisor keeps heartbeating that claim; the command never does.
 */
import type { Claim } from '../store';

export const RUNNER_ENV = {
  store: 'RUNWARDEN_STORE',
  runId: 'RUNWARDEN_RUN_ID',
  token: 'RUNWARDEN_RUN_TOKEN',
  generation: 'RUNWARDEN_LEASE_GENERATION',
} as const;

export type EnclosingClaim = Pick<Claim, 'runId' | 'generation' | 'token' | 'ownerType' | 'surface'>;

/** The variables to add to a child's environment for one claim. */
export function runnerEnv(storePath: string, claim: EnclosingClaim): Record<string, string> {
  return {
    [RUNNER_ENV.store]: storePath,
    [RUNNER_ENV.runId]: claim.runId,
    [RUNNER_ENV.token]: claim.token,
    [RUNNER_ENV.generation]: String(claim.generation),
  };
}

/** Reads the enclosing run's claim from the environment; null when not inside `runwarden exec`. */
export function enclosingClaim(env: Record<string, string | undefined>): EnclosingClaim | null {
  const runId = env[RUNNER_ENV.runId];
  const token = env[RUNNER_ENV.token];
  const generation = Number(env[RUNNER_ENV.generation]);
  if (!runId || !token || !Number.isInteger(generation) || generation <= 0) return null;
  return { runId, token, generation, ownerType: 'runner' };
}
