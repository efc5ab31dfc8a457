/**
 * Which SQL an operation runs, and with what plan: counts statements per call (an N+1 shows as hundreds)
 * and reads EXPLAIN QUERY PLAN for each distinct statement, flagging full scans. Used on a second
 * connection, so the timed connection carries no wrapper.
 */
import type Database from 'better-sqlite3';

export interface OpProfile {
  statements: number;
  distinct: number;
  /** Distinct statements whose plan scans a whole table (no index), with the plan lines. */
  scans: Array<{ sql: string; plan: string[] }>;
}

type Runner = (...args: unknown[]) => unknown;

export function profileSql(db: Database.Database): { measure(fn: () => unknown): OpProfile } {
  const original = db.prepare;
  let seen: string[] = [];
  const prepare = function (this: Database.Database, source: string) {
    const stmt = original.call(db, source) as Database.Statement;
    for (const method of ['all', 'get', 'run', 'iterate'] as const) {
      const fn = (stmt[method] as Runner).bind(stmt);
      Object.defineProperty(stmt, method, {
        value: (...args: unknown[]) => {
          seen.push(source);
          return fn(...args);
        },
        configurable: true,
      });
    }
    return stmt;
  };
  Object.defineProperty(db, 'prepare', { value: prepare, configurable: true, writable: true });
  return {
    measure(fn) {
      seen = [];
      fn();
      const distinct = [...new Set(seen)];
      const scans: OpProfile['scans'] = [];
      for (const sql of distinct) {
        const plan = explain(db, original, sql);
        if (plan.some((line) => tableScan(line, plan))) {
          scans.push({ sql: sql.replace(/\s+/g, ' ').trim(), plan });
        }
      }
      return { statements: seen.length, distinct: distinct.length, scans };
    },
  };
}

/**
 * A plan line that scans a whole table (no index). A named subquery's rows (a co-routine or a materialised
 * view of a few rows, e.g. a list page joined to its extras) are scanned as `SCAN name` too: not a table.
 */
function tableScan(line: string, plan: readonly string[]): boolean {
  const name = /^SCAN ([A-Za-z_]\w*)$/.exec(line)?.[1];
  return name !== undefined && !plan.includes(`CO-ROUTINE ${name}`) && !plan.includes(`MATERIALIZE ${name}`);
}

/** EXPLAIN QUERY PLAN with every parameter bound to 0 (plans do not depend on values without sqlite_stat1). */
function explain(db: Database.Database, prepare: Database.Database['prepare'], sql: string): string[] {
  if (!/^\s*(SELECT|WITH|UPDATE|DELETE|INSERT)/i.test(sql)) return [];
  try {
    const stmt = prepare.call(db, `EXPLAIN QUERY PLAN ${sql}`);
    const named = [...new Set([...sql.matchAll(/[@:$](\w+)/g)].map((m) => m[1] as string))];
    const positional = (sql.match(/\?/g) ?? []).length;
    const args: unknown[] =
      named.length > 0 ? [Object.fromEntries(named.map((n) => [n, 0]))] : Array(positional).fill(0);
    return ((stmt.all as Runner)(...args) as Array<{ detail: string }>).map((r) => r.detail);
  } catch {
    return [];
  }
}
