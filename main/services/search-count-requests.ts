/**
 * A window's search counts (`attention:summary` with a search and `limit: 0`) answered from the search-count
 * worker (main/store/search-count-worker.ts), so counting a broad word never holds up the host's next
 * request (docs/WINDOW.md#search). Anything else, and any count the worker cannot run, is the dispatcher's,
 * on the host's own connection, as before.
 */
import type { Result } from '../../shared/errors';
import { parseRequest } from '../../shared/contract';
import type { AttentionSummary } from '../../shared/views';
import {
  startSearchCountWorker,
  tallySearchCounts,
  type StoreReader,
  type SearchCountRow,
  type SearchCountWorker,
} from '../store';

export interface SearchCountRequests {
  /** The answer, or null when the request is the dispatcher's to answer. */
  answer(input: unknown): Promise<Result<AttentionSummary> | null>;
  stop(): Promise<void>;
}

/** Starts the worker for a read-write store (a read-only one may be an in-memory copy: counted inline). */
export function startSearchCountRequests(store: StoreReader): SearchCountRequests {
  let worker: SearchCountWorker | null = null;
  if (store.mode === 'read-write') {
    try {
      worker = startSearchCountWorker(store.path, {
        onError: (error) =>
          console.warn(`runwarden: search counts are back on the main thread: ${error.message}`),
      });
    } catch (error) {
      console.warn(`runwarden: search counts stay on the main thread: ${(error as Error).message}`);
    }
  }
  return {
    async answer(input) {
      if (worker?.active !== true) return null;
      const parsed = parseRequest('attention:summary', input);
      if (!parsed.ok || parsed.value.limit !== 0) return null;
      const search = parsed.value.search?.trim() ?? '';
      if (search === '') return null;
      const filter = {
        search,
        ...(parsed.value.projectPath !== undefined && { projectPath: parsed.value.projectPath }),
      };
      let statement;
      try {
        statement = store.searchCountsStatement(filter);
      } catch {
        return null; // The dispatcher reports it as it would any failed read.
      }
      if (statement === null)
        return { ok: true, value: { counts: {}, needsYou: 0, capped: false, items: [] } };
      const answer = await worker.run(statement, parsed.value.supersede);
      if (answer.ok) {
        return { ok: true, value: { ...tallySearchCounts(answer.rows as SearchCountRow[]), items: [] } };
      }
      if (answer.reason === 'superseded') {
        return {
          ok: false,
          error: {
            code: 'SUPERSEDED',
            message:
              'Newer search counts were asked for before these were counted; ask again if still needed.',
          },
        };
      }
      return null;
    },
    async stop() {
      await worker?.stop();
      worker = null;
    },
  };
}
