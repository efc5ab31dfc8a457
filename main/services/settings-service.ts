/**
 * Settings: defaults merged with what the store holds, one key per top-level setting. Patches are
 * validated by the contract before they get here; this module only merges and persists them.
 */
import type { Actor } from '../../shared/domain';
import { DEFAULT_SETTINGS, type NotifyRuleSet, type Settings } from '../../shared/views';
import type { StoreWriter, StoreReader } from '../store';

type SettingsPatch = {
  [K in keyof Settings]?: K extends 'notificationRules'
    ? { defaults?: Partial<NotifyRuleSet>; projects?: Record<string, Partial<NotifyRuleSet>> }
    : Settings[K];
};

const KEYS = Object.keys(DEFAULT_SETTINGS) as Array<keyof Settings>;

/** Reads every setting, falling back to defaults for missing or malformed values. */
export function loadSettings(store: StoreReader): Settings {
  const stored = store.listSettings();
  const merged: Record<string, unknown> = { ...DEFAULT_SETTINGS };
  for (const key of KEYS) {
    const value = stored[key];
    if (value === undefined) continue;
    if (sameShape(DEFAULT_SETTINGS[key], value, key)) merged[key] = value;
  }
  const rules = merged.notificationRules as Settings['notificationRules'];
  merged.notificationRules = {
    defaults: { ...DEFAULT_SETTINGS.notificationRules.defaults, ...rules.defaults },
    projects: { ...rules.projects },
  };
  return merged as unknown as Settings;
}

/** Applies a validated patch and persists the keys it touches; returns the new settings. */
export function applySettingsPatch(store: StoreWriter, patch: SettingsPatch, actor: Actor): Settings {
  const current = loadSettings(store);
  const next: Settings = { ...current };
  for (const key of KEYS) {
    if (!Object.hasOwn(patch, key)) continue;
    if (key === 'notificationRules') {
      const rules = patch.notificationRules ?? {};
      const projects = { ...current.notificationRules.projects };
      for (const [path, set] of Object.entries(rules.projects ?? {})) {
        projects[path] = { ...projects[path], ...set };
      }
      next.notificationRules = {
        defaults: { ...current.notificationRules.defaults, ...rules.defaults },
        projects,
      };
    } else {
      (next as unknown as Record<string, unknown>)[key] = patch[key];
    }
    store.setSetting(key, next[key], actor);
  }
  return next;
}

function sameShape(fallback: unknown, value: unknown, key: keyof Settings): boolean {
  if (key === 'autoCancelStaleAfterMin' || key === 'retentionDays') {
    return value === null || (typeof value === 'number' && Number.isInteger(value) && value > 0);
  }
  if (typeof fallback === 'number') return typeof value === 'number' && Number.isFinite(value);
  if (typeof fallback === 'boolean') return typeof value === 'boolean';
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
