/** The store status banner: read-only, newer schema, busy, corrupt, disk full — each with what to do. */
import type { RunwardenApi } from '$shared/contract';
import type { ErrorInfo } from '$shared/errors';
import type { StoreInfo, StoreStatusPush } from '$shared/views';

export interface StoreBanner {
  tone: 'warning' | 'danger' | 'info';
  title: string;
  advice: string;
}

/** What to tell the person about the store, or null when all is well. Pure. */
export function storeBanner(
  info: StoreInfo | null,
  push: StoreStatusPush | null,
  failure: ErrorInfo | null,
): StoreBanner | null {
  if (failure !== null) {
    switch (failure.code) {
      case 'STORE_CORRUPT':
        return {
          tone: 'danger',
          title: 'The run store is damaged.',
          advice: `${failure.message} Runwarden left the file untouched. Run \`runwarden doctor\`, then restore it from a backup or move it aside.`,
        };
      case 'STORE_FOREIGN':
        return {
          tone: 'danger',
          title: 'The store path holds a file that is not a Runwarden store.',
          advice: `${failure.message} Point RUNWARDEN_STORE elsewhere; the file was not changed.`,
        };
      case 'DISK_FULL':
        return { tone: 'danger', title: 'The disk is full.', advice: failure.message };
      case 'STORE_LOCKED':
      case 'BUSY':
        return {
          tone: 'info',
          title: 'The store is busy.',
          advice: 'Another process holds a write lock. Runwarden keeps retrying; nothing is lost.',
        };
      default:
        return { tone: 'warning', title: 'Cannot read the store.', advice: failure.message };
    }
  }
  if (push?.disconnected) {
    return {
      tone: 'danger',
      title: 'Lost the connection to runwarden serve.',
      advice:
        'Nothing on this page will update. Reload it; if serve was restarted, open the new URL it printed.',
    };
  }
  if (push?.writeError) {
    return push.writeError.code === 'DISK_FULL'
      ? {
          tone: 'danger',
          title: 'The disk is full: nothing can be saved.',
          advice: `${push.writeError.message} Runners keep their runs and retry what they could not record.`,
        }
      : {
          tone: 'warning',
          title: 'The store became read-only.',
          advice: `${push.writeError.message} Fix the file's or folder's permissions; nothing was changed.`,
        };
  }
  if (push?.busy) {
    return {
      tone: 'info',
      title: 'The store is busy.',
      advice: 'Another process holds a write lock. Runwarden keeps retrying; nothing is lost.',
    };
  }
  const mode = push?.mode ?? info?.mode ?? 'read-write';
  if (mode === 'read-only') {
    const reason = push?.modeReason ?? info?.modeReason ?? null;
    if (info !== null && info.schemaVersion > info.supportedVersion) {
      return {
        tone: 'warning',
        title: 'Read-only: this store was made by a newer Runwarden.',
        advice: `${reason ?? `Schema ${info.schemaVersion}, this version knows ${info.supportedVersion}.`} Update Runwarden to make changes.`,
      };
    }
    return {
      tone: 'warning',
      title: 'Read-only: changes are disabled.',
      advice: `${reason ?? 'The store file or its folder is not writable.'} Fix its permissions and restart Runwarden.`,
    };
  }
  return null;
}

export class StoreStatusState {
  info = $state.raw<StoreInfo | null>(null);
  push = $state.raw<StoreStatusPush | null>(null);
  failure = $state.raw<ErrorInfo | null>(null);
  readonly banner = $derived(storeBanner(this.info, this.push, this.failure));
  readonly readOnly = $derived((this.push?.mode ?? this.info?.mode) === 'read-only');

  readonly #api: RunwardenApi;

  constructor(api: RunwardenApi) {
    this.#api = api;
  }

  async load(): Promise<void> {
    const result = await this.#api.getStoreInfo({});
    if (result.ok) {
      this.info = result.value;
      this.failure = null;
    } else this.failure = result.error;
  }

  apply(push: StoreStatusPush): void {
    this.push = push;
  }
}
