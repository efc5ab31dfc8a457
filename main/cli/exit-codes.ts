/**
 * The CLI's documented exit codes (docs/CLI.md#exit-codes; each command's --help lists its own). Every
 * command maps its outcome to one of these; `runwarden --help` prints the table.
 */
import type { ErrorCode } from '../../shared/errors';

export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  liveOwner: 3,
  notFound: 4,
  conflict: 5,
  /** The run's claim was lost (another owner took over, a person cancelled it, or it was parked): stop. */
  lostLease: 6,
  /** The store stayed busy or locked by another process past the wait: try again later. */
  busy: 7,
  /** The disk is full: nothing was written; free space, then try again. */
  diskFull: 8,
  /** The store refused to open or write: read-only, made by a newer version, not a store, or damaged. */
  storeRefused: 9,
  /** Another machine could not be reached or spoken to over SSH: nothing was sent to it (docs/REMOTES.md). */
  unreachable: 10,
  /** The run is parked for a person: an effect's outcome is unknown, or the command parked it. */
  parked: 75,
  /** exec, worker: the run completed, but an effect's outcome is unknown: a person must resolve it. */
  unresolved: 76,
  /** answer: the caller is inside the run that asked; only a person outside the run answers. */
  selfAnswer: 77,
  expired: 124,
  cancelled: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_CODE_HELP = `Exit codes:
  0    ok
  1    failure (the command ran and failed)
  2    usage error (bad flags or arguments, invalid input)
  3    refused: a live runner owns the run (use --request for a cooperative cancel or pause)
  4    not found (unknown run or interaction)
  5    stale view or conflict (the run changed, or is in a state the command does not apply to;
       answer: nobody is waiting for the question any more)
  6    the run lost its lease (another owner took over, a person cancelled or parked it): stop
  7    the store is busy or locked by another program: nothing was written, try again later
  8    the disk is full: nothing was written
  9    the store refused: read-only, made by a newer Runwarden, not a Runwarden store, or damaged
  10   NAME:ID, ls --machine NAME: that machine could not be reached or spoken to over SSH
       (unreachable, needs a terminal once, no Runwarden there, another protocol): nothing was sent
  75   parked for a person: an effect's outcome is unknown (effect), or the command parked its run
       (exec, worker); a CMD run by "runwarden effect" exits 75 to say its outcome is unknown
  76   exec, worker: the run completed, but an effect's outcome is unknown (ambiguous): it needs
       a person to say whether it happened ("runwarden resolve EFFECT"); not a success
  77   answer: refused, the caller is inside the run that asked (only a person outside it answers)
  124  ask: the question expired with no default
  130  cancelled (ask: the question or run was cancelled; exec: the run was cancelled or interrupted)`;

/** Maps a store error code to the exit code a script can branch on. */
export function exitCodeForError(code: ErrorCode): ExitCode {
  switch (code) {
    case 'VALIDATION':
      return EXIT.usage;
    case 'NOT_FOUND':
      return EXIT.notFound;
    case 'LIVE_OWNER':
      return EXIT.liveOwner;
    case 'STALE_VIEW':
    case 'CONFLICT':
    case 'NOBODY_WAITING':
      return EXIT.conflict;
    case 'SELF_ANSWER':
      return EXIT.selfAnswer;
    case 'FENCED':
      return EXIT.lostLease;
    case 'BUSY':
    case 'STORE_LOCKED':
      return EXIT.busy;
    case 'DISK_FULL':
      return EXIT.diskFull;
    case 'READ_ONLY':
    case 'STORE_NEWER':
    case 'STORE_FOREIGN':
    case 'STORE_CORRUPT':
      return EXIT.storeRefused;
    case 'FORBIDDEN':
    case 'SUPERSEDED':
    case 'INTERNAL':
      return EXIT.failure;
  }
}
