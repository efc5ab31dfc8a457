/** Timing and summary statistics: medians and p95 over many repetitions, never a single sample. */

export interface Summary {
  n: number;
  median: number;
  p95: number;
  mean: number;
  min: number;
  max: number;
}

/** Nearest-rank percentile of unsorted samples (p in 0..100). */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

export function summarize(samples: readonly number[]): Summary {
  if (samples.length === 0)
    return { n: 0, median: Number.NaN, p95: Number.NaN, mean: Number.NaN, min: Number.NaN, max: Number.NaN };
  let sum = 0;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const s of samples) {
    sum += s;
    if (s < min) min = s;
    if (s > max) max = s;
  }
  return {
    n: samples.length,
    median: percentile(samples, 50),
    p95: percentile(samples, 95),
    mean: sum / samples.length,
    min,
    max,
  };
}

/** Milliseconds taken by `fn` (high-resolution clock). */
export function timeMs(fn: () => unknown): number {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export interface PairedSamples {
  app: number[];
  baseline: number[];
}

/**
 * Times `app` and `baseline` alternately (so both see the same machine noise), after a warm-up.
 * `i` is the repetition number, for operations that need a fresh target each time.
 */
export function measurePaired(
  app: (i: number) => unknown,
  baseline: ((i: number) => unknown) | null,
  opts: { reps: number; warmup: number },
): PairedSamples {
  for (let i = 0; i < opts.warmup; i += 1) {
    app(i);
    baseline?.(i);
  }
  const out: PairedSamples = { app: [], baseline: [] };
  for (let i = opts.warmup; i < opts.warmup + opts.reps; i += 1) {
    if (baseline !== null) out.baseline.push(timeMs(() => baseline(i)));
    out.app.push(timeMs(() => app(i)));
  }
  return out;
}

export function round(value: number, digits = 3): number {
  if (!Number.isFinite(value)) return value;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
