/** `runwarden ls`: runs with their display status (docs/ARCHITECTURE.md#display-status-and-views), newest first. */
import { resolve } from 'node:path';
import { DISPLAY_STATUSES } from '../../../shared/display-status';
import { RUN_STATUSES, type RunStatus } from '../../../shared/domain';
import type { FullRunListItem, RunListPage, StoreReader } from '../../store';
import { COMMON_HELP, JSON_HELP, UsageError, type CliContext, type Command } from '../command';
import { defineCommand, reply } from '../define-command';
import { reader } from '../open-cli-store';
import { listRemotes } from '../../services/remote/remotes';
import { checkOptionalText, parseIntegerFlag, RANGES, rangeText } from '../limits';
import { projectLabels, realFolder } from '../project-path';
import { renderRuns } from '../run-table';

const VIEWS = [...DISPLAY_STATUSES, 'all'] as const;
type View = (typeof VIEWS)[number] | 'needs-you';

export const lsCommand: Command = defineCommand({
  name: 'ls',
  summary: 'list runs with their status',
  help: `Usage: runwarden ls [--project DIR] [--status S | --state S | --needs-you] [--search TEXT] [--limit N] [--json]

Lists runs newest first with their display status, project, workflow, title, age, last heartbeat,
current step and detail (the run's latest "runwarden progress" text, or why it waits or ended). A
run whose runner stopped heartbeating shows "stale" as soon as its lease expires.

Options:
  --project DIR   only runs of this project folder
  --status S      only runs showing S, the display status the app shows (--view S is the same):
                  ${VIEWS.join(', ')}.
                  As in the app's views, running includes waiting, parked includes paused and
                  ambiguous, failed includes timed_out, stale includes orphaned (name those to see
                  them alone); a cancelled run with an effect still unresolved shows as ambiguous,
                  not cancelled
  --state S       only runs whose stored state is S, whatever they show (for scripts):
                  ${RUN_STATUSES.join(', ')}
  --needs-you     only runs that need a person, in triage order (questions by soonest deadline,
                  stale, ambiguous, parked, unattended)
  --search TEXT   title / workflow search
  --limit N       at most N runs (${rangeText(RANGES.limit)}, default 50); --cursor C continues from the "next" cursor
  --machine M     the runs of remote machine M, or of this machine and every remote (all), each
                  naming its machine; their ids are M:ID (runwarden remote; docs/REMOTES.md)
${JSON_HELP}
${COMMON_HELP}`,
  options: {
    project: { type: 'string' },
    status: { type: 'string' },
    view: { type: 'string' },
    state: { type: 'string' },
    'needs-you': { type: 'boolean' },
    search: { type: 'string' },
    limit: { type: 'string' },
    cursor: { type: 'string' },
    machine: { type: 'string' },
  },
  positionals: [],
  store: reader,
  async run({ ctx, values, argv, open }) {
    if (values.machine !== undefined) {
      const { listMachines } = await import('../remote/machines-ls');
      const listHere = (local: CliContext, args: string[]) => lsCommand.run(local, args);
      return listMachines(ctx, values.machine, withoutMachineFlag(argv), values.store, listHere);
    }
    let view: View = 'all';
    if (values.status !== undefined && values.view !== undefined && values.status !== values.view) {
      throw new UsageError('--status and --view are the same filter: give one');
    }
    const shown = values.status ?? values.view;
    const flag = values.status !== undefined ? '--status' : '--view';
    if (shown !== undefined) {
      if (!(VIEWS as readonly string[]).includes(shown)) {
        throw new UsageError(`${flag} must be one of ${VIEWS.join(', ')}`);
      }
      view = shown as View;
    }
    if (values['needs-you'] === true) {
      if (shown !== undefined) throw new UsageError(`use either ${flag} or --needs-you`);
      view = 'needs-you';
    }
    const state = values.state;
    if (state !== undefined) {
      if (!(RUN_STATUSES as readonly string[]).includes(state)) {
        throw new UsageError(`--state must be one of ${RUN_STATUSES.join(', ')}`);
      }
      if (shown !== undefined || values['needs-you'] === true) {
        throw new UsageError('--state filters by the stored state: give it without --status or --needs-you');
      }
    }
    const projectPath =
      values.project === undefined
        ? undefined
        : realFolder(resolve(ctx.cwd, values.project), `no such project folder: ${values.project}`);
    const limit = parseIntegerFlag(values.limit, 'limit', RANGES.limit) ?? 50;
    const search = checkOptionalText(values.search, '--search', 'title');
    const store = open();
    const query = { projectPath, search, limit, cursor: values.cursor ?? null };
    const page =
      state === undefined
        ? store.listRuns({ ...query, view })
        : listByState(store, query, state as RunStatus);
    return reply(page, () => {
      // Two projects with the same folder name get enough of their paths to tell them apart.
      const labels = projectLabels(page.items.map((item) => item.run.projectPath));
      const table = renderRuns(page.items, page.nextCursor, ctx.now(), ctx.paint, labels, undefined, argv);
      const remotes = listRemotes(store).length;
      if (remotes === 0) return table;
      const others = remotes === 1 ? '1 other machine is' : `${remotes} other machines are`;
      return `${table}${others} attached: runwarden ls --machine all\n`;
    });
  },
});

/** Pages of every run, newest first, keeping those whose stored state is `state`, until `limit` are kept. */
function listByState(
  store: StoreReader,
  query: {
    projectPath: string | undefined;
    search: string | undefined;
    limit: number;
    cursor: string | null;
  },
  state: RunStatus,
): RunListPage {
  const items: FullRunListItem[] = [];
  let cursor = query.cursor;
  for (;;) {
    const page = store.listRuns({
      projectPath: query.projectPath,
      search: query.search,
      view: 'all',
      limit: RANGES.limit.max,
      cursor,
    });
    for (const item of page.items) {
      if (item.run.status !== state) continue;
      if (items.length === query.limit) return { items, nextCursor: items.at(-1)?.run.id ?? null };
      items.push(item);
    }
    if (page.nextCursor === null) return { items, nextCursor: null };
    cursor = page.nextCursor;
  }
}

/** `--machine M` and its value taken out of ls's arguments. */
function withoutMachineFlag(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '--machine') i += 1;
    else if (!arg.startsWith('--machine=')) out.push(arg);
  }
  return out;
}
