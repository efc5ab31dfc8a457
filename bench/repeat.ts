/**
 * A figure measured several times in one run, judged on the median of its repeats: the median of the medians,
 * of the p95s and of the ratios, and "met" when most repeats met the target. One noisy stretch of a shared
 * machine then moves one repeat, not the verdict.
 */
import type { Measurement } from './report-model';
import { round } from './stats';

function middle(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] as number;
}

function medianOf(values: ReadonlyArray<number | null>): number | null {
  const known = values.filter((v): v is number => v !== null && Number.isFinite(v));
  return known.length === 0 ? null : middle(known);
}

/** Combines the repeats (each a list of measurements with the same ids) into one list, in the first's order. */
export function combineRepeats(repeats: ReadonlyArray<readonly Measurement[]>): Measurement[] {
  const first = repeats[0];
  if (first === undefined) return [];
  if (repeats.length === 1) return [...first];
  return first.map((m) => {
    const all = repeats
      .map((r) => r.find((x) => x.id === m.id))
      .filter((x): x is Measurement => x !== undefined);
    const judged = all.filter((x) => x.met !== null);
    const metCount = judged.filter((x) => x.met === true).length;
    const ratio = medianOf(all.map((x) => x.ratio));
    return {
      ...m,
      n: all.reduce((sum, x) => sum + x.n, 0),
      median: medianOf(all.map((x) => x.median)),
      p95: medianOf(all.map((x) => x.p95)),
      baselineMedian: medianOf(all.map((x) => x.baselineMedian)),
      baselineP95: medianOf(all.map((x) => x.baselineP95)),
      ratio: ratio === null ? null : round(ratio, 2),
      met: judged.length === 0 ? null : metCount * 2 > judged.length,
      extra: {
        ...m.extra,
        repeats: all.length,
        repeatMedians: all.map((x) => x.median ?? Number.NaN).join(' / '),
        ...(judged.length > 0 && { repeatsMet: `${metCount}/${judged.length}` }),
      },
    };
  });
}
