/**
 * The notifications panel: history, unread count, mark read. Another machine's notices are its own
 * history, read from it (docs/REMOTES.md#tray-and-notifications): named by their machine, resolved when the
 * question they announce is answered, withdrawn or expires there, and kept as last known while the machine
 * cannot be reached.
 */
import type { RunwardenApi } from '$shared/contract';
import { NOTIFICATION_LEVELS, NOTIFICATION_RESOLUTIONS, type Notification } from '$shared/domain';
import type { ErrorInfo } from '$shared/errors';
import type { RemoteMachineView } from '$shared/remotes';
import { NOTIFICATION_HISTORY } from '$shared/views';

/** A notification as the panel lists it: this machine's (`machine` null) or another's, named `NAME:ID`. */
export interface ShownNotification extends Notification {
  machine: string | null;
  /** Unique over every machine. */
  key: string;
  /** Set while its machine cannot be reached: as it was when last read (ms), with no action. */
  lastKnownAt: number | null;
}

/** Each other machine's history shown here is its latest this many. */
export const REMOTE_HISTORY = 50;
const ID = /^(run|int)_[0-9a-z]{1,60}$/;

function text(value: unknown, max: number): string | null {
  return typeof value === 'string' ? value.slice(0, max) : null;
}

function when(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

function named(machine: string, value: unknown): string | null {
  return typeof value === 'string' && ID.test(value) ? `${machine}:${value}` : null;
}

/** Another machine's notification, checked field by field; null when it is not one. */
function remoteNote(machine: string, value: unknown): ShownNotification | null {
  if (typeof value !== 'object' || value === null) return null;
  const n = value as Record<string, unknown>;
  const id = when(n.id);
  const at = when(n.at);
  const title = text(n.title, 300);
  const level = (NOTIFICATION_LEVELS as readonly unknown[]).includes(n.level) ? n.level : null;
  if (id === null || at === null || title === null || level === null) return null;
  const resolution = (NOTIFICATION_RESOLUTIONS as readonly unknown[]).includes(n.resolution)
    ? (n.resolution as Notification['resolution'])
    : null;
  return {
    id,
    runId: named(machine, n.runId),
    level: level as Notification['level'],
    title,
    body: text(n.body, 2000) ?? '',
    at,
    readAt: when(n.readAt),
    interactionId: named(machine, n.interactionId),
    resolvedAt: when(n.resolvedAt),
    resolution,
    machine,
    key: `${machine}:${id}`,
    lastKnownAt: null,
  };
}

export class NotificationsState {
  items = $state.raw<Notification[]>([]);
  /** Each other machine's latest notices, as it last gave them. */
  remote = $state.raw<Record<string, ShownNotification[]>>({});
  error = $state.raw<ErrorInfo | null>(null);
  /** Every machine's, newest first. */
  readonly shown = $derived.by((): ShownNotification[] => {
    const local = this.items.map((n) => ({ ...n, machine: null, key: String(n.id), lastKnownAt: null }));
    return [...local, ...Object.values(this.remote).flat()].toSorted((a, b) => b.at - a.at);
  });
  /** Unread over this machine and the connected ones: a last-known notice cannot be read now. */
  readonly unread = $derived(
    this.shown.filter((n) => n.readAt === null && n.resolvedAt === null && n.lastKnownAt === null).length,
  );
  /** Runs with a question open now: their notifications can be answered from the panel. */
  answerable = $state.raw<ReadonlySet<string>>(new Set());

  readonly #api: RunwardenApi;
  #generation = 0;
  #machines: readonly RemoteMachineView[] = [];
  /** The latest read of each machine's history: an older answer landing late is dropped. */
  #remoteReads = new Map<string, number>();

  constructor(api: RunwardenApi) {
    this.#api = api;
  }

  async load(): Promise<void> {
    const generation = ++this.#generation;
    const result = await this.#api.listNotifications({ limit: NOTIFICATION_HISTORY });
    // An older answer landing after a newer one is dropped.
    if (generation !== this.#generation) return;
    if (result.ok) {
      this.items = result.value;
      this.error = null;
    } else this.error = result.error;
  }

  /**
   * Reads the history of each connected machine in `changed` (every one when not given) again; the others'
   * stay as read; an unreachable one's is marked last known since it went down; a machine no longer
   * attached is forgotten.
   */
  async loadRemote(machines: readonly RemoteMachineView[], changed?: readonly string[]): Promise<void> {
    this.#machines = machines;
    const attached = new Set(machines.map((m) => m.name));
    this.remote = Object.fromEntries(Object.entries(this.remote).filter(([name]) => attached.has(name)));
    await Promise.all(
      machines
        .filter((m) => changed === undefined || changed.includes(m.name) || m.state !== 'connected')
        .map((machine) => this.#loadMachine(machine)),
    );
  }

  /** One machine's history; an answer overtaken by a later read of the same machine is dropped. */
  async #loadMachine(machine: RemoteMachineView): Promise<void> {
    const seq = (this.#remoteReads.get(machine.name) ?? 0) + 1;
    this.#remoteReads.set(machine.name, seq);
    const keep = (list: ShownNotification[]) => {
      if (this.#remoteReads.get(machine.name) === seq) this.remote = { ...this.remote, [machine.name]: list };
    };
    const before = this.remote[machine.name] ?? [];
    if (machine.state !== 'connected') {
      const at = machine.since ?? machine.readAt;
      return keep(before.map((n) => ({ ...n, lastKnownAt: n.lastKnownAt ?? at ?? 0 })));
    }
    const result = await this.#api.callRemote({
      machine: machine.name,
      channel: 'notifications:list',
      input: { limit: REMOTE_HISTORY },
    });
    if (!result.ok || !Array.isArray(result.value)) return;
    keep(
      (result.value as unknown[])
        .slice(0, REMOTE_HISTORY)
        .map((n) => remoteNote(machine.name, n))
        .filter((n) => n !== null),
    );
  }

  /** Which runs have an open question now (the panel offers to answer those in place). */
  async loadAnswerable(): Promise<void> {
    const result = await this.#api.getAttention({ limit: 200 });
    if (!result.ok) return;
    const here = result.value.items.filter((i) => i.display.status === 'needs-answer').map((i) => i.run.id);
    // Another machine's open questions, as the host last read them from it while connected.
    const there = this.#machines
      .filter((m) => m.state === 'connected')
      .flatMap((m) => m.questions.map((q) => `${m.name}:${q.runId}`));
    this.answerable = new Set([...here, ...there]);
  }

  /** Marks read here and, for another machine's notices, on that machine (its own history). */
  async markRead(ids: Array<number | string> | 'all'): Promise<void> {
    const keys = ids === 'all' ? this.shown.map((n) => n.key) : ids.map(String);
    const chosen = this.shown.filter(
      (n) => keys.includes(n.key) && n.readAt === null && n.lastKnownAt === null,
    );
    const local = ids === 'all' ? 'all' : chosen.filter((n) => n.machine === null).map((n) => n.id);
    const byMachine = new Map<string, number[]>();
    for (const n of chosen)
      if (n.machine !== null) byMachine.set(n.machine, [...(byMachine.get(n.machine) ?? []), n.id]);
    const results = await Promise.all([
      local === 'all' || local.length > 0 ? this.#api.markNotificationsRead({ ids: local }) : null,
      ...[...byMachine].map(([machine, list]) =>
        this.#api.callRemote({ machine, channel: 'notifications:markRead', input: { ids: list } }),
      ),
    ]);
    const failed = results.find((r) => r !== null && !r.ok);
    if (failed !== undefined && failed !== null && !failed.ok) this.error = failed.error;
    await Promise.all([this.load(), byMachine.size > 0 ? this.loadRemote(this.#machines) : null]);
  }
}
