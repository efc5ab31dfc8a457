/**
 * Across store sizes: how much each read's p95 grew from the smallest store to the largest (target: at most
 * 1.5×), with its ratio to raw SQL at each size beside it.
 */
import type { Measurement } from './report-model';

export interface SizeResult {
  runs: number;
  measurements: Measurement[];
  ok: boolean;
}

export const GROWTH_LIMIT = 1.5;

export function growthTable(results: readonly SizeResult[]): string {
  const first = results[0];
  const last = results.at(-1);
  if (first === undefined || last === undefined) return '';
  const sizes = results.map((r) => r.runs.toLocaleString('en-US'));
  const header = [
    'operation',
    ...sizes.map((s) => `p95 @${s}`),
    ...sizes.map((s) => `ratio @${s}`),
    'growth',
    'result',
  ];
  const rows: string[][] = [];
  for (const m of first.measurements) {
    if (m.group !== 'store' || m.p95 === null) continue;
    const at = results.map((r) => r.measurements.find((x) => x.id === m.id));
    const lastP95 = at.at(-1)?.p95 ?? null;
    const growth = lastP95 === null || m.p95 <= 0 ? null : lastP95 / m.p95;
    rows.push([
      m.label,
      ...at.map((x) => (x?.p95 ?? Number.NaN).toFixed(3)),
      ...at.map((x) => (x?.ratio === null || x === undefined ? '—' : `${x.ratio.toFixed(2)}×`)),
      growth === null ? '—' : `${growth.toFixed(2)}×`,
      growth === null ? 'info' : growth <= GROWTH_LIMIT ? 'MET' : 'MISSED',
    ]);
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  return [
    `target: p95 grows at most ${GROWTH_LIMIT}× from the smallest to the largest store`,
    line(header),
    widths.map((w) => '─'.repeat(w)).join('  '),
    ...rows.map(line),
  ].join('\n');
}
