/** One line of the bench table and its JSON form, with the target it is judged against. */
import { round, summarize, type PairedSamples } from './stats';

/** A read may cost at most this much more than the raw SQL returning the same rows. */
export const READ_RATIO_LIMIT = 1.5;

export type Group = 'store' | 'writes' | 'sweeper' | 'concurrency' | 'memory' | 'browser' | 'size';

export interface Measurement {
  id: string;
  label: string;
  group: Group;
  unit: string;
  n: number;
  median: number | null;
  p95: number | null;
  baselineMedian: number | null;
  baselineP95: number | null;
  /** app median / baseline median. */
  ratio: number | null;
  target: string | null;
  met: boolean | null;
  note?: string;
  extra?: Record<string, number | string | boolean | null>;
  /**
   * What the baseline is (reads only): `same-data`, the raw query returning the same data, so its growth
   * across store sizes is what SQLite itself must do; `naive`, a way without the store's counters (a full
   * count), whose growth says nothing about what the app's must be.
   */
  baselineKind?: 'same-data' | 'naive';
}

/** A list/detail/attention/search read: judged on its ratio to the raw-SQL baseline of the same run. */
export function readMeasurement(
  id: string,
  label: string,
  samples: PairedSamples,
  note?: string,
  baselineKind: Measurement['baselineKind'] = 'same-data',
): Measurement {
  const app = summarize(samples.app);
  const base = summarize(samples.baseline);
  const ratio = app.median / base.median;
  return {
    id,
    label,
    group: 'store',
    unit: 'ms',
    n: app.n,
    median: round(app.median),
    p95: round(app.p95),
    baselineMedian: round(base.median),
    baselineP95: round(base.p95),
    ratio: round(ratio, 2),
    target: `≤ ${READ_RATIO_LIMIT}× raw SQL`,
    met: ratio <= READ_RATIO_LIMIT,
    ...(note !== undefined && { note }),
    baselineKind,
  };
}

/** A timed operation judged by its p95 against `limitMs` (optionally with a baseline for the ratio). */
export function timedMeasurement(
  id: string,
  label: string,
  group: Group,
  samples: PairedSamples,
  limitMs: number | null,
  note?: string,
): Measurement {
  const app = summarize(samples.app);
  const base = samples.baseline.length > 0 ? summarize(samples.baseline) : null;
  return {
    id,
    label,
    group,
    unit: 'ms',
    n: app.n,
    median: round(app.median),
    p95: round(app.p95),
    baselineMedian: base === null ? null : round(base.median),
    baselineP95: base === null ? null : round(base.p95),
    ratio: base === null ? null : round(app.median / base.median, 2),
    target: limitMs === null ? null : `p95 < ${limitMs} ms`,
    met: limitMs === null ? null : app.p95 < limitMs,
    ...(note !== undefined && { note }),
  };
}

/** A single figure (throughput, memory, size) with an optional target. */
export function figure(
  id: string,
  label: string,
  group: Group,
  unit: string,
  value: number,
  target: { text: string; met: boolean } | null,
  extra?: Measurement['extra'],
  note?: string,
): Measurement {
  return {
    id,
    label,
    group,
    unit,
    n: 1,
    median: round(value),
    p95: null,
    baselineMedian: null,
    baselineP95: null,
    ratio: null,
    target: target?.text ?? null,
    met: target?.met ?? null,
    ...(extra !== undefined && { extra }),
    ...(note !== undefined && { note }),
  };
}
