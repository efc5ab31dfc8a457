/**
 * What the open run says when it offers no action (docs/WINDOW.md#no-dead-ends): why nothing here can act
 * on it, and what to do instead, with the command to run where it has to run.
 */
import { isAgentSessionRun, type DisplayInfo } from '$shared/display-status';
import type { Lease, Run } from '$shared/domain';

export interface NoActionText {
  why: string;
  /** Where the command has to be run, when not here. */
  where: string | null;
  command: string | null;
}

/** Null when the run has an action, or has ended and has nothing left to do. */
export function noActionText(
  run: Pick<Run, 'id' | 'status' | 'originSession'>,
  display: Pick<DisplayInfo, 'status' | 'actions'>,
  lease: Pick<Lease, 'ownerHostname'> | null,
  openRetry: { id: string; status: string } | null,
): NoActionText | null {
  if (display.actions.length > 0) return null;
  if (openRetry !== null)
    return {
      why: `Its retry ${openRetry.id} is ${openRetry.status}: a second retry would run the same work twice at once. Open the retry to follow or cancel it.`,
      where: null,
      command: null,
    };
  if (display.status === 'orphaned') {
    const host = lease?.ownerHostname ?? null;
    return {
      why: `Nothing in this window can stop its command: it runs on ${host ?? 'another machine'}, which this machine cannot see or signal. Once the command is stopped there, the run can be cancelled here.`,
      where: host,
      command: `runwarden cancel --stop-command ${run.id}`,
    };
  }
  if (isAgentSessionRun(run))
    return {
      why: 'Its coding agent decides what it does next, not a runner: steer or stop it in the agent itself. Its questions show here when it asks.',
      where: null,
      command: null,
    };
  return null;
}
