/**
 * Other machines in the tray and the desktop notifications (docs/REMOTES.md#tray-and-notifications): what
 * the tray shows is this machine's attention read with each connected machine's added: its runs that need
 * you and their open questions, named `NAME:ID`, so a tray answer takes the same path as the window's (the
 * host sends it to that machine). A machine that cannot be reached adds nothing: its last-known questions
 * are not answerable. A question first seen on a machine is announced once, as a local one is.
 */
import type { Interaction } from '../../../shared/domain';
import type { RemoteMachineView } from '../../../shared/remotes';
import type { RunListItem, StatusCounts } from '../../../shared/views';
import type { DesktopNotice, ShellAttention } from '../host-types';
import { nameRemoteIds } from './machine-ids';

function addCounts(into: StatusCounts, more: StatusCounts): StatusCounts {
  const total: StatusCounts = { ...into };
  for (const [status, n] of Object.entries(more)) {
    const key = status as keyof StatusCounts;
    total[key] = (total[key] ?? 0) + (n ?? 0);
  }
  return total;
}

/** This machine's tray read with the connected machines' added; `items` more runs at most. */
export function withRemoteAttention(
  local: ShellAttention,
  machines: readonly RemoteMachineView[],
  items: number,
): ShellAttention {
  let { counts, needsYou } = local.summary;
  const runs: RunListItem[] = [...local.summary.items];
  const questions: Interaction[] = [...local.questions];
  for (const machine of machines) {
    if (machine.state !== 'connected' || machine.readAt === null) continue;
    counts = addCounts(counts, machine.counts);
    needsYou += machine.needsYouTotal;
    for (const item of machine.needsYou.slice(0, items)) {
      const named = nameRemoteIds(item, machine.name);
      // The tray says whose run it is: "box: Deploy billing".
      const run = { ...named.run, title: `${machine.name}: ${named.run.title}` };
      runs.push({ ...named, run, machine: machine.name, lastKnownAt: null });
    }
    questions.push(...machine.questions.map((q) => nameRemoteIds(q, machine.name)));
  }
  // Which shown questions closed is the local store's word only; another machine's are told by its reads.
  return { summary: { ...local.summary, counts, needsYou, items: runs }, questions, closed: local.closed };
}

/** What a machine's run is called in a notice: its title, and the machine. */
function runLabel(machine: RemoteMachineView, runId: string): string {
  const title = machine.needsYou.find((item) => item.run.id === runId)?.run.title ?? runId;
  return `${title} — on ${machine.name}`;
}

/**
 * Notices for the questions each connected machine asks that `seen` has not had yet; `seen` then has them.
 * A machine's first read after the host started announces what waits there in one notice, not one each.
 */
export function remoteQuestionNotices(
  machines: readonly RemoteMachineView[],
  seen: Map<string, Set<string>>,
): DesktopNotice[] {
  const notices: DesktopNotice[] = [];
  for (const machine of machines) {
    if (machine.state !== 'connected' || machine.readAt === null) continue;
    const known = seen.get(machine.name);
    const fresh = machine.questions.filter((q) => known === undefined || !known.has(q.id));
    seen.set(machine.name, new Set([...(known ?? []), ...machine.questions.map((q) => q.id)]));
    if (fresh.length === 0) continue;
    if (known === undefined) {
      const n = fresh.length;
      notices.push({
        title: `${machine.name}: ${n} ${n === 1 ? 'question waits' : 'questions wait'} for you`,
        body: fresh
          .map((q) => q.title)
          .join(' · ')
          .slice(0, 300),
        level: 'attention',
        runId: n === 1 ? `${machine.name}:${fresh[0]?.runId}` : null,
      });
      continue;
    }
    for (const question of fresh) {
      notices.push({
        title: `Needs an answer: ${question.title}`.slice(0, 300),
        body: runLabel(machine, question.runId).slice(0, 500),
        level: 'attention',
        runId: `${machine.name}:${question.runId}`,
        interactionId: `${machine.name}:${question.id}`,
      });
    }
  }
  return notices;
}
