/** The runner kit's public API (SPEC §1): what workflow programs and the CLI use to write runs. */
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
