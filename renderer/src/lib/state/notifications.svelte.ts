/** The notifications panel: history, unread count, mark read. */
import type { RunwardenApi } from '$shared/contract';
import type { Notification } from '$shared/domain';
import type { ErrorInfo } from '$shared/errors';
import { NOTIFICATION_HISTORY } from '$shared/views';

export class NotificationsState {
  items = $state.raw<Notification[]>([]);
  error = $state.raw<ErrorInfo | null>(null);
  readonly unread = $derived(this.items.filter((n) => n.readAt === null).length);
  /** Runs with a question open now: their notifications can be answered from the panel. */
  answerable = $state.raw<ReadonlySet<string>>(new Set());

  readonly #api: RunwardenApi;
  #generation = 0;

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

  /** Which runs have an open question now (the panel offers to answer those in place). */
  async loadAnswerable(): Promise<void> {
    const result = await this.#api.getAttention({ limit: 200 });
    if (!result.ok) return;
    this.answerable = new Set(
      result.value.items.filter((i) => i.display.status === 'needs-answer').map((i) => i.run.id),
    );
  }

  async markRead(ids: number[] | 'all'): Promise<void> {
    if (ids !== 'all' && ids.length === 0) return;
    const result = await this.#api.markNotificationsRead({ ids });
    if (!result.ok) {
      this.error = result.error;
      return;
    }
    await this.load();
  }
}
