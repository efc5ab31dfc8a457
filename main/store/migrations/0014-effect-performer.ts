/**
 * Schema v14: who performs an applying effect (docs/LIVENESS.md#unknown-outcomes).
 * - `performer` 'run': the run itself performs it (`effect begin` with no `--performer-pid`, from a shell
 *   that may exit before `effect end`). The process columns then hold the run's supervisor as it was at
 *   `effect begin`, so the effect turns ambiguous when the supervisor dies (the supervisor ends the run, and
 *   with it the effect, when the command dies), not when the process that called `effect begin` exits.
 * - NULL: one process performs it (`effect -- CMD`, `effect begin --performer-pid PID`, or an effect begun
 *   before this version), the one the process columns name.
 */
import type { Migration } from './migration';

export const migration0014: Migration = {
  version: 14,
  name: '0014-effect-performer',
  sql: `
ALTER TABLE effects ADD COLUMN performer TEXT CHECK (performer IS NULL OR performer = 'run');
`,
};
