/**
 * The window's root state: the route (kept in the URL hash), the parts of the screen, and the pushes
 * from main wired to them. Components stay thin and call into this.
 */
import type { RunwardenApi } from '$shared/contract';
import { type BulkAction, type ChangedPush, type RunView } from '$shared/views';
import {
  DEFAULT_ROUTE,
  formatHash,
  hashProblem,
  parseHash,
  sameRoute,
  type HashHistory,
  type Route,
} from '$lib/hash-route';
import type { KeyCommand } from '$lib/keyboard-commands';
import { bulkOutcomeText } from '$lib/format/consequences';
import type { Tone as ToastTone } from '$lib/format/status-look';
import { machineCounts, type Counted } from '$lib/format/machine-counts';
import { BulkDialogState } from './bulk-dialog.svelte';
import { CommandDialogState } from './command-dialog.svelte';
import { MachinesState } from './machines.svelte';
import { NotificationsState } from './notifications.svelte';
import { ProjectsState } from './projects.svelte';
import { QuickAnswerState } from './quick-answer.svelte';
import { SearchCountsState } from './search-counts.svelte';
import { RunDetailState, type HeaderAction } from './run-detail.svelte';
import { RunListState } from './run-list.svelte';
import { RunSelection } from './run-selection.svelte';
import { SettingsState } from './settings.svelte';
import { StoreStatusState } from './store-status.svelte';
import { Ticker } from './ticker.svelte';
import { ToastsState } from './toasts.svelte';

export type FocusTarget = 'search' | 'list' | 'detail';
export type Panel = 'notifications' | 'settings' | 'shortcuts' | 'palette' | null;
/** Where a key was pressed: in the open run (its pane or drawer), or anywhere else. */
export type KeyOrigin = 'detail' | 'elsewhere';
/** Where the window runs: the desktop app (tray, login item, desktop notifications) or a browser tab. */
export type Shell = 'desktop' | 'browser';

/**
 * How long a changed search must stay unchanged before its tab counts are asked for: longer than the gap
 * between keystrokes of someone typing, short against the seconds they then spend reading.
 */
export const SEARCH_COUNTS_SETTLE_MS = 250;
/** PageUp/PageDown move the keyboard cursor this many rows (about a screen of the list). */
const PAGE_ROWS = 15;
/** Near the end of what is loaded, a move down asks for the next page. */
const LOAD_AHEAD_ROWS = 40;

export interface AppOptions {
  shell: Shell;
  /** The projects sidebar starts folded (a narrow window). */
  sidebarCollapsed: boolean;
}

export class AppState {
  route = $state.raw<Route>(DEFAULT_ROUTE);
  panel = $state<Panel>(null);
  /** Text for the polite live region (push updates, command results). */
  announcement = $state('');
  /** Asks a component to move focus; `seq` makes repeated requests distinct. */
  focusRequest = $state.raw<{ target: FocusTarget; seq: number } | null>(null);
  sidebarCollapsed = $state(false);

  readonly api: RunwardenApi;
  /** Ticks once a second while ages and countdowns are on screen. */
  readonly clock: Ticker;
  readonly list: RunListState;
  readonly detail: RunDetailState;
  readonly selection = new RunSelection();
  readonly projects: ProjectsState;
  readonly machines: MachinesState;
  readonly notifications: NotificationsState;
  readonly settings: SettingsState;
  readonly storeStatus: StoreStatusState;
  readonly command: CommandDialogState;
  readonly bulk: BulkDialogState;
  readonly quickAnswer: QuickAnswerState;
  readonly searchCounts: SearchCountsState;
  readonly toasts = new ToastsState();
  readonly shell: Shell;

