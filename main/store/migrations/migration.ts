/** One numbered schema step; `user_version` becomes `version` in the same transaction (docs/ARCHITECTURE.md#the-store-file). */
export interface Migration {
  version: number;
  name: string;
  sql: string;
  /**
   * What the step changes in the data, said when it applies (docs/ARCHITECTURE.md#upgrades): `sql` counts,
   * before the step runs and in its transaction, the rows it will change; `says` names them after the count.
   */
  changes?: { sql: string; says: string };
}

/** A store migrated by this open: from → to, and what the steps changed in the data (one sentence each). */
export interface MigrationReport {
  from: number;
  to: number;
  changes: string[];
}

/** The sentence a command says once on stderr when it migrated the store (lines; the first names the store). */
export function describeMigration(report: MigrationReport, storePath: string): string {
  const head =
    `upgraded the store ${storePath} from schema v${report.from} to v${report.to}` +
    (report.changes.length === 0 ? ' (no data changed).' : ':');
  return [head, ...report.changes.map((change) => `  ${change}`)].join('\n');
}

/** The settings key of an upgrade's recount (`RecountMarker`): never a person's setting. */
export const RECOUNT_KEY = 'upgrade.recount';
/** How long after an upgrade the sweeper recounts at least, for old runners that claim runs later. */
export const RECOUNT_FOR_MS = 3_600_000;

/** Set by a migration: recount until `until` and until these runs (live when it ran) have ended. */
export interface RecountMarker {
  until: number;
  runs: string[];
}
