/** `runwarden doctor`: where the store is, its health, contradictions and stale leases. */
import { formatBytes } from '../../../shared/log-text';
import type { CounterDrift } from '../../../shared/views';
import type { DoctorReport } from '../../store';
import { humanActor } from '../human-actor';
import { COMMON_HELP, JSON_HELP } from '../command';
import { defineCommand, reply } from '../define-command';
import { openCliReader, openCliStore } from '../open-cli-store';
import { EXIT } from '../exit-codes';
import type { Paint } from '../output';
import { sanitizeLine } from '../sanitize';

export const doctorCommand = defineCommand({
  name: 'doctor',
  summary: 'check the store: path, size, schema, mode, WAL, contradictions, stale leases',
  help: `Usage: runwarden doctor [--repair] [--json]

Reports the store's path, size, schema version, mode (read-write or read-only and why),
WAL size, SQLite's integrity check, the space run logs use (and their budget),
runs whose queue and run states contradict each other, counts of runs per project and status
that disagree with the runs, and leases that expired without their runner finishing (stale runs).

  --repair   set counts that disagree with the runs to what the runs say, and say what changed (a runner
             of an older version alive across an upgrade leaves them so; the app's sweeper does the same)

${JSON_HELP}
${COMMON_HELP}

Exit status: 0 healthy (stale runs are reported but are not a store problem);
1 contradictions or counts that disagree found, or the integrity check failed.`,
  options: { repair: { type: 'boolean' } },
  positionals: [],
  run({ ctx, values }) {
    // --repair writes (and may create the store); a check only reads one that exists.
    const repair = values.repair === true;
    const writer = repair ? openCliStore(ctx, values.store) : null;
    const store = writer ?? openCliReader(ctx, values.store);
    const repaired = writer?.repairCounterDrift(humanActor()) ?? [];
    const report = store.doctor();
    const result = repair ? { ...report, repaired } : report;
    const problems = report.contradictions.length + report.counterDrift.length;
    return reply(
      result,
      () => renderRepairs(repaired) + renderReport(report, ctx.paint),
      problems > 0 || report.integrity !== 'ok' ? EXIT.failure : EXIT.ok,
    );
  },
});

/** Which way a kept count is off: ahead (it says more runs than there are) or behind. */
export function driftText(drift: CounterDrift): string {
  const way = drift.kept > drift.counted ? 'ahead' : 'behind';
  return `counted ${way} by ${Math.abs(drift.kept - drift.counted)}: kept ${drift.kept}, the runs say ${drift.counted}`;
}

function renderRepairs(repaired: readonly CounterDrift[]): string {
  return repaired
    .map(
      (drift) =>
        `repaired    ${sanitizeLine(drift.projectPath)} ${drift.display}: was ${driftText(drift)}; now ${drift.counted}\n`,
    )
    .join('');
}

/** This store's logs left in the shared legacy folder, and files that are not this store's (never counted). */
function logFolderRows(report: DoctorReport): Array<[string, string]> {
  const rows: Array<[string, string]> = [];
  const { legacy, foreign } = report.logs;
  if (legacy.files > 0) {
    rows.push([
      'old logs',
      `${formatBytes(legacy.bytes)} in ${legacy.files} file(s) of this store still in ${sanitizeLine(legacy.dir)} ` +
        '(shared by every store there; moved once their runs end)',
    ]);
  }
  for (const found of foreign) {
    rows.push([
      'foreign',
      `${found.files} file(s) in ${sanitizeLine(found.dir)} are not this store's logs: not counted, never deleted`,
    ]);
  }
  return rows;
}

function renderReport(report: DoctorReport, paint: Paint): string {
  const { info } = report;
  const rows: Array<[string, string]> = [
    ['store', sanitizeLine(info.path)],
    ['size', formatBytes(info.sizeBytes)],
    ['WAL', formatBytes(info.walBytes)],
    ['schema', `version ${info.schemaVersion} (this build supports ${info.supportedVersion})`],
    [
      'mode',
      info.mode === 'read-write'
        ? 'read-write'
        : paint('yellow', `read-only: ${sanitizeLine(info.modeReason ?? 'unknown reason')}`),
    ],
    ['integrity', report.integrity === 'ok' ? paint('green', 'ok') : paint('red', report.integrity)],
    [
      'stale',
      report.staleLeases === 0
        ? 'no stale leases'
        : paint('yellow', `${report.staleLeases} stale lease(s): see "runwarden ls --status stale"`),
    ],
    [
      'logs',
      `${formatBytes(report.logs.bytes)} in ${report.logs.files} file(s) of ${formatBytes(report.logs.budgetBytes)} ` +
        `(each run's log capped at ${formatBytes(report.logs.capBytes)}) in ${sanitizeLine(report.logs.dir)}`,
    ],
    ...logFolderRows(report),
    [
      'consistency',
      report.contradictions.length === 0
        ? paint('green', 'no contradictions')
        : paint('red', `${report.contradictions.length} contradiction(s)`),
    ],
  ];
  rows.push([
    'counts',
    report.counterDrift.length === 0
      ? paint('green', 'runs per project and status agree with the runs')
      : paint('red', `${report.counterDrift.length} count(s) disagree with the runs`),
  ]);
  const lines = rows.map(([label, value]) => `${paint('bold', label.padEnd(12))}${value}`);
  for (const contradiction of report.contradictions)
    lines.push(`  ${contradiction.runId}: ${sanitizeLine(contradiction.problem)}`);
  for (const drift of report.counterDrift)
    lines.push(`  ${sanitizeLine(drift.projectPath)} ${drift.display}: ${driftText(drift)}`);
  if (report.counterDrift.length > 0) lines.push('  Set them right with: runwarden doctor --repair');
  return `${lines.join('\n')}\n`;
}
