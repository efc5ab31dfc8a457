/**
 * The store's two facets (docs/ARCHITECTURE.md#parts): `StoreReader` is every method that only reads,
 * `StoreWriter` every method that writes (each in its own `BEGIN IMMEDIATE` transaction). `RunStore` is
 * both; a consumer that only reads is typed `StoreReader`, so its signature says it never writes. A new
 * public method of `RunStore` fails the type-check below until it is put in one facet.
 */
import type { RunStore } from './run-store';

export type StoreReader = Pick<
  RunStore,
  | 'path'
  | 'mode'
  | 'modeReason'
  | 'modeReasonCode'
  | 'schemaVersion'
  | 'isOpen'
  | 'now'
  | 'info'
  | 'doctor'
  | 'getRun'
  | 'getSnapshot'
  | 'getEffect'
  | 'listRetries'
  | 'runLabel'
  | 'projectPathOfRun'
  | 'getInteraction'
  | 'previewCancel'
  | 'listProjects'
  | 'listRuns'
  | 'getRunDetail'
  | 'attentionSummary'
  | 'searchCountsStatement'
  | 'trayAttention'
  | 'nextAttentionChangeAt'
  | 'listNotifications'
  | 'getSetting'
  | 'listSettings'
  | 'listExpiredLeases'
  | 'listLiveLeasesOnHost'
  | 'listStaleLeases'
  | 'dataVersion'
  | 'lastEventSeq'
  | 'eventsAfter'
  | 'autoCheckpointPages'
  | 'forgetSearchPlans'
  | 'liveness'
  | 'judgeOwner'
  | 'listOrphans'
  | 'notifiedSeq'
  // Run output logs (docs/RUN-OUTPUT.md)
  | 'logsDir'
  | 'listRunLogs'
  | 'runIsActive'
>;

export type StoreWriter = Pick<
  RunStore,
  // Runner side
  | 'reserveRun'
  | 'reserveAndClaim'
  | 'claimRun'
  | 'claimNext'
  | 'heartbeat'
  | 'recordCommand'
  | 'markRunning'
  | 'setProgress'
  | 'startAttempt'
  | 'finishAttempt'
  | 'requestInteraction'
  | 'resumeAfterInteraction'
  | 'withdrawInteraction'
  | 'reserveEffect'
  | 'beginEffect'
  | 'settleEffect'
  | 'notify'
  | 'park'
  | 'completeRun'
  | 'failRun'
  | 'timeOutRun'
  | 'releaseRun'
  | 'cancelOwnRun'
  // Person side
  | 'cancelRun'
  | 'requestCancel'
  | 'requestPause'
  | 'pauseRun'
  | 'resumeRun'
  | 'resolveEffect'
  | 'answerInteraction'
  | 'presentInteraction'
  | 'retryRun'
  | 'beginStopCommand'
  | 'finishStopCommand'
  | 'markNotificationsRead'
  | 'setSetting'
  // Host / sweeper
  | 'claimHostLease'
  | 'renewHostLease'
  | 'releaseHostLease'
  | 'markRunnerLost'
  | 'markRunnersLost'
  | 'vouchForOwners'
  | 'markOrphaned'
  | 'markCommandGone'
  | 'advanceNotifiedSeq'
  | 'expireInteractionIfDue'
  | 'expireInteractionDeadlines'
  | 'endGoneAgentSessions'
  | 'expirePresenterClaims'
  | 'withdrawGoneAskers'
  | 'pruneTerminalRuns'
  | 'checkpoint'
  | 'mergeSearchIndex'
  | 'setAutoCheckpoint'
  // Run output logs
  | 'recordRunLog'
  | 'markLogRemoved'
>;

/** The raw connection and closing it: neither facet (tests, the benchmark and the owner of the store). */
type StoreHandle = 'db' | 'close';

type Unclassified = Exclude<keyof RunStore, keyof StoreReader | keyof StoreWriter | StoreHandle>;
type Doubled = Extract<keyof StoreReader, keyof StoreWriter>;
/** Fails to compile when a RunStore method is in no facet, or in both. */
export const FACETS_COVER_THE_STORE: [Unclassified, Doubled] extends [never, never] ? true : never = true;
