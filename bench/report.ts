/** Prints the bench table plainly and writes the JSON that runs are compared by. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Measurement } from './report-model';

export interface BenchReport {
  startedAt: string;
  machine: {
    cpus: number;
    cpuModel: string;
    memoryGb: number;
    node: string;
    platform: string;
    sqlite: string;
    /** 1/5/15-minute load averages when the size started and ended. */
    loadBefore?: string;
    loadAfter?: string;
  };
  config: Record<string, unknown>;
  store: Record<string, unknown>;
  measurements: Measurement[];
  plans: Record<string, unknown>;
  summary: { met: number; missed: number; untargeted: number };
  seconds: number;
}

export function machineInfo(sqlite: string): BenchReport['machine'] {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    memoryGb: Math.round(os.totalmem() / 1_073_741_824),
    node: process.version,
    platform: `${process.platform} ${os.release()}`,
    sqlite,
  };
}

function fmt(value: number | null, unit = ''): string {
  if (value === null || !Number.isFinite(value)) return '—';
  const abs = Math.abs(value);
  const text =
    abs >= 1_000
      ? Math.round(value).toLocaleString('en-US')
      : abs >= 10
        ? value.toFixed(1)
        : value.toFixed(3);
  return `${text}${unit}`;
}

/** The table, one line per measurement. */
export function formatTable(measurements: readonly Measurement[]): string {
  const header = ['operation', 'median', 'p95', 'raw SQL', 'ratio', 'target', 'result'];
  const rows = measurements.map((m) => [
    m.label,
    `${fmt(m.median)} ${m.unit}`,
    m.p95 === null ? '—' : fmt(m.p95),
    fmt(m.baselineMedian),
    m.ratio === null ? '—' : `${m.ratio.toFixed(2)}×`,
    m.target ?? '—',
    m.met === null ? 'info' : m.met ? 'MET' : 'MISSED',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 || i >= 5 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number)))
      .join('  ');
  return [line(header), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function formatExtras(measurements: readonly Measurement[]): string {
  return measurements
    .filter((m) => m.extra !== undefined || m.note !== undefined)
    .map((m) => {
      const extra =
        m.extra === undefined
          ? ''
          : Object.entries(m.extra)
              .map(([k, v]) => `${k}=${String(v)}`)
              .join(', ');
      return `  ${m.id}: ${extra}${m.note === undefined ? '' : `${extra === '' ? '' : ' — '}${m.note}`}`;
    })
    .join('\n');
}

export function summaryOf(measurements: readonly Measurement[]): BenchReport['summary'] {
  return {
    met: measurements.filter((m) => m.met === true).length,
    missed: measurements.filter((m) => m.met === false).length,
    untargeted: measurements.filter((m) => m.met === null).length,
  };
}

/** Writes `latest.json` and a timestamped copy beside it; returns the latest path. */
export function writeJson(dir: string, report: BenchReport): string {
  fs.mkdirSync(dir, { recursive: true });
  const text = `${JSON.stringify(report, null, 2)}\n`;
  const latest = path.join(dir, 'latest.json');
  fs.writeFileSync(latest, text);
  fs.writeFileSync(path.join(dir, `bench-${report.startedAt.replace(/[:.]/g, '-')}.json`), text);
  return latest;
}
