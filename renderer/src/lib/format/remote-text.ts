/** How the window words another machine's state (docs/REMOTES.md#in-the-window). Plain text only. */
import type { RemoteMachineView } from '../../../../shared/remotes';

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
