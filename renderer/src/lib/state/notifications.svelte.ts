/** The notifications panel: history, unread count, mark read. */
import type { RunwardenApi } from '../../../../shared/contract';
import type { Notification } from '../../../../shared/domain';
import type { ErrorInfo } from '../../../../shared/errors';
import { NOTIFICATION_HISTORY } from '../../../../shared/views';

export class NotificationsState {
  items = $state.raw<Notification[]>([]);
  error = $state.raw<ErrorInfo | null>(null);
  readonly unread = $derived(this.items.filter((n) => n.readAt === null).length);

  readonly #api: RunwardenApi;

  constructor(api: RunwardenApi) {
    this.#api = api;
  }

  async load(): Promise<void> {
    const result = await this.#api.listNotifications({ limit: NOTIFICATION_HISTORY });
    if (result.ok) {
      this.items = result.value;
      this.error = null;
    } else this.error = result.error;
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
