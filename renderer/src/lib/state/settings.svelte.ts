/** Settings (docs/WINDOW.md#settings) and the store's location and health. */
import type { RunwardenApi } from '$shared/contract';
import type { ErrorInfo } from '$shared/errors';
import type { Settings, StoreInfo } from '$shared/views';

type SettingsPatch = Parameters<RunwardenApi['setSettings']>[0]['patch'];

export class SettingsState {
  settings = $state.raw<Settings | null>(null);
  info = $state.raw<StoreInfo | null>(null);
  error = $state.raw<ErrorInfo | null>(null);
  saving = $state(false);
  savedAt = $state<number | null>(null);

  readonly #api: RunwardenApi;

  constructor(api: RunwardenApi) {
    this.#api = api;
  }

  async load(): Promise<void> {
    const [settings, info] = await Promise.all([this.#api.getSettings({}), this.#api.getStoreInfo({})]);
    if (settings.ok) this.settings = settings.value;
    if (info.ok) this.info = info.value;
    this.error = !settings.ok ? settings.error : !info.ok ? info.error : null;
  }

  async save(patch: SettingsPatch): Promise<boolean> {
    this.saving = true;
    const result = await this.#api.setSettings({ patch });
    this.saving = false;
    if (!result.ok) {
      this.error = result.error;
      return false;
    }
    this.settings = result.value;
    this.error = null;
    this.savedAt = Date.now();
    return true;
  }
}
