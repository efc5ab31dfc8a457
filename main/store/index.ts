/** The store's public API: the app, the CLI, runners and tests import from here. */
export { openStore, openStoreReader, migrate, APPLICATION_ID, type OpenStoreOptions } from './open-store';
export { RunStore, type StoreModeReasonCode } from './run-store';
export { openRunnerStore, RunnerStore } from './runner-store';
export type { ReadonlyStore, StoreReader, StoreWriter } from './store-facets';
export { resolveStorePath, type StorePathOptions } from './store-path';
export {
  startHygieneWorker,
  DEFAULT_AUTOCHECKPOINT_PAGES,
  SEARCH_MERGE_PAGES,
  type HygieneWorker,
  type HygieneResult,
} from './hygiene-worker';
export {
  startSearchCountWorker,
  type SearchCountAnswer,
  type SearchCountWorker,
} from './search-count-worker';
export { tallySearchCounts, type ReadStatement, type SearchCountRow } from './search-counts';
export { processStartId, isProcessAlive, processAncestry, thisProcessAsAsker } from './process-identity';
export {
  API_CLIENT_CALLER,
  OUTSIDE_EVERY_RUN,
  type AskerIdentity,
  type CallerIdentity,
  type Withdrawal,
} from './question-askers';
export {
  createLivenessCheck,
  pidsTrusted,
  UNTRUSTED_LIVENESS,
  type LivenessCheck,
  type MachineIdentity,
  type ProcessProbe,
} from './liveness';
export { groupAlive, machineIdentity, markedProcesses, SYSTEM_PROBE } from './process-identity';
export { HOST_LEASE_NAME } from './leases';
export { MAX_LEASE_MS } from './input-checks';
export { VALID_STATUS_PAIRS } from './doctor';
export { responseIssues } from '../../shared/answer-rules';
export { MIGRATIONS, SUPPORTED_SCHEMA_VERSION } from './migrations';
export { makeFolders } from './open-connection';
export type { Clock } from './store-context';
export type { AttemptEnding } from './attempts';
export type { EffectSettlement } from './effects';
export type * from './store-types';
