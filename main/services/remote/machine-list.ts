/**
 * The run list over every attached machine (docs/REMOTES.md#in-the-window): this machine's page and each
 * remote's own page of the same view, read from that machine's handlers, merged in the view's order. Each
 * machine keeps its own truth: a remote's rows are as it answered now; a machine that cannot answer shows the
 * rows it gave last, marked last known and with no action. A page's cursor carries each machine's place.
 */
import { RunwardenError, type Result } from '../../../shared/errors';
import { TRIAGE_GROUPS, type TriageCounts } from '../../../shared/triage';
import type { RunListItem, RunPage } from '../../../shared/views';
import { nameRemoteIds } from './machine-ids';
import { listItems } from './remote-hub';

/** This machine's key in a page's cursor. */
const HERE = '';
const CURSOR_PREFIX = 'm1.';
/** A machine that has not answered a page in this long is shown as last known for this page. */
export const MACHINE_PAGE_TIMEOUT_MS = 3_000;
const NO_DEADLINE = Number.MAX_SAFE_INTEGER;

export interface ListInput {
  view?: string;
  projectPath?: string;
  search?: string;
  limit?: number;
  cursor?: string | null;
  machine?: string;
}

/** What the merge needs of the host: this machine's page, and the remotes. */
export interface MachineListDeps {
  local: (input: ListInput) => Result<RunPage>;
  machines: () => Array<{ name: string; connected: boolean }>;
  remotePage: (name: string, input: ListInput) => Promise<Result<unknown>>;
  /** The rows a machine gave last for this query's first page, and when; remembered for a first page. */
  lastKnown: (name: string, key: string) => { items: RunListItem[]; at: number } | null;
  remember: (name: string, key: string, items: RunListItem[]) => void;
}

type Place = string | null | false; // a cursor, the start, or nothing more
interface SourcePage {
  name: string; // HERE for this machine
  items: RunListItem[];
  more: boolean;
  groups: TriageCounts | null;
}

/** The query a machine's first page is remembered under. */
export function queryKey(input: ListInput): string {
  return JSON.stringify([input.view ?? 'all', input.projectPath ?? null, input.search?.trim() ?? '']);
}

function decodeCursor(cursor: string | null | undefined): Record<string, Place> | null {
  if (cursor === null || cursor === undefined) return null;
  if (!cursor.startsWith(CURSOR_PREFIX)) {
    throw new RunwardenError(
      'VALIDATION',
      'This cursor is not one a page of runs gave out: start from the first page (no cursor).',
    );
  }
  try {
    const parsed = JSON.parse(
      Buffer.from(cursor.slice(CURSOR_PREFIX.length), 'base64url').toString('utf8'),
    ) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not a map');
    for (const place of Object.values(parsed)) {
      if (place !== false && place !== null && typeof place !== 'string') throw new Error('not a place');
    }
    return parsed as Record<string, Place>;
  } catch {
    throw new RunwardenError(
      'VALIDATION',
      'This cursor is not one a page of runs gave out: start from the first page (no cursor).',
    );
  }
}

function encodeCursor(places: Record<string, Place>): string | null {
  if (Object.values(places).every((p) => p === false)) return null;
  return CURSOR_PREFIX + Buffer.from(JSON.stringify(places), 'utf8').toString('base64url');
}

/** The plain id of a row (a remote's is named `NAME:ID` by now). */
function plainId(item: RunListItem): string {
  const at = item.run.id.indexOf(':');
  return at === -1 ? item.run.id : item.run.id.slice(at + 1);
}

function groupRank(item: RunListItem): number {
  const rank = item.triageGroup === undefined ? -1 : TRIAGE_GROUPS.indexOf(item.triageGroup);
  return rank === -1 ? TRIAGE_GROUPS.length - 1 : rank;
}

function deadlineKey(item: RunListItem): number {
  return groupRank(item) === 0 ? (item.nextDeadlineAt ?? NO_DEADLINE) : 0;
}

/** The view's order: Needs you by (group, soonest deadline, newest); the others newest first. */
function compare(view: string, a: RunListItem, b: RunListItem): number {
  if (view === 'needs-you') {
    const byGroup = groupRank(a) - groupRank(b);
    if (byGroup !== 0) return byGroup;
    const byDeadline = deadlineKey(a) - deadlineKey(b);
    if (byDeadline !== 0) return byDeadline;
  }
  const ia = plainId(a);
  const ib = plainId(b);
  return ia < ib ? 1 : ia > ib ? -1 : 0;
}

/** The cursor a machine's own store gives after this row (main/store/run-views.ts, needs-you-queue.ts). */
function cursorAfter(view: string, item: RunListItem): string {
  const id = plainId(item);
  return view === 'needs-you' ? `triage:${groupRank(item)}:${deadlineKey(item)}:${id}` : id;
}

