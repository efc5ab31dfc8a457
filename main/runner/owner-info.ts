/** Who holds a lease: this process, identified so the sweeper can tell when it is verifiably gone (docs/LIVENESS.md). */
import { hostname } from 'node:os';
import type { Actor, Surface } from '../../shared/domain';
import type { OwnerInfo } from '../store';
import { machineIdentity } from '../store/process-identity';
import { processStartId } from '../store/process-identity';

export function runnerOwner(label: string, pid: number = process.pid): OwnerInfo {
  const host = hostname();
  return {
    ownerType: 'runner',
    ownerId: `${label}:${host}:${pid}`,
    pid,
    hostname: host,
    startId: processStartId(pid),
    bootId: machineIdentity().bootId,
    pidNs: machineIdentity().pidNs,
  };
}

export function runnerActor(owner: Pick<OwnerInfo, 'ownerId'>, surface: Surface): Actor {
  return { type: 'runner', id: owner.ownerId, surface };
}