  /**
   * What the window counts (docs/REMOTES.md#counts): `everywhere` is every machine's (the title, the live
   * region), `shown` the machines the route shows (the tabs, the sidebar's total). An unreachable machine
   * is left out of both, and named in `leftOut` with what needed you there when last read.
   */
  readonly everywhere = $derived.by(() => machineCounts(this.#localCounts(), this.machines.list, null));
  readonly shown = $derived.by(() =>
    machineCounts(this.#localCounts(), this.machines.list, this.route.machine),
  );

  readonly #history: HashHistory;
  #focusSeq = 0;
  #needsYouSeen: number | null = null;

  constructor(
    api: RunwardenApi,
    history: HashHistory,
    now: () => number = Date.now,
    options: AppOptions = { shell: 'desktop', sidebarCollapsed: false },
  ) {
    this.api = api;
    this.clock = new Ticker(1000, now);
    this.#history = history;
    this.shell = options.shell;
    this.sidebarCollapsed = options.sidebarCollapsed;
    this.list = new RunListState(api);
    this.detail = new RunDetailState(api);
    this.projects = new ProjectsState(api);
    this.machines = new MachinesState(api);
    this.notifications = new NotificationsState(api);
    this.settings = new SettingsState(api);
    this.storeStatus = new StoreStatusState(api);
    this.command = new CommandDialogState(this.detail);
    this.bulk = new BulkDialogState(api);
    this.quickAnswer = new QuickAnswerState(api);
    this.searchCounts = new SearchCountsState(api);
  }

  #localCounts(): Counted {
    return { counts: this.projects.counts, needsYou: this.projects.needsYou };
  }

  get dialogOpen(): boolean {
    return this.command.isOpen || this.bulk.isOpen || this.quickAnswer.isOpen || this.panel !== null;
  }

  /** The run keyboard commands act on: the active row, else the open run. */
  get selectedRunId(): string | null {
    return this.list.activeId ?? this.route.runId;
  }

  /** Opens the quick answer for a run's open question (from its list row or a notification). */
  openQuickAnswer(runId: string): Promise<void> {
    const title = this.list.itemById(runId)?.run.title ?? this.detail.data?.snapshot.run.title ?? runId;
    return this.quickAnswer.open(runId, title);
  }

  /** Sends a quick answer; on success the dialog closes and a toast says what was recorded. */
  async quickAnswerWith(choice: string): Promise<void> {
    const outcome = await this.quickAnswer.answer(choice);
    if (!outcome.ok) return;
    this.quickAnswer.close();
    this.toast(outcome.text, 'success');
    await Promise.all([this.list.refresh(), this.projects.load(), this.detail.reload()]);
  }

  #lastHash: string | null = null;

  /** Follows the hash; one that asks for what the window cannot show says so instead of being ignored. */
  #followHash(force: boolean): void {
    const hash = this.#history.read();
    // hashchange and popstate both report one change: say a problem once.
    const problem = hash === this.#lastHash ? null : hashProblem(hash);
    this.#lastHash = hash;
    if (problem !== null) this.toast(problem, 'warning');
    void this.applyRoute(parseHash(hash), force);
  }

  /** Loads everything, follows the hash and subscribes to pushes; returns the teardown. */
  start(): () => void {
    const stops = [
      this.#history.listen(() => this.#followHash(false)),
      this.api.on('changed', (push) => void this.onChanged(push)),
      this.api.on('attention', (push) => {
        this.projects.applyAttention(push.counts, push.needsYou);
        this.#announceNeedsYou(this.everywhere.needsYou);
      }),
      this.api.on('open-run', (push) => {
        void this.openRun(push.runId);
      }),
      this.api.on('store-status', (push) => this.storeStatus.apply(push)),
      this.api.on('remotes', (push) => this.#onMachines(this.machines.apply(push.machines))),
    ];
    this.#followHash(true);
    void this.projects.load();
    void this.notifications.load();
    void this.storeStatus.load();
    void this.machines.load().then(() => this.notifications.loadRemote(this.machines.list));
    return () => {
      for (const stop of stops) stop();
    };
  }

  /** After the list changed view, project or search: the selection keeps only the runs it now shows. */
  #narrowSelection(): void {
    if (this.selection.count === 0 || this.list.loading) return;
    const dropped = this.selection.retainOnly(new Set(this.list.items.map((i) => i.run.id)));
    if (dropped > 0)
      this.announce(
        `${dropped} selected ${dropped === 1 ? 'run is' : 'runs are'} not in this view and no longer selected. ${this.selection.count} selected.`,
      );
  }

  /** Follows a route (from the hash or a navigation). */
  async applyRoute(next: Route, force = false): Promise<void> {
    const prev = this.route;
    if (!force && sameRoute(prev, next)) return;
    this.route = next;
    const tasks: Array<Promise<void>> = [];
    const listChanged =
      force ||
      prev.view !== next.view ||
      prev.projectPath !== next.projectPath ||
      prev.search !== next.search ||
      (prev.machine ?? null) !== (next.machine ?? null);
    const listed = listChanged
      ? this.list
          .load({
            view: next.view,
            projectPath: next.projectPath,
            search: next.search,
            machine: next.machine ?? null,
          })
          .then(() => this.#narrowSelection())
      : Promise.resolve();
    tasks.push(listed);
    if (force || prev.projectPath !== next.projectPath || prev.search !== next.search) {
      // After the rows, and once the typing pauses: a broad search's counts cost far more than its first
      // page (docs/WINDOW.md#search); counting every keystroke's word would only compete with the next's rows.
      const settle = prev.search !== next.search ? SEARCH_COUNTS_SETTLE_MS : 0;
      tasks.push(
        listed.then(() =>
          this.searchCounts.load({ search: next.search, projectPath: next.projectPath }, settle),
        ),
      );
    }
    if (next.runId === null) this.detail.close();
    else if (force || prev.runId !== next.runId) {
      this.list.activeId = next.runId;
      tasks.push(this.detail.open(next.runId));
    }
    await Promise.all(tasks);
  }

  /** Changes the route and records it in the hash (search typing replaces, the rest pushes history). */
  navigate(patch: Partial<Route>, options: { replace: boolean } = { replace: false }): Promise<void> {
    const next = { ...this.route, ...patch };
    const hash = formatHash(next);
    if (options.replace) this.#history.replace(hash);
    else this.#history.push(hash);
    return this.applyRoute(next);
  }

  setView(view: RunView): Promise<void> {
    return this.navigate({ view });
  }

  setProject(projectPath: string | null): Promise<void> {
    return this.navigate({ projectPath });
  }

  setSearch(search: string): Promise<void> {
    return this.navigate({ search }, { replace: true });
  }

  async openRun(runId: string, focus = true): Promise<void> {
    this.list.activeId = runId;
    await this.navigate({ runId });
    if (focus) this.requestFocus('detail');
  }

  closeRun(): Promise<void> {
    const done = this.navigate({ runId: null });
    this.requestFocus('list');
    return done;
  }

  requestFocus(target: FocusTarget): void {
    this.focusRequest = { target, seq: ++this.#focusSeq };
  }

  /** After a dialog whose opener is gone: the open run's heading, else the run list. */
  restoreFocus(): void {
    this.requestFocus(this.route.runId !== null ? 'detail' : 'list');
  }

  /** A header action that needs no confirmation; a retry then opens the run it created. */
  async runAction(action: HeaderAction): Promise<void> {
    const result = await this.detail.run(action, { reason: '' });
    if (action !== 'retry' || result === null || !result.ok) return;
    const created = result.value as { id: string };
    this.announce(`Retried as a new run ${created.id}.`);
    this.toast(`Retried as a new run ${created.id}.`, 'success');
    await this.openRun(created.id);
  }

  /** Confirms the open command dialog; a confirmed retry then opens the run it created. */
  async confirmCommand(): Promise<void> {
    const done = await this.command.confirm();
    if (done === null || done.action !== 'retry' || done.result === null || !done.result.ok) return;
    const created = done.result.value as { id: string };
    this.toast(`Retried as a new run ${created.id}.`, 'success');
    await this.openRun(created.id);
  }

  announce(text: string): void {
    this.announcement = text;
  }

  /** A visible result; the toast region reads it out, so it is not also announced. */
  toast(text: string, tone: ToastTone = 'info'): void {
    this.toasts.show(text, tone);
  }

  /** A `changed` push: re-read what is on screen, keeping scroll, the active row and the open run. */
  async onChanged(push: ChangedPush): Promise<void> {
    const openId = this.detail.runId;
    const tasks: Array<Promise<void>> = [
      this.list.refresh(),
      this.projects.load(),
      this.notifications.load(),
    ];
    if (this.route.search.trim() !== '')
      tasks.push(this.searchCounts.load({ search: this.route.search, projectPath: this.route.projectPath }));
    if (openId !== null && (push.runIds.length === 0 || push.runIds.includes(openId))) {
      tasks.push(this.detail.reload());
    }
    await Promise.all(tasks);
  }

  /**
   * Another machine's rows changed (read again, reconnected, or it went away): the list reads them again, and
   * the open run if it is one of that machine's (docs/REMOTES.md#in-the-window).
   */
  #onMachines(changed: string[]): void {
    if (changed.length === 0) return;
    this.#announceNeedsYou(this.everywhere.needsYou);
    void this.notifications.loadRemote(this.machines.list, changed);
    void this.list.refresh();
    const open = this.detail.runId;
    if (open !== null && changed.some((name) => open.startsWith(`${name}:`))) void this.detail.reload();
  }

  /**
   * A rise in what needs you is said; a fall is said too while the last thing said was that count, so the
   * live region never keeps "1 run needs you." once Needs you says 0.
   */
  #announceNeedsYou(needsYou: number): void {
    const before = this.#needsYouSeen;
    this.#needsYouSeen = needsYou;
    if (before === null || needsYou === before) return;
    if (needsYou > before || this.announcement === needsYouText(before))
      this.announce(needsYouText(needsYou));
  }

  /**
   * Picked runs the list does not show now (they left it after a change): the bulk bar says how many and
   * names them before any action (docs/WINDOW.md#commands-and-retry).
   */
  readonly outOfView = $derived.by(() => {
    if (this.selection.count === 0) return [];
    return this.selection.outside(new Set(this.list.items.map((i) => i.run.id)));
  });

  openBulk(action: BulkAction): Promise<void> {
    const items = this.selection.items();
    const titles = new Map(items.map((i) => [i.runId, this.selection.titleOf(i.runId) ?? i.runId]));
    return this.bulk.open(action, items, titles);
  }

  async confirmBulk(): Promise<void> {
    const result = await this.bulk.confirm();
    const shown = this.bulk.shown;
    if (result === null || shown === null) return;
    // The same count as the dialog's heading: the runs the dry run refused are counted as refused too.
    this.toast(
      `${bulkOutcomeText(result.action, shown.succeeded, shown.failed)}.`,
      shown.failed > 0 ? 'warning' : 'success',
    );
    this.selection.clear();
    await Promise.all([this.list.refresh(), this.projects.load(), this.detail.reload()]);
  }

  /** Home/End/PageUp/PageDown over the list: End also asks for the next page, so End again goes further. */
  #jump(to: 'first' | 'last' | 'pageUp' | 'pageDown'): void {
    const rows = { first: -Infinity, last: Infinity, pageUp: -PAGE_ROWS, pageDown: PAGE_ROWS }[to];
    this.list.moveActive(Number.isFinite(rows) ? rows : Math.sign(rows) * this.list.items.length);
    if (
      to !== 'first' &&
      to !== 'pageUp' &&
      this.list.activeIndex >= this.list.items.length - LOAD_AHEAD_ROWS
    )
      void this.list.loadMore();
  }

