/**
 * The one liveness check (docs/LIVENESS.md): is a lease's owner — its supervisor process and its command's
 * process group — verifiably alive, verifiably gone, or unknown? A pid is trusted only when the owner was
 * recorded on this host, this boot and this pid namespace; otherwise the verdict is "unknown" and only the
 * lease clock counts. The CLI, the handlers, the sweeper and the host-lease claim all ask this module.
 * Pure: where this process runs and how to probe a pid come in through `openStore` (process-identity.ts
 * reads them from /proc).
 */
import type { Lease } from '../../shared/domain';
import type { OwnerLiveness, Verdict } from '../../shared/display-status';

/** Where this process runs: what a recorded pid must match to mean anything here. */
export interface MachineIdentity {
  hostname: string;
  /** Linux: /proc/sys/kernel/random/boot_id. Null elsewhere (no pid is trusted). */
  bootId: string | null;
  /** Linux: the inode link of /proc/self/ns/pid, e.g. "pid:[4026531836]". Null elsewhere. */
  pidNs: string | null;
}

/** The recorded identity of a lease owner, as far as the liveness check needs it. */
export type RecordedOwner = Pick<
  Lease,
  | 'ownerType'
  | 'ownerPid'
  | 'ownerHostname'
  | 'ownerStartId'
  | 'ownerBootId'
  | 'ownerPidNs'
  | 'commandPid'
  | 'commandPgid'
  | 'commandStartId'
>;

/** A pid means something here only when host, boot and pid namespace all match (and are known). */
export function pidsTrusted(owner: RecordedOwner, here: MachineIdentity): boolean {
  return (
    owner.ownerHostname === here.hostname &&
    owner.ownerBootId !== null &&
    owner.ownerBootId !== undefined &&
    here.bootId !== null &&
    owner.ownerBootId === here.bootId &&
    owner.ownerPidNs !== null &&
    owner.ownerPidNs !== undefined &&
    here.pidNs !== null &&
    owner.ownerPidNs === here.pidNs
  );
}

/** One recorded process and where it ran (a question's asker: docs/LIVENESS.md#questions-and-their-askers). */
export interface RecordedProcess {
  pid: number;
  startId: string | null;
  hostname: string | null;
  bootId: string | null;
  pidNs: string | null;
}

/** The same rule as `pidsTrusted`, for a single recorded process. */
export function processTrusted(recorded: RecordedProcess, here: MachineIdentity): boolean {
  return (
    recorded.hostname === here.hostname &&
    recorded.bootId !== null &&
    recorded.bootId === here.bootId &&
    recorded.pidNs !== null &&
    recorded.pidNs === here.pidNs
  );
}

export interface ProcessProbe {
  /** The process exists and (when recorded) has the same start identity. */
  processAlive(pid: number, startId: string | null): boolean;
  /** Some process of the group exists, and the group is still the one whose leader had `leaderStartId`. */
  groupAlive(pgid: number, leaderStartId: string | null): boolean;
}

export interface LivenessCheck {
  readonly here: MachineIdentity;
  /** Supervisor and command verdicts for a lease (unknown/unknown when nobody owns it or pids are not trusted). */
  judge(lease: RecordedOwner | null): OwnerLiveness;
  /** One recorded process: alive or gone, unknown when its pid means nothing here. */
  judgeProcess(recorded: RecordedProcess): Verdict;
}

export const UNKNOWN_LIVENESS: OwnerLiveness = { supervisor: 'unknown', command: 'unknown' };

export function createLivenessCheck(here: MachineIdentity, probe: ProcessProbe): LivenessCheck {
  return {
    here,
    judge(lease) {
      if (lease === null || lease.ownerType === null || lease.ownerPid === null) return UNKNOWN_LIVENESS;
      if (!pidsTrusted(lease, here)) return UNKNOWN_LIVENESS;
      // While the supervisor lives it answers for its command: the group is only looked at once it is gone.
      if (probe.processAlive(lease.ownerPid, lease.ownerStartId)) {
        return { supervisor: 'alive', command: 'unknown' };
      }
      return { supervisor: 'gone', command: judgeCommand(lease, probe) };
    },
    judgeProcess(recorded) {
      if (!processTrusted(recorded, here)) return 'unknown';
      return probe.processAlive(recorded.pid, recorded.startId) ? 'alive' : 'gone';
    },
  };
}

/** The command: its group when it has one of its own, else its single process; "gone" when none was recorded. */
function judgeCommand(lease: RecordedOwner, probe: ProcessProbe): Verdict {
  const pgid = lease.commandPgid ?? null;
  const pid = lease.commandPid ?? null;
  const startId = lease.commandStartId ?? null;
  if (pgid !== null) return probe.groupAlive(pgid, pgid === pid ? startId : null) ? 'alive' : 'gone';
  if (pid !== null) return probe.processAlive(pid, startId) ? 'alive' : 'gone';
  return 'gone';
}

/** A check that trusts no pid: every verdict unknown, only lease clocks count (a context built without one). */
export const UNTRUSTED_LIVENESS: LivenessCheck = createLivenessCheck(
  { hostname: '', bootId: null, pidNs: null },
  { processAlive: () => false, groupAlive: () => false },
);
