/** How the window words another machine's state (docs/REMOTES.md#in-the-window). Plain text only. */
import type { RemoteMachineView } from '$shared/remotes';
import type { RunListItem } from '$shared/views';

/** HH:MM in the person's locale. */
export function clockTime(at: number): string {
  return new Date(at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
}

/** "box: unreachable since 14:05 — ssh: …", "box: connected (Runwarden 0.1.0 on host)", "box: connecting…". */
export function machineLine(machine: RemoteMachineView): string {
  if (machine.state === 'connecting') return `${machine.name}: connecting…`;
  if (machine.state === 'connected') {
    const where = machine.host === null ? '' : ` on ${machine.host}`;
    return `${machine.name}: connected (Runwarden ${machine.version ?? '?'}${where})`;
  }
  const prefix = `${machine.name}: unreachable — `;
  const error = machine.error ?? 'no answer';
  const why = error.startsWith(prefix) ? error.slice(prefix.length) : error;
  const since = machine.since === null ? '' : ` since ${clockTime(machine.since)}`;
  return `${machine.name}: unreachable${since} — ${why}`;
}

/** A run list row's Machine cell: "this machine", "box", or "box · last known 14:05" when box is unreachable. */
export function machineCellText(item: Pick<RunListItem, 'machine' | 'lastKnownAt'>): string {
  if (item.machine === undefined || item.machine === null) return 'this machine';
  if (item.lastKnownAt === undefined || item.lastKnownAt === null) return item.machine;
  return `${item.machine} · last known ${clockTime(item.lastKnownAt)}`;
}
