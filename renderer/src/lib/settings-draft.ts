/**
 * The settings form in the units a person thinks in (seconds, minutes, days), checked before anything is sent:
 * a bad field gives its own message and no patch. The store keeps milliseconds (shared/views.ts Settings).
 */
import type { NotifyEvent, Settings } from '$shared/views';
import { parseDecimal } from '$shared/answer-value';

export interface SettingsDraft {
  /** Seconds, as typed. */
  sweepIntervalSec: string;
  staleGraceSec: string;
  unattendedQueueMin: string;
  autoCancelOn: boolean;
  autoCancelStaleAfterMin: string;
  retentionOn: boolean;
  retentionDays: string;
  closeToTray: boolean;
  launchAtLogin: boolean;
  notificationsPaused: boolean;
  autoUpdateCheck: boolean;
  /** Run output limits (docs/RUN-OUTPUT.md#limits): kept as they are; no field edits them yet. */
  logCapMb: number;
  logBudgetMb: number;
  notificationRules: {
    defaults: Record<NotifyEvent, boolean>;
    projects: Record<string, Partial<Record<NotifyEvent, boolean>>>;
  };
}

export type DraftField =
  'sweepIntervalSec' | 'staleGraceSec' | 'unattendedQueueMin' | 'autoCancelStaleAfterMin' | 'retentionDays';

export type SettingsPatch = Omit<Settings, 'notificationRules'> & {
  notificationRules: Settings['notificationRules'];
};

export type DraftCheck =
  { ok: true; patch: SettingsPatch } | { ok: false; errors: Partial<Record<DraftField, string>> };

/** Seconds without float noise: 250 ms → "0.25". */
function seconds(ms: number): string {
  return String(Math.round(ms) / 1000);
}

export function toDraft(settings: Settings): SettingsDraft {
  return {
    sweepIntervalSec: seconds(settings.sweepIntervalMs),
    staleGraceSec: seconds(settings.staleGraceMs),
    unattendedQueueMin: String(settings.unattendedQueueMin),
    autoCancelOn: settings.autoCancelStaleAfterMin !== null,
    autoCancelStaleAfterMin: String(settings.autoCancelStaleAfterMin ?? 60),
    retentionOn: settings.retentionDays !== null,
    retentionDays: String(settings.retentionDays ?? 30),
    closeToTray: settings.closeToTray,
    launchAtLogin: settings.launchAtLogin,
    notificationsPaused: settings.notificationsPaused,
    autoUpdateCheck: settings.autoUpdateCheck,
    logCapMb: settings.logCapMb,
    logBudgetMb: settings.logBudgetMb,
    notificationRules: structuredClone(settings.notificationRules),
  };
}

interface Bounds {
  min: number;
  max: number;
  /** The value must be a whole multiple of this (after unit conversion). */
  step: number;
  unit: string;
}

function check(text: string, label: string, b: Bounds): { value: number } | { error: string } {
  const n = parseDecimal(text);
  if (n === null) return { error: `${label}: type a number, like ${b.min}.` };
  if (n < b.min || n > b.max) return { error: `${label}: between ${b.min} and ${b.max} ${b.unit}.` };
  const steps = n / b.step;
  if (Math.abs(steps - Math.round(steps)) > 1e-9)
    return { error: `${label}: in steps of ${b.step} ${b.unit}.` };
  return { value: n };
}

/** The patch to save, or a message per field that cannot be saved. */
export function fromDraft(draft: SettingsDraft): DraftCheck {
  const errors: Partial<Record<DraftField, string>> = {};
  const take = (field: DraftField, label: string, b: Bounds, on = true): number | null => {
    if (!on) return null;
    const r = check(draft[field], label, b);
    if ('error' in r) {
      errors[field] = r.error;
      return null;
    }
    return r.value;
  };
  const sweep = take('sweepIntervalSec', 'Check every', { min: 0.25, max: 60, step: 0.25, unit: 'seconds' });
  const grace = take('staleGraceSec', 'Stale grace', { min: 0, max: 3600, step: 1, unit: 'seconds' });
  const queue = take('unattendedQueueMin', 'Queued without a runner', {
    min: 1,
    max: 10_080,
    step: 1,
    unit: 'minutes',
  });
  const autoCancel = take(
    'autoCancelStaleAfterMin',
    'Auto-cancel after',
    { min: 1, max: 525_600, step: 1, unit: 'minutes' },
    draft.autoCancelOn,
  );
  const retention = take(
    'retentionDays',
    'Delete finished runs after',
    { min: 1, max: 3650, step: 1, unit: 'days' },
    draft.retentionOn,
  );
  if (Object.keys(errors).length > 0 || sweep === null || grace === null || queue === null)
    return { ok: false, errors };
  return {
    ok: true,
    patch: {
      sweepIntervalMs: Math.round(sweep * 1000),
      staleGraceMs: Math.round(grace * 1000),
      unattendedQueueMin: queue,
      autoCancelStaleAfterMin: autoCancel,
      retentionDays: retention,
      closeToTray: draft.closeToTray,
      launchAtLogin: draft.launchAtLogin,
      notificationsPaused: draft.notificationsPaused,
      autoUpdateCheck: draft.autoUpdateCheck,
      logCapMb: draft.logCapMb,
      logBudgetMb: draft.logBudgetMb,
      notificationRules: structuredClone(draft.notificationRules),
    },
  };
}
