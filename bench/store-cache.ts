/**
 * Generated stores are kept between bench runs (`.cache/bench/` by default): a 1M-run store takes minutes to
 * build. A cached store is copied for each run (the bench writes to it) and its clock moved to the present:
 * every `*_at` / `*_since` column of every table but the append-only events is shifted by the time since it
 * was generated, so live leases are live and stale ones stale again. Event times keep their generation date;
 * nothing the bench measures reads them.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SUPPORTED_SCHEMA_VERSION } from '../main/store';
import { generateStore, type GenerateOptions, type GeneratedStore } from './generate-store';

/** Bump when the generator's output changes: older cached stores are then ignored. */
const GENERATOR_VERSION = 1;

interface CachedMeta {
  generatedAt: number;
  store: Omit<GeneratedStore, 'storePath' | 'ms'> & { ms: number };
}

export interface StoreSource {
  store: GeneratedStore;
  /** Where the store came from, for the log and the JSON. */
  origin: 'generated' | 'cache';
  cachePath: string | null;
}

function cacheKey(opts: Pick<GenerateOptions, 'runs' | 'projects' | 'eventsPerRun'>): string {
  return `runs${opts.runs}-projects${opts.projects}-events${opts.eventsPerRun}-schema${SUPPORTED_SCHEMA_VERSION}-g${GENERATOR_VERSION}`;
}

/** One file, no -wal beside it: what is copied is the whole store. */
function checkpointToOneFile(file: string): void {
  const db = new Database(file);
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

function removeStore(file: string): void {
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true });
}

/** Moves every time column but the events' by `deltaMs`. */
export function shiftStoreClock(file: string, deltaMs: number): number {
  if (deltaMs === 0) return 0;
  const db = new Database(file);
  let columns = 0;
  try {
    const tables = db
      .prepare(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'run_search%' AND name <> 'events'`,
      )
      .pluck()
      .all() as string[];
    db.transaction(() => {
      for (const table of tables) {
        const cols = (
          db.prepare(`SELECT name, type FROM pragma_table_info(?)`).all(table) as Array<{
            name: string;
            type: string;
          }>
        ).filter((c) => /_(at|since)$/.test(c.name) && c.type.toUpperCase() === 'INTEGER');
        for (const c of cols) {
          db.prepare(`UPDATE "${table}" SET "${c.name}" = "${c.name}" + ? WHERE "${c.name}" IS NOT NULL`).run(
            deltaMs,
          );
          columns += 1;
        }
      }
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  return columns;
}

/**
 * The store for one bench size at `opts.storePath`: from the cache when it has one (copied, clock moved to
 * `opts.now`), else generated there and put in the cache. `cacheDir` null: always generate, keep nothing.
 */
export function benchStore(
  opts: GenerateOptions,
  cacheDir: string | null,
  log: (line: string) => void,
): StoreSource {
  const key = cacheKey(opts);
  const cachePath = cacheDir === null ? null : path.join(cacheDir, `${key}.sqlite`);
  const metaPath = cachePath === null ? null : `${cachePath}.json`;
  if (cachePath !== null && metaPath !== null && fs.existsSync(cachePath) && fs.existsSync(metaPath)) {
    const meta = JSON.parse(fs.readFileSync(metaPath, 'utf8')) as CachedMeta;
    const started = performance.now();
    fs.mkdirSync(path.dirname(opts.storePath), { recursive: true, mode: 0o700 });
    removeStore(opts.storePath);
    fs.copyFileSync(cachePath, opts.storePath);
    fs.chmodSync(opts.storePath, 0o600);
    const columns = shiftStoreClock(opts.storePath, opts.now - meta.generatedAt);
    log(
      `  from the cache (${cachePath}), clock moved ${Math.round((opts.now - meta.generatedAt) / 60_000)} min over ${columns} columns in ${((performance.now() - started) / 1_000).toFixed(1)} s`,
    );
    return { store: { ...meta.store, storePath: opts.storePath }, origin: 'cache', cachePath };
  }
  const store = generateStore(opts);
  checkpointToOneFile(opts.storePath);
  if (cachePath !== null && metaPath !== null) {
    fs.mkdirSync(path.dirname(cachePath), { recursive: true, mode: 0o700 });
    removeStore(cachePath);
    fs.copyFileSync(opts.storePath, cachePath);
    const { storePath: _unused, ...rest } = store;
    const meta: CachedMeta = { generatedAt: opts.now, store: rest };
    fs.writeFileSync(metaPath, JSON.stringify(meta));
    log(`  cached as ${cachePath} for the next run`);
  }
  return { store, origin: 'generated', cachePath };
}
