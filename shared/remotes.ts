/**
 * Other machines in the window (docs/REMOTES.md#in-the-window): what the host says about each attached machine,
 * and the channels a window may call on one. Every string here came from another machine or from `ssh`:
 * shown as text, never as markup, and never opened or run.
 */
import type { Interaction } from './domain';
import type { RunListItem, StatusCounts } from './views';

/** The channels the window may send to a remote's own handlers; nothing that opens, installs or configures. */
export const REMOTE_CALL_CHANNELS = [
  'projects:list',
  'runs:list',
  'runs:detail',
  'runs:log',
  'attention:summary',
  'notifications:list',
  'notifications:markRead',
  'runs:previewCancel',
  'runs:cancel',
  'runs:requestCancel',
  'runs:requestPause',
  'runs:pause',
  'runs:stopCommand',
  'runs:resume',
  'runs:retry',
  'runs:bulk',
  'effects:resolve',
  'interactions:answer',
] as const;
export type RemoteCallChannel = (typeof REMOTE_CALL_CHANNELS)[number];

export type RemoteLinkState = 'connecting' | 'connected' | 'unreachable';

export interface RemoteMachineView {
  name: string;
  dest: string;
  runwarden: string;
  state: RemoteLinkState;
  /** When the machine became unreachable (ms); null while connected. */
  since: number | null;
  /** Why not, as `ssh` or the remote said it; null while connected. */
  error: string | null;
  kind: string | null;
  /** The remote's Runwarden version and host name, from its hello. */
  version: string | null;
  host: string | null;
  /** When `needsYou` and `questions` were read; while unreachable they are the last known, marked as such. */
  readAt: number | null;
  needsYou: RunListItem[];
  /** The open questions of those runs. */
  questions: Interaction[];
  /** Runs per display status there, and how many need a person (its own attention summary). */
  counts: StatusCounts;
  needsYouTotal: number;
  /** Pushes the host dropped from this machine for being over the rate or size bound. */
  dropped: number;
}

export interface RemotesPush {
  machines: RemoteMachineView[];
}
