/** Settings: key → JSON. */
import type { Actor } from '../../shared/domain';
import { parseJson, toJson } from './row-mapping';
import { actorOf, appendEvent } from './run-state';
import { requireText } from './input-checks';
import type { ReadableDB, WritableDB } from './store-context';

export function getSetting<T>(ctx: ReadableDB, key: string, fallback: T): T {
  const row = ctx.prep(`SELECT value_json FROM settings WHERE key = ?`).get(key) as
    { value_json: string } | undefined;
  return row === undefined ? fallback : (parseJson(row.value_json) as T);
}

export function setSetting(ctx: WritableDB, key: string, value: unknown, actor: Actor, now: number): void {
  requireText(key, 'key');
  ctx
    .prep(
      `INSERT INTO settings (key, value_json, updated_at) VALUES (?, ?, ?)
       ON CONFLICT(key) DO UPDATE SET value_json = excluded.value_json, updated_at = excluded.updated_at`,
    )
    .run(key, toJson(value), now);
  appendEvent(ctx, now, null, null, { type: 'settings.changed', actor: actorOf(actor), payload: { key } });
}

export function listSettings(ctx: ReadableDB): Record<string, unknown> {
  const rows = ctx.prep(`SELECT key, value_json FROM settings ORDER BY key`).all() as Array<{
    key: string;
    value_json: string;
  }>;
  // fromEntries defines own properties: a key like "__proto__" cannot reach the prototype.
  return Object.fromEntries(rows.map((row) => [row.key, parseJson(row.value_json)]));
}
