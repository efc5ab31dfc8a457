/**
 * The runner kit: what the CLI and the app use to write runs. Internal, not a library entry
 * (docs/CLI.md#the-typescript-runner-kit).
 */
export { ask, waitForInteraction, type AskInput, type AskOutcome } from './ask';
export { HeartbeatLoop, type HeartbeatEvent } from './heartbeat-loop';
export { runnerActor, runnerOwner } from './owner-info';
export { enclosingClaim, runnerEnv, RUNNER_ENV, type EnclosingClaim } from './runner-env';
export {
  attachEnclosingRun,
  claimNextRun,
  claimRun,
  DEFAULT_LEASE_MS,
  EffectRejected,
  finishCancelled,
  RunSession,
  startRun,
  type SessionOptions,
  type StartRunInput,
} from './run-session';
export { descendantsOf, signalTree } from './process-tree';
export {
  exitCodeOf,
  settleRun,
  superviseCommand,
  type CommandOutcome,
  type Settlement,
  type StopReason,
  type SuperviseOptions,
} from './supervise-command';
