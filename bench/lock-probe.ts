/**
 * Times every write transaction the store runs on one connection (BEGIN IMMEDIATE … COMMIT), which is how
 * long it holds SQLite's write lock. Works by wrapping `db.transaction`: the store builds each write with
 * `db.transaction(fn).immediate()`.
 */
import type Database from 'better-sqlite3';

export interface LockProbe {
  /** Milliseconds per write transaction since the last `take()`. */
  take(): number[];
  restore(): void;
}

type TxFn = Database.Transaction<(...args: unknown[]) => unknown>;

export function probeWriteLock(db: Database.Database): LockProbe {
  const original = db.transaction;
  let holds: number[] = [];
  const wrapped = function (this: Database.Database, fn: (...args: unknown[]) => unknown): TxFn {
    const tx = original.call(db, fn) as TxFn;
    const timed =
      (variant: (...args: unknown[]) => unknown) =>
      (...args: unknown[]) => {
        const start = process.hrtime.bigint();
        try {
          return variant(...args);
        } finally {
          holds.push(Number(process.hrtime.bigint() - start) / 1e6);
        }
      };
    const out = timed(tx) as TxFn;
    Object.assign(out, {
      default: out,
      deferred: timed(tx.deferred),
      immediate: timed(tx.immediate),
      exclusive: timed(tx.exclusive),
      database: db,
    });
    return out;
  };
  Object.defineProperty(db, 'transaction', { value: wrapped, configurable: true, writable: true });
  return {
    take() {
      const out = holds;
      holds = [];
      return out;
    },
    restore() {
      Reflect.deleteProperty(db, 'transaction');
    },
  };
}