function sourcesOf(deps: MachineListDeps, machine: string | undefined): string[] {
  const remotes = deps.machines().map((m) => m.name);
  if (machine === undefined) return [HERE, ...remotes];
  if (!remotes.includes(machine)) {
    throw new RunwardenError(
      'NOT_FOUND',
      `No remote machine named "${machine}" is attached (Settings → Other machines).`,
    );
  }
  return [machine];
}

function withTimeout<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(fallback), ms);
    void promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      () => {
        clearTimeout(timer);
        resolve(fallback);
      },
    );
  });
}

/** A remote's rows as this side shows them: checked, ids named `NAME:ID`, the machine on each. */
function remoteRows(name: string, value: unknown, lastKnownAt: number | null): RunListItem[] {
  return listItems(value).map((item) => {
    const named = nameRemoteIds(item, name);
    const display = lastKnownAt === null ? named.display : { ...named.display, actions: [] };
    return { ...named, display, machine: name, lastKnownAt };
  });
}

async function readSource(
  deps: MachineListDeps,
  name: string,
  place: string | null,
  input: ListInput,
  limit: number,
): Promise<SourcePage> {
  const query = { ...input, limit, cursor: place };
  delete query.machine;
  if (name === HERE) {
    const page = deps.local(query);
    if (!page.ok) throw new RunwardenError(page.error.code, page.error.message);
    return {
      name,
      items: page.value.items,
      more: page.value.nextCursor !== null,
      groups: page.value.groups ?? null,
    };
  }
  const connected = deps.machines().find((m) => m.name === name)?.connected === true;
  const failed = { ok: false as const, error: { code: 'CONFLICT' as const, message: 'no answer' } };
  const page = connected
    ? await withTimeout(deps.remotePage(name, query), MACHINE_PAGE_TIMEOUT_MS, failed)
    : failed;
  const key = queryKey(input);
  if (page.ok) {
    const items = remoteRows(name, page.value, null);
    if (place === null) deps.remember(name, key, items);
    const value = page.value as { nextCursor?: unknown; groups?: unknown };
    const groups = place === null && typeof value.groups === 'object' ? (value.groups as TriageCounts) : null;
    return { name, items, more: typeof value.nextCursor === 'string', groups };
  }
  // Not reachable now: its first page as last read, marked, and nothing more.
  const last = place === null ? deps.lastKnown(name, key) : null;
  const items = (last?.items ?? []).map((item) => ({
    ...item,
    display: { ...item.display, actions: [] },
    machine: name,
    lastKnownAt: last?.at ?? null,
  }));
  return { name, items, more: false, groups: null };
}

function sumGroups(pages: SourcePage[]): TriageCounts {
  const total: TriageCounts = {};
  for (const page of pages) {
    const groups =
      page.groups ??
      page.items.reduce<TriageCounts>((acc, item) => {
        // A machine's last-known rows are shown, marked, but counted apart (docs/REMOTES.md#counts).
        if (item.lastKnownAt !== null && item.lastKnownAt !== undefined) return acc;
        if (item.triageGroup !== undefined) acc[item.triageGroup] = (acc[item.triageGroup] ?? 0) + 1;
        return acc;
      }, {});
    for (const [group, n] of Object.entries(groups)) {
      const key = group as keyof TriageCounts;
      total[key] = (total[key] ?? 0) + (n ?? 0);
    }
  }
  return total;
}

/** One page over the machines the input names (all of them, or one remote), in the view's order. */
export async function listAcrossMachines(deps: MachineListDeps, input: ListInput): Promise<RunPage> {
  const view = input.view ?? 'all';
  const limit = input.limit ?? 100;
  const decoded = decodeCursor(input.cursor);
  const names = sourcesOf(deps, input.machine);
  const places: Record<string, Place> = {};
  for (const name of names)
    // A machine attached since the cursor was given out starts nowhere: its rows are in the first page.
    places[name] = decoded === null ? null : Object.hasOwn(decoded, name) ? (decoded[name] as Place) : false;
  const pages = await Promise.all(
    names
      .filter((name) => places[name] !== false)
      .map((name) => readSource(deps, name, places[name] as string | null, input, limit)),
  );
  const merged = pages
    .flatMap((page) => page.items.map((item) => ({ item, page })))
    .sort((a, b) => compare(view, a.item, b.item));
  const taken = merged.slice(0, limit);
  for (const page of pages) {
    const mine = taken.filter((t) => t.page === page);
    const last = mine.at(-1)?.item;
    const allTaken = mine.length === page.items.length;
    if (allTaken && !page.more) places[page.name] = false;
    else if (last !== undefined) places[page.name] = cursorAfter(view, last);
  }
  return {
    items: taken.map((t) => t.item),
    nextCursor: encodeCursor(places),
    ...(view === 'needs-you' && decoded === null && { groups: sumGroups(pages) }),
  };
}
