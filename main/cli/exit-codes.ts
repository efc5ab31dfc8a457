/**
 * The CLI's documented exit codes (README "Runner contract"; each command's --help lists its own). Every
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
  /** The run is parked for a person: an effect's outcome is unknown, or the command parked it. */
  parked: 75,
  /** answer: the caller is inside the run that asked; only a person outside the run answers. */
  selfAnswer: 77,
  expired: 124,
  cancelled: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_CODE_HELP = `Exit codes:
  0    ok
  1    failure (the command ran and failed, or the store refused with another error)
  2    usage error (bad flags or arguments, invalid input)
  3    refused: a live runner owns the run (use --request for a cooperative cancel or pause)
  4    not found (unknown run or interaction)
  5    stale view or conflict (the run changed, or is in a state the command does not apply to;
       answer: nobody is waiting for the question any more)
  75   parked for a person: an effect's outcome is unknown (effect), or the command parked its run
       (exec, worker); a CMD run by "runwarden effect" exits 75 to say its outcome is unknown
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
    case 'READ_ONLY':
    case 'DISK_FULL':
    case 'BUSY':
    case 'STORE_NEWER':
    case 'STORE_FOREIGN':
    case 'STORE_CORRUPT':
    case 'STORE_LOCKED':
    case 'FORBIDDEN':
    case 'SUPERSEDED':
    case 'INTERNAL':
      return EXIT.failure;
  }
}