  /**
   * After the active row moved: with a run open, the open run follows it, as a mail client's reading pane
   * does (one history entry, replaced as it moves), and focus stays on the side the key came from: the run's
   * heading when it came from the open run (the drawer covers the list), else the list.
   */
  #followActive(from: KeyOrigin): void {
    const runId = this.list.activeId;
    if (this.route.runId === null || runId === null) {
      this.requestFocus('list');
      return;
    }
    if (runId !== this.route.runId) void this.navigate({ runId }, { replace: true });
    this.requestFocus(from === 'detail' ? 'detail' : 'list');
  }

  /** One keyboard command (see keyboard-commands.ts); `from`: whether the key came from the open run. */
  handleCommand(command: KeyCommand, from: KeyOrigin = 'elsewhere'): void {
    // While a new view's first page loads, the rows on screen belong to the old view: moving over or
    // opening them would act on a run the person did not pick.
    if (
      this.list.loading &&
      (command.kind === 'next' ||
        command.kind === 'prev' ||
        command.kind === 'open' ||
        command.kind === 'jump')
    )
      return;
    switch (command.kind) {
      case 'jump':
        this.#jump(command.to);
        this.#followActive(from);
        break;
      case 'next':
        this.list.moveActive(1);
        this.#followActive(from);
        break;
      case 'prev':
        this.list.moveActive(-1);
        this.#followActive(from);
        break;
      case 'open':
        if (this.list.activeId !== null) void this.openRun(this.list.activeId);
        break;
      case 'close':
        if (this.panel !== null) this.panel = null;
        else if (this.route.runId !== null) void this.closeRun();
        break;
      case 'focusSearch':
        this.requestFocus('search');
        break;
      case 'toggleSelect': {
        const item = this.list.activeId === null ? undefined : this.list.itemById(this.list.activeId);
        if (item !== undefined) {
          this.selection.toggle(item);
          this.announce(
            `${this.selection.has(item.run.id) ? 'Selected' : 'Unselected'}. ${this.selection.count} selected.`,
          );
        }
        break;
      }
      case 'help':
        this.panel = 'shortcuts';
        break;
      case 'palette':
        this.panel = 'palette';
        break;
      case 'answer': {
        const runId = this.selectedRunId;
        const item = runId === null ? undefined : this.list.itemById(runId);
        if (runId !== null && (item === undefined || item.display.status === 'needs-answer'))
          void this.openQuickAnswer(runId);
        break;
      }
      case 'selectAll':
        this.selection.addAll(this.list.items);
        this.announce(`${this.selection.count} selected.`);
        break;
      case 'view':
        void this.setView(command.view);
        this.requestFocus('list');
        break;
    }
  }
}

/** The live region's words for how many runs need you. */
export function needsYouText(needsYou: number): string {
  if (needsYou === 0) return 'Nothing needs you now.';
  return `${needsYou} ${needsYou === 1 ? 'run needs' : 'runs need'} you.`;
}
