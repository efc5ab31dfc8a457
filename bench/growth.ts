/**
 * Across store sizes: how much each read's p95 grew from the smallest store to the largest (target: at most
 * 1.5×), beside its raw SQL's own growth. Where the baseline is the raw query for the same data, a read whose
 * raw SQL grows as much is judged on what it adds: its growth over the raw SQL's, at most 1.5× too. A read whose baseline is a naive full count is judged
 * on its own growth only.
 */
import type { Measurement } from './report-model';

export interface SizeResult {
  runs: number;
  measurements: Measurement[];
  ok: boolean;
}

export const GROWTH_LIMIT = 1.5;

export type GrowthResult = 'MET' | 'MET vs raw SQL' | 'MISSED' | 'info';

export interface Growth {
  id: string;
  label: string;
  /** p95 at each size, smallest first; the raw SQL's likewise. */
  p95: Array<number | null>;
  rawP95: Array<number | null>;
  growth: number | null;
  rawGrowth: number | null;
  /** growth / rawGrowth: what the app adds to the growth SQLite itself has. */
  excess: number | null;
  result: GrowthResult;
}

function ratioOf(last: number | null | undefined, first: number | null | undefined): number | null {
  if (last === null || last === undefined || first === null || first === undefined || first <= 0) return null;
  return last / first;
}

/** The verdict for one read: its own growth, else (same-data baselines) its growth beyond the raw SQL's. */
export function growthResult(
  growth: number | null,
  rawGrowth: number | null,
  kind: Measurement['baselineKind'],
): GrowthResult {
  if (growth === null) return 'info';
  if (growth <= GROWTH_LIMIT) return 'MET';
  if (kind === 'same-data' && rawGrowth !== null && growth / rawGrowth <= GROWTH_LIMIT)
    return 'MET vs raw SQL';
  return 'MISSED';
}

export function growthOf(results: readonly SizeResult[]): Growth[] {
  const first = results[0];
  if (first === undefined) return [];
  const out: Growth[] = [];
  for (const m of first.measurements) {
    if (m.group !== 'store' || m.p95 === null) continue;
    const at = results.map((r) => r.measurements.find((x) => x.id === m.id));
    const p95 = at.map((x) => x?.p95 ?? null);
    const rawP95 = at.map((x) => x?.baselineP95 ?? null);
    const growth = ratioOf(p95.at(-1), p95[0]);
    const rawGrowth = ratioOf(rawP95.at(-1), rawP95[0]);
    out.push({
      id: m.id,
      label: m.label,
      p95,
      rawP95,
      growth,
      rawGrowth,
      excess: growth === null || rawGrowth === null ? null : growth / rawGrowth,
      result: growthResult(growth, rawGrowth, m.baselineKind),
    });
  }
  return out;
}

const times = (x: number | null) => (x === null ? '—' : `${x.toFixed(2)}×`);
const ms = (xs: ReadonlyArray<number | null>) => xs.map((x) => (x === null ? '—' : x.toFixed(3))).join(' → ');

export function growthTable(results: readonly SizeResult[]): string {
  const rows = growthOf(results).map((g) => [
    g.label,
    ms(g.p95),
    ms(g.rawP95),
    times(g.growth),
    times(g.rawGrowth),
    times(g.excess),
    g.result,
  ]);
  const header = [
    'operation',
    'p95 (ms)',
    'raw SQL p95 (ms)',
    'growth',
    'raw growth',
    'growth / raw',
    'result',
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 || i === 6 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join('  ');
  return [
    `target: p95 grows at most ${GROWTH_LIMIT}× from the smallest to the largest store; where the raw SQL for the`,
    `same data grows too, at most ${GROWTH_LIMIT}× more than it ("MET vs raw SQL"). Counts' baselines are full counts: judged alone.`,
    line(header),
    widths.map((w) => '─'.repeat(w)).join('  '),
    ...rows.map(line),
  ].join('\n');
}
