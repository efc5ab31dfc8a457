/** The runs as a table, for `runwarden ls` and its `--machine` listing. */
import { basename } from 'node:path';
import { AGENT_ACTIVITY_WORDS, agentActivity, detailNow } from '../../shared/agent-activity';
import type { DisplayStatus } from '../../shared/display-status';
import { ageFrom } from '../../shared/views';
import type { FullRunListItem } from '../store';
import { shellCommand } from '../platform/shell-quote';
import { formatTable, relativeTime, statusStyle, type Column, type Paint } from './output';
import { sanitizeLine } from './sanitize';

/** The runs as a table; `machineOf` adds a MACHINE column and writes remote ids as MACHINE:ID. */
export function renderRuns(
  items: FullRunListItem[],
  nextCursor: string | null,
  now: number,
  paint: Paint,
  labels: Map<string, string>,
  machineOf?: (item: FullRunListItem) => string | null,
  lsArgs: readonly string[] = [],
): string {
  if (items.length === 0) return 'No runs.\n';
  const idOf = (item: FullRunListItem): string => {
    const machine = machineOf?.(item) ?? null;
    return machine === null ? item.run.id : `${machine}:${item.run.id}`;
  };
  const columns: Column<FullRunListItem>[] = [
    ...(machineOf === undefined
      ? []
      : [{ header: 'MACHINE', value: (item: FullRunListItem) => machineOf(item) ?? 'this' }]),
    { header: 'RUN', value: idOf },
    {
      header: 'STATUS',
      value: (item) => statusLabel(item),
      style: (item) => statusStyle(item.display.status),
    },
    {
      header: 'PROJECT',
      value: (item) => labels.get(item.run.projectPath) ?? basename(item.run.projectPath),
      max: 32,
    },
    { header: 'WORKFLOW', value: (item) => item.run.workflow, max: 20 },
    { header: 'TITLE', value: (item) => item.run.title, max: 40 },
    // A run waiting for an answer is as old as its question.
    { header: 'AGE', value: (item) => relativeTime(ageFrom(item), now) },
    // An agent session does not heartbeat: what it is doing stands in that column (docs/AGENTS.md).
    { header: 'HEARTBEAT', value: (item) => heartbeatCell(item, now) },
    { header: 'STEP', value: (item) => item.run.currentStep ?? '-', max: 24 },
    { header: 'DETAIL', value: (item) => detailNow(item.run, item.display, now) ?? '-', max: 40 },
  ];
  const table = formatTable(columns, items, paint);
  if (nextCursor === null) return table;
  // The next page is the same listing (view, project, search, limit) from the cursor on.
  const more = shellCommand(['runwarden', 'ls', ...withoutCursorFlag(lsArgs), '--cursor', nextCursor]);
  return `${table}… more: ${sanitizeLine(more)}\n`;
}

/** Why a run is parked, in a few words for the STATUS column (the window's words, shorter). */
const PARKED_WORDS: Record<NonNullable<FullRunListItem['display']['parkReason']>, string> = {
  effectAmbiguous: 'parked (unknown outcome)',
  sourceChanged: 'parked (source changed)',
  paused: 'parked (paused)',
  runnerExited: 'parked (runner exited)',
  interactionExpired: 'parked (question expired)',
};

function heartbeatCell(item: FullRunListItem, now: number): string {
  const activity = agentActivity(item.run, item.display, now);
  if (activity !== null) return `agent: ${AGENT_ACTIVITY_WORDS[activity]}`;
  return relativeTime(item.lease?.heartbeatAt ?? null, now);
}

function statusLabel(item: FullRunListItem): string {
  const status: DisplayStatus = item.display.status;
  if (status === 'parked' && item.display.parkReason !== null) return PARKED_WORDS[item.display.parkReason];
  return status;
}

/** ls's arguments without `--cursor C` (and without --json, which prints no table). */
function withoutCursorFlag(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '--cursor') i += 1;
    else if (!arg.startsWith('--cursor=') && arg !== '--json') out.push(arg);
  }
  return out;
}
